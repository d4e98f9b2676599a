"""Fitting a Kokoro voice to a speaker: choose, blend, then search the style space.

No cloning weights install offline, so a cloned voice is a point in Kokoro's
style space chosen to sound like the sample to a speaker encoder:

1. **Choose.** Rank the 54 stock voices by the fit encoder's similarity of
   their (cached) speech to the sample; keep the best few of the sample's gender.
2. **Blend.** Speaker embeddings of blended styles lie roughly between the
   embeddings of their parts, so the blend weights whose embedding mix is
   closest to the sample's are solved for in closed form (ridge least squares,
   weights summing to one, mild extrapolation allowed) and checked by real
   synthesis at a few step sizes along the way from the best stock voice.
3. **Search.** A (1+λ) evolution strategy perturbs the blend weights and adds
   an offset along the principal directions of the stock styles, keeping a
   candidate only when its synthesized speech scores higher; the step size
   adapts (1/5th rule).

Every evaluation synthesizes the same probe sentence with the candidate
style and embeds it with the *fit* encoder. Kokoro and the encoders are
deterministic, so the search is a plain hill climb on that score. The budget
is a number of evaluations (about 0.3–0.6 s each on two cores).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping

import numpy as np

from engines.speaker.encoders import cosine
from engines.tts.base import VoiceStyle

log = logging.getLogger(__name__)

#: Synthesizes the probe with a style; returns 24 kHz samples.
Speak = Callable[[VoiceStyle], np.ndarray]
Embed = Callable[[np.ndarray], np.ndarray]


@dataclasses.dataclass(frozen=True)
class FitBudget:
    """How much search a fit may do."""

    evaluations: int
    candidates: int = 5
    pca_components: int = 12
    #: Probe sentences per evaluation: more sentences cost more but overfit one utterance less.
    probes: int = 1

    @classmethod
    def standard(cls) -> FitBudget:
        return cls(evaluations=8)

    @classmethod
    def enhanced(cls) -> FitBudget:
        return cls(evaluations=36, candidates=8, pca_components=0, probes=3)


@dataclasses.dataclass(frozen=True)
class FitResult:
    """The fitted style and how it got there (fit-encoder similarities)."""

    style: VoiceStyle
    similarity: float
    best_stock: str
    stock_similarity: float
    evaluations: int
    seconds: float
    trace: tuple[float, ...]
    #: The probe speech of the fitted style, as the search synthesized it (no need to speak it again).
    audio: np.ndarray | None = None


class StyleFitter:
    """Fits styles against stock voices whose embeddings are known.

    Args:
        packs: stock voice name → style pack ``[510, 1, 256]``.
        stock_embeddings: stock voice name → fit-encoder embedding of its speech.
        genders: stock voice name → ``male`` / ``female``.
        seed: randomness of the search (fixed: the same sample fits the same voice).
    """

    def __init__(
        self,
        packs: Mapping[str, np.ndarray],
        stock_embeddings: Mapping[str, np.ndarray],
        genders: Mapping[str, str],
        seed: int = 7,
    ) -> None:
        self.names = sorted(set(packs) & set(stock_embeddings))
        self.embeddings = {n: np.asarray(stock_embeddings[n], dtype=np.float64) for n in self.names}
        self.genders = dict(genders)
        means = np.stack([packs[n][:, 0, :].mean(axis=0) for n in self.names])
        centred = means - means.mean(axis=0)
        _, singular, vt = np.linalg.svd(centred, full_matrices=False)
        self.directions = vt  # principal directions of the stock styles, strongest first
        self.spreads = singular / np.sqrt(max(1, len(self.names) - 1))
        self.seed = seed

    def rank(self, target: np.ndarray, gender: str | None) -> list[tuple[str, float]]:
        """Stock voices by similarity to ``target``, those of ``gender`` first."""
        scored = sorted(((n, cosine(self.embeddings[n], target)) for n in self.names), key=lambda x: -x[1])
        if gender in ("male", "female"):
            same = [s for s in scored if self.genders.get(s[0]) == gender]
            if len(same) >= 3:
                return same
        return scored

    def fit(self, target: np.ndarray, speak: Speak, embed: Embed, gender: str | None, budget: FitBudget) -> FitResult:
        started = time.monotonic()
        rng = np.random.default_rng(self.seed)
        ranked = self.rank(target, gender)[: budget.candidates]
        names = [n for n, _ in ranked]
        trace: list[float] = []
        kept: list[np.ndarray] = []  # the speech of the best style so far (the search keeps a style on a strict gain)

        def score(weights: np.ndarray, offset: np.ndarray) -> float:
            style = _style(names, weights, offset)
            audio = speak(style)
            value = cosine(embed(audio), target)
            if not trace or value > max(trace):
                kept[:] = [audio]
            trace.append(value)
            return value

        zero = np.zeros(self.directions.shape[1])
        # Step 1: the best two stock voices, measured on the probe.
        best_w, best_off, best = _one_hot(len(names), 0), zero, -1.0
        stock_best, stock_name = -1.0, names[0]
        for i in range(min(2, len(names))):
            w = _one_hot(len(names), i)
            value = score(w, zero)
            if value > stock_best:
                stock_best, stock_name = value, names[i]
            if value > best:
                best_w, best, best_off = w, value, zero
        # Step 2: the blend whose embedding mix is closest to the target, at a few step sizes.
        solved = _solve_blend(np.stack([self.embeddings[n] for n in names]), target)
        for alpha in (0.6, 1.0, 1.4):
            if len(trace) >= budget.evaluations:
                break
            w = best_w + alpha * (solved - best_w)
            value = score(w, zero)
            if value > best:
                best_w, best = w, value
        # Step 3: (1+1) evolution strategy on weights and a principal-direction offset.
        k = min(budget.pca_components, len(self.spreads))
        sigma = 0.35
        while len(trace) < budget.evaluations:
            w = best_w + rng.normal(0.0, 0.12 * sigma * 2, size=len(names))
            w = w / w.sum() if abs(w.sum()) > 1e-3 else best_w
            off = best_off
            if k:
                off = best_off + (rng.normal(0.0, sigma, size=k) * self.spreads[:k]) @ self.directions[:k]
            value = score(w, off)
            if value > best:
                best_w, best_off, best = w, off, value
                sigma = min(1.0, sigma * 1.5)
            else:
                sigma = max(0.05, sigma * 0.85)
        style = _style(names, best_w, best_off)
        seconds = time.monotonic() - started
        log.info("fitted voice %.3f (stock %s %.3f), %d evaluations, %.1f s", best, stock_name, stock_best, len(trace), seconds)
        return FitResult(style, best, stock_name, stock_best, len(trace), seconds, tuple(trace), kept[0] if kept else None)


def _one_hot(n: int, i: int) -> np.ndarray:
    w = np.zeros(n)
    w[i] = 1.0
    return w


def _style(names: list[str], weights: np.ndarray, offset: np.ndarray) -> VoiceStyle:
    kept = {n: round(float(w), 5) for n, w in zip(names, weights) if abs(w) > 1e-4}
    off = tuple(round(float(x), 5) for x in offset) if np.any(offset) else ()
    return VoiceStyle(weights=kept, offset=off)


def _solve_blend(embeddings: np.ndarray, target: np.ndarray, ridge: float = 0.05) -> np.ndarray:
    """Weights (sum 1, each within [-0.5, 1.5]) whose embedding mix is nearest ``target``."""
    n = embeddings.shape[0]
    e = embeddings.T  # [d, n]
    # Minimise |e w - t|^2 + ridge |w - 1/n|^2 subject to sum(w) = 1 (KKT system).
    a = np.zeros((n + 1, n + 1))
    a[:n, :n] = e.T @ e + ridge * np.eye(n)
    a[:n, n] = 1.0
    a[n, :n] = 1.0
    b = np.concatenate([e.T @ target + ridge / n, [1.0]])
    w = np.linalg.solve(a, b)[:n]
    w = np.clip(w, -0.5, 1.5)
    return w / w.sum()
