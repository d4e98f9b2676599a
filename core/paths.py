"""Where the project lives: relative paths in configs are taken from its root, whatever a Ray worker's directory."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def project_path(value: str) -> str:
    """``value`` as an absolute path; a relative one is under the project root."""
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else PROJECT_ROOT / path)
