"""``--field NAME=VALUE`` options: any contract field the command has no dedicated option for."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import click


def parse_fields(pairs: Iterable[str]) -> dict[str, Any]:
    """``["speed=1.2", "bilingual=true", "title=My talk"]`` -> ``{"speed": 1.2, "bilingual": True, "title": "My talk"}``.

    A value that reads as JSON (numbers, true/false, null, lists, objects) is sent as that value;
    anything else is sent as the string itself.
    """
    fields: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"expected NAME=VALUE, got {pair!r}", param_hint="--field")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        fields[name] = value
    return fields
