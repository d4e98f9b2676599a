"""The measured voice table as the TTS service and dubbing read it."""

from __future__ import annotations

from pathlib import Path

import yaml

from deployments.engines.tts.voice_table import VoiceTable

ROOT = Path(__file__).resolve().parents[3]


def test_a_table_gives_defaults_and_order_per_language_and_its_variants(tmp_path: Path) -> None:
    path = tmp_path / "voices.yaml"
    path.write_text(
        yaml.safe_dump({"languages": {"pt": {"default": {"female": "espeak.pt.female"},
                                             "ranked": {"female": ["kokoro.pf_dora", "espeak.pt.female"]}}}})  # fmt: skip
    )
    table = VoiceTable.load(path)
    assert table.default("pt-BR", "female") == "espeak.pt.female"
    assert table.order("pt", "female") == ["kokoro.pf_dora", "espeak.pt.female"]
    assert table.default("pt", "male") is None and table.order("de", "female") == []
    assert VoiceTable.load(tmp_path / "missing.yaml") == VoiceTable()


def test_the_committed_table_names_a_default_of_each_gender_it_ranks() -> None:
    """Every ranked gender has a default, and the default is one of the voices scored for the language."""
    data = yaml.safe_load((ROOT / "configs" / "voices.yaml").read_text(encoding="utf-8"))
    for lang, entry in data["languages"].items():
        for gender, ranked in (entry.get("ranked") or {}).items():
            assert ranked, (lang, gender)
            default = (entry.get("default") or {}).get(gender)
            assert default in entry["scores"] and default in ranked, (lang, gender)
