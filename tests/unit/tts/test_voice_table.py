"""The measured voice table as the TTS service and dubbing read it."""

from __future__ import annotations

from pathlib import Path

import yaml

from engines.tts.kokoro_voices import PLANS
from engines.tts.voice_table import VoiceTable

ROOT = Path(__file__).resolve().parents[3]


def test_a_table_gives_defaults_and_order_per_language_and_its_variants(tmp_path: Path) -> None:
    path = tmp_path / "voices.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "languages": {
                    "pt": {
                        "default": {"female": "espeak.pt.female"},
                        "ranked": {"female": ["kokoro.pf_dora", "espeak.pt.female"]},
                    }
                }
            }
        )
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


def test_the_cpu_profile_offers_every_voice_the_table_chooses() -> None:
    """Kokoro's borrowed languages and espeak-ng's stand-ins in configs/local.yaml are the table's measured ones."""
    table = yaml.safe_load((ROOT / "configs" / "voices.yaml").read_text(encoding="utf-8"))
    local = yaml.safe_load((ROOT / "configs" / "local.yaml").read_text(encoding="utf-8"))
    tts = next(app for app in local["applications"] if app["name"] == "mediatrans")["args"]["tts"]
    options = {spec["engine"]: spec.get("options") or {} for spec in tts["engines"]}
    assert sorted(options["kokoro"]["borrowed_languages"]) == table["kokoro_borrowed"]
    assert options["espeak"]["stand_ins"] == table["stand_ins"]
    assert options["espeak"].get("voice_wpm", {}) == table.get("espeak_wpm", {})
    kokoro_speaks = set(table["kokoro_borrowed"]) | set(PLANS)
    for lang, entry in table["languages"].items():
        for voices in entry["ranked"].values():
            assert lang in kokoro_speaks or not any(v.startswith("kokoro.") for v in voices), lang
