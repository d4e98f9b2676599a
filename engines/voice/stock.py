"""Speaker embeddings of Kokoro's stock voices, computed once and cached beside the model.

Each stock voice speaks the English probe sentence; the fit encoder embeds
it. Computing all 54 takes about a minute on two cores, so the result is
kept in ``<model_dir>/stock-embeddings.npz`` keyed by encoder, probe text and
model size; ``make setup`` builds it (``python -m engines.voice.stock``)
and a cloner that finds it stale rebuilds it at start.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from engines.speaker.encoder_factory import ENCODER_NAMES, load_encoder
from engines.speaker.encoders import SpeakerEncoder
from engines.tts.kokoro import MODEL_FILE, SAMPLE_RATE, KokoroEngine
from engines.voice.probes import PROBES

log = logging.getLogger(__name__)

CACHE_FILE = "stock-embeddings.npz"


def cache_path(kokoro: KokoroEngine) -> Path:
    """Where the cache of ``kokoro``'s stock embeddings lives: beside its model."""
    return Path(kokoro.options.model_dir) / CACHE_FILE


def cache_tag(kokoro: KokoroEngine, encoder: str) -> str:
    model = Path(kokoro.options.model_dir) / MODEL_FILE
    raw = f"{encoder}|{PROBES['en']}|{model.stat().st_size}|{len(kokoro.packs)}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def load_cached(kokoro: KokoroEngine, encoder: str) -> dict[str, np.ndarray] | None:
    path = cache_path(kokoro)
    try:
        with np.load(path) as data:
            prefix = f"{encoder}.{cache_tag(kokoro, encoder)}/"
            found = {k.removeprefix(prefix): data[k] for k in data.files if k.startswith(prefix)}
    except (OSError, ValueError):
        return None
    return found if set(found) >= set(kokoro.packs) else None


def probe_speech(kokoro: KokoroEngine) -> dict[str, np.ndarray]:
    """Each stock voice speaking the English probe sentence (what every encoder embeds)."""
    phonemes = kokoro.phonemize(PROBES["en"], "en")
    return {name: kokoro.speak_phonemes(phonemes, pack) for name, pack in sorted(kokoro.packs.items())}


def compute(kokoro: KokoroEngine, encoder: SpeakerEncoder, speech: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """``encoder``'s embedding of each stock voice; ``speech`` reuses probes already spoken."""
    speech = speech if speech is not None else probe_speech(kokoro)
    return {name: encoder.embed(audio, SAMPLE_RATE) for name, audio in speech.items()}


def store(kokoro: KokoroEngine, encoder: str, embeddings: dict[str, np.ndarray]) -> None:
    path = cache_path(kokoro)
    try:
        with np.load(path) as data:
            kept = {k: data[k] for k in data.files if not k.startswith(f"{encoder}.")}
    except (OSError, ValueError):
        kept = {}
    tag = cache_tag(kokoro, encoder)
    kept.update({f"{encoder}.{tag}/{name}": vector for name, vector in embeddings.items()})
    fd, tmp = tempfile.mkstemp(prefix=f".{CACHE_FILE}.", suffix=".npz", dir=path.parent)
    os.close(fd)
    np.savez(tmp, **kept)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def stock_embeddings(kokoro: KokoroEngine, encoder: SpeakerEncoder) -> dict[str, np.ndarray]:
    """The cached embeddings, computed and stored when missing or stale."""
    cached = load_cached(kokoro, encoder.name)
    if cached is not None:
        return cached
    log.info("computing %s embeddings of %d stock voices (cached afterwards)", encoder.name, len(kokoro.packs))
    embeddings = compute(kokoro, encoder)
    try:
        store(kokoro, encoder.name, embeddings)
    except OSError as exc:  # a read-only model folder: recompute next start
        log.warning("stock embeddings not cached: %s", exc)
    return embeddings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the stock-voice embedding cache.")
    parser.add_argument("--model-dir", default="models/kokoro")
    parser.add_argument("--encoder", action="append", default=None, help="voicefilter and/or resemblyzer (default: both)")
    args = parser.parse_args(argv)
    kokoro = KokoroEngine(model_dir=args.model_dir)
    kokoro.start()
    names = args.encoder or ENCODER_NAMES
    stale = [name for name in names if load_cached(kokoro, name) is None]
    speech = probe_speech(kokoro) if stale else None  # spoken once, whichever encoders need it
    for name in names:
        if name in stale:  # stored as computed: a folder setup cannot write fails the step
            encoder = load_encoder(name, threads=2)
            store(kokoro, encoder.name, compute(kokoro, encoder, speech))
        print(f"stock embeddings ({name}): {'built' if name in stale else 'up to date'} in {cache_path(kokoro)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
