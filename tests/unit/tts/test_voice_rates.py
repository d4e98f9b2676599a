"""The voice table's choice of an espeak-ng voice's rate (calibration/score_voices.py)."""

from __future__ import annotations

from calibration.score_voices import SLOW_MARGIN, finish, keep_best_rate


def _score(intelligibility: float, language: float = 0.5) -> dict[str, float]:
    return {"intelligibility": intelligibility, "language": language, "cer": 0.3, "named": True}


def test_a_slower_rate_is_kept_only_when_clearly_more_intelligible() -> None:
    scores = {
        "espeak.tr.female": _score(0.20),
        "espeak.tr.female@140": _score(0.21),
        "espeak.tr.female@115": _score(0.20 + SLOW_MARGIN + 0.01),
        "espeak.tr.male": _score(0.30),
        "espeak.tr.male@140": _score(0.30 + SLOW_MARGIN / 2),
        "kokoro.af_heart": _score(0.10),
    }
    kept, rates = keep_best_rate(scores)
    assert set(kept) == {"espeak.tr.female", "espeak.tr.male", "kokoro.af_heart"}
    assert kept["espeak.tr.female"]["wpm"] == 115
    assert "wpm" not in kept["espeak.tr.male"]  # within the margin: the faster, default rate
    assert sorted(rates["espeak.tr.female"]) == [115, 140, 175]
    assert "kokoro.af_heart" not in rates


def test_the_table_lists_every_voice_that_reads_slower() -> None:
    table = {
        "languages": {
            "tr": {"scores": {"espeak.tr.female": {**_score(0.3), "wpm": 115}, "espeak.tr.male": _score(0.2)}},
            "no": {"scores": {"espeak.no.female": _score(0.3), "espeak.no.male": {**_score(0.1), "wpm": 140}}},
        }
    }
    finish(table)
    assert table["espeak_wpm"] == {"espeak.tr.female": 115, "espeak.no.male": 140}
    assert table["languages"]["tr"]["default"] == {"female": "espeak.tr.female", "male": "espeak.tr.male"}
