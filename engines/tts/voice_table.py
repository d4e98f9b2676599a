"""The measured voice table (``configs/voices.yaml``, written by ``calibration/score_voices.py``).

Per language and gender: the ``default`` voice (the most intelligible one measured: a request without a
voice and ``default-*`` dubbing get it) and the ``ranked`` order of ``professional-*`` dubbing (natural
neural voices first where they are about as intelligible). Languages the table does not name keep the
engines' own order.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml


@dataclasses.dataclass(frozen=True)
class VoiceTable:
    """Language → gender → default voice id, and language → gender → voice ids in professional order."""

    defaults: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    ranked: dict[str, dict[str, list[str]]] = dataclasses.field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path | None) -> VoiceTable:
        """The table at ``path``; an empty one when there is none."""
        if path is None or not Path(path).is_file():
            return cls()
        data: dict[str, Any] = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        languages: dict[str, Any] = data.get("languages") or {}
        return cls(
            defaults={str(lang): dict(entry.get("default") or {}) for lang, entry in languages.items()},
            ranked={str(lang): {g: list(v) for g, v in (entry.get("ranked") or {}).items()} for lang, entry in languages.items()},
        )

    def default(self, lang: str, gender: str) -> str | None:
        """The measured default voice of ``lang`` (or its primary language) and ``gender``."""
        return _for(self.defaults, lang).get(gender)

    def order(self, lang: str, gender: str) -> list[str]:
        """The professional order of ``gender``'s voices for ``lang`` (or its primary language)."""
        return list(_for(self.ranked, lang).get(gender, []))


def _for(table: dict[str, Any], lang: str) -> Any:
    return table.get(lang) or table.get(lang.split("-")[0]) or {}
