"""Where the command line finds the API and the token: flags, then environment, then a config file.

The file is TOML, one table per profile (``[default]`` unless ``--profile``/``MEDIATRANS_PROFILE``
names another)::

    [default]
    base_url = "https://api.example.com"
    token = "mt_..."

Its path is ``$MEDIATRANS_CONFIG``, else ``$XDG_CONFIG_HOME/mediatrans/config.toml``
(``~/.config/mediatrans/config.toml``). ``mediatrans configure`` writes it with mode 0600.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from mediatrans_client._requests import BASE_URL_ENV, TOKEN_ENV

CONFIG_ENV = "MEDIATRANS_CONFIG"
PROFILE_ENV = "MEDIATRANS_PROFILE"
DEFAULT_PROFILE = "default"
KEYS = ("base_url", "token", "timeout")


class ConfigError(ValueError):
    """The config file cannot be read, or names no usable profile."""


def config_path() -> Path:
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    root = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(root) / "mediatrans" / "config.toml"


def cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "mediatrans"


def read_profiles(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read the config file {path}: {exc}") from exc
    return {name: table for name, table in data.items() if isinstance(table, dict)}


@dataclass(frozen=True)
class CliSettings:
    base_url: str | None
    token: str | None
    timeout: float
    source: str  # where base_url came from, for messages


def resolve(base_url: str | None, token: str | None, timeout: float | None, profile: str | None) -> CliSettings:
    """Flags win over ``MEDIATRANS_BASE_URL``/``MEDIATRANS_TOKEN``, which win over the config file."""
    path = config_path()
    name = profile or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    profiles = read_profiles(path)
    if profile and name not in profiles:
        raise ConfigError(f"No profile [{name}] in {path}.")
    table = profiles.get(name, {})
    url, source = base_url, "--base-url"
    if not url and os.environ.get(BASE_URL_ENV):
        url, source = os.environ[BASE_URL_ENV], BASE_URL_ENV
    if not url and table.get("base_url"):
        url, source = str(table["base_url"]), f"{path} [{name}]"
    secret = token or os.environ.get(TOKEN_ENV) or (str(table["token"]) if table.get("token") else None)
    seconds = timeout if timeout is not None else float(table.get("timeout", 30.0))
    return CliSettings(base_url=url, token=secret, timeout=seconds, source=source)


def write_profile(path: Path, profile: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into ``[profile]`` and write the file readable by its owner only."""
    profiles = read_profiles(path)
    merged = {**profiles.get(profile, {}), **{k: v for k, v in values.items() if v is not None}}
    profiles[profile] = merged
    lines: list[str] = []
    for name, table in profiles.items():
        lines.append(f"[{_toml_key(name)}]")
        lines.extend(f"{_toml_key(key)} = {_toml_value(value)}" for key, value in table.items())
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    os.chmod(path, 0o600)


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a valid TOML basic string
