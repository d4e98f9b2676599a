"""The style search and the score calibration, on a synthetic speaker space where the optimum is known."""

from __future__ import annotations

import itertools

import numpy as np

from engines.speaker.encoders import cosine
from engines.tts.base import VoiceStyle
from engines.voice.fitting import FitBudget, StyleFitter
from engines.voice.quality import ANCHORS, calibrated_score, grade

rng = np.random.default_rng(11)
NAMES = [f"{'f' if i % 2 else 'm'}_{i}" for i in range(12)]
PACKS = {n: rng.normal(0, 1, (510, 1, 256)).astype(np.float32) for n in NAMES}
#: A fixed nonlinear "encoder" of a style's mean vector: what the synthesized speech would embed to.
PROJECTION = rng.normal(0, 1, (256, 64))


def embed_style(style: VoiceStyle) -> np.ndarray:
    pack = sum(w * PACKS[n] for n, w in style.weights.items())
    vector = pack[:, 0, :].mean(axis=0) + (np.asarray(style.offset) if style.offset else 0.0)
    out = np.tanh(vector @ PROJECTION / 8)
    return out / np.linalg.norm(out)


def fitter() -> StyleFitter:
    stock = {n: embed_style(VoiceStyle({n: 1.0})) for n in NAMES}
    return StyleFitter(PACKS, stock, {n: "female" if n[0] == "f" else "male" for n in NAMES})


def test_fit_beats_the_best_stock_voice_and_stays_within_budget() -> None:
    target_style = VoiceStyle({NAMES[1]: 0.5, NAMES[3]: 0.3, NAMES[5]: 0.2})  # a speaker between stock voices
    target = embed_style(target_style)
    calls: list[VoiceStyle] = []

    def speak(style: VoiceStyle) -> VoiceStyle:
        calls.append(style)
        return style

    result = fitter().fit(target, speak, embed_style, "female", FitBudget(evaluations=14))  # type: ignore[arg-type]
    best_stock = max(cosine(embed_style(VoiceStyle({n: 1.0})), target) for n in NAMES)
    assert len(calls) == result.evaluations == 14
    assert result.similarity > best_stock + 0.02
    assert abs(result.similarity - cosine(embed_style(result.style), target)) < 1e-9  # the reported score is the style's
    assert result.similarity == max(result.trace)
    # the speech handed back is what the search synthesized for the fitted style, not a new synthesis
    assert result.audio is calls[result.trace.index(result.similarity)] and result.audio == result.style


def test_fit_is_deterministic_and_prefers_the_given_gender() -> None:
    target = embed_style(VoiceStyle({NAMES[2]: 1.0}))
    a = fitter().fit(target, lambda s: s, embed_style, "male", FitBudget(evaluations=8))  # type: ignore[arg-type,return-value]
    b = fitter().fit(target, lambda s: s, embed_style, "male", FitBudget(evaluations=8))  # type: ignore[arg-type,return-value]
    assert a.style == b.style
    assert fitter().rank(target, "male")[0][0].startswith("m_")


def test_calibration_is_monotone_and_matches_the_bands() -> None:
    xs = np.linspace(-0.5, 1.5, 401)
    scores = [calibrated_score(x) for x in xs]
    assert all(b >= a for a, b in itertools.pairwise(scores)) and scores[0] == 0.0 and scores[-1] == 1.0
    for x, y in ANCHORS:
        assert abs(calibrated_score(x) - y) < 1e-3
    assert grade(calibrated_score(0.95)) == "excellent"  # same speaker, other recordings (measured 0.95-0.98)
    assert grade(calibrated_score(0.745)) == "poor"  # the most similar different speakers measured
    assert calibrated_score(0.9) <= 0.917  # never raised above the judge beyond the same-speaker anchor
