"""Typed engine options: every engine declares what it accepts, and a profile's typo fails at build time.

Each engine class names its options model (``Options``), a frozen pydantic
model that forbids unknown keys and documents each field; its defaults are
the only defaults. ``validate_options`` turns a profile's ``options:`` mapping
into that model, or raises ``OptionsError`` naming the engine and the key.
A field typed ``ProjectPath`` holds a path that a relative value takes from
the project root; ``resolved`` does that, so engines receive absolute paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError


class _ProjectRelative:
    """Marks an option whose relative value is a path from the project root."""

    def __repr__(self) -> str:
        return "ProjectRelative"


PROJECT_RELATIVE = _ProjectRelative()

#: A file or folder; relative values are taken from the project root (``EngineOptions.resolved``).
ProjectPath = Annotated[str, PROJECT_RELATIVE]


class OptionsError(ValueError):
    """An engine's options do not validate; the message names the engine and every bad key."""


class EngineOptions(BaseModel):
    """Base of every engine's options: unknown keys are refused, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def resolved(self, root: Path) -> Self:
        """A copy whose relative ``ProjectPath`` values are absolute under ``root``."""
        updates: dict[str, str] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if PROJECT_RELATIVE in field.metadata and isinstance(value, str) and value:
                path = Path(value).expanduser()
                if not path.is_absolute():
                    updates[name] = str(root / path)
        return self.model_copy(update=updates) if updates else self

    def public(self) -> dict[str, Any]:
        """The effective options as JSON values (secrets masked), for ``describe()``."""
        return self.model_dump(mode="json")


def validate_options(engine: str, model: type[EngineOptions], raw: EngineOptions | dict[str, Any] | None) -> EngineOptions:
    """``raw`` as ``model``; ``OptionsError`` names ``engine`` and each bad key (unknown keys list the known ones)."""
    if isinstance(raw, model):
        return raw
    data = raw.model_dump() if isinstance(raw, EngineOptions) else dict(raw or {})
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise OptionsError(f"engine {engine!r}: {describe_errors(error, model)}") from None


def describe_errors(error: ValidationError, model: type[EngineOptions]) -> str:
    """One line per bad key: ``key: what is wrong``."""
    known = ", ".join(sorted(model.model_fields)) or "none"
    problems = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"]) or "options"
        if item["type"] == "extra_forbidden":
            problems.append(f"unknown option {key!r} (accepted: {known})")
        else:
            problems.append(f"option {key!r}: {item['msg']}")
    return "; ".join(problems)
