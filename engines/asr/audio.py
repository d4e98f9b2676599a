"""Audio helpers for speech recognition: decoding, silence-aware chunking, merging.

Everything works on 16 kHz mono float32 arrays in [-1, 1], the format Whisper
expects. Chunking is energy based (numpy only): long audio is cut in the
quietest stretch near each target boundary so that no word straddles a cut,
the chunks are transcribed independently (in parallel) with ``offset`` set to
each chunk's start, and ``merge_transcripts`` puts the results back together.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engines.asr.types import Segment, Transcript, Word
from engines.errors import EngineUnavailable, InvalidInput

SAMPLE_RATE = 16_000
#: ``load_audio`` refuses audio longer than this: the longest media the service takes (3 h) and a minute of slack.
MAX_AUDIO_S = 3 * 3600.0 + 60.0
#: Frames at or below this level (dBFS) are silent whatever the signal's peak.
SILENCE_FLOOR_DB = -90.0
_ENERGY_EPS = 1e-12

AudioInput = str | os.PathLike[str] | np.ndarray


# --------------------------------------------------------------------- decoding


def load_audio(
    path: str | os.PathLike[str],
    sample_rate: int = SAMPLE_RATE,
    ffmpeg: str = "ffmpeg",
    timeout_s: float | None = None,
    max_s: float = MAX_AUDIO_S,
) -> np.ndarray:
    """Decode any media file to mono float32 at ``sample_rate`` with ffmpeg.

    The output is capped while ffmpeg writes it (``-fs``) just past ``max_s``
    seconds, so a stream whose header or timestamps claim more cannot size
    the allocation; audio longer than ``max_s`` is refused, not cut.

    Raises:
        InvalidInput: the file is missing, has no audio stream, cannot be decoded or lasts over ``max_s``.
        EngineUnavailable: the ffmpeg binary is missing or did not finish in time.
    """
    max_samples = int(max_s * sample_rate)
    if not os.path.isfile(path):
        raise InvalidInput(f"audio file not found: {os.fspath(path)}")
    cmd = [
        ffmpeg,
        "-nostdin",
        "-hide_banner",
        "-loglevel",
        "error",
        "-i",
        os.fspath(path),
        "-vn",
        "-ac",
        "1",
        "-ar",
        str(sample_rate),
        "-f",
        "f32le",
        "-acodec",
        "pcm_f32le",
        "-fs",
        str((max_samples + 1) * 4),
        "-",
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, check=False, timeout=timeout_s)
    except FileNotFoundError as exc:
        raise EngineUnavailable(f"ffmpeg not found: {ffmpeg}") from exc
    except subprocess.TimeoutExpired as exc:
        raise EngineUnavailable(f"ffmpeg did not decode {os.fspath(path)} in {timeout_s}s") from exc
    if proc.returncode < 0:  # stopped by a signal (its worker is being killed): not the input's fault
        raise EngineUnavailable(f"ffmpeg was stopped by signal {-proc.returncode} while decoding {os.fspath(path)}")
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
        raise InvalidInput(f"cannot decode audio from {os.fspath(path)}: {detail[0]}")
    if len(proc.stdout) // 4 > max_samples:
        raise InvalidInput(f"the audio lasts over {max_s:g} s")
    audio = np.frombuffer(proc.stdout, dtype=np.float32)
    if audio.size == 0:
        raise InvalidInput(f"no audio samples in {os.fspath(path)}")
    return audio.copy()


def as_audio_array(audio: AudioInput) -> np.ndarray:
    """A path is decoded; an array is checked to be 1-D float32 and returned."""
    if not isinstance(audio, np.ndarray):
        return load_audio(audio)
    if audio.ndim != 1:
        raise InvalidInput(f"audio must be mono (1-D), got shape {audio.shape}")
    if audio.size == 0:
        raise InvalidInput("audio is empty")
    return audio.astype(np.float32, copy=False)


def duration_s(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> float:
    return audio.shape[0] / sample_rate


# --------------------------------------------------------------------- energy & silences


def frame_energy_db(audio: np.ndarray, sample_rate: int = SAMPLE_RATE, frame_s: float = 0.02) -> np.ndarray:
    """Mean power of consecutive ``frame_s`` frames in dBFS (last partial frame padded)."""
    frame = max(1, round(frame_s * sample_rate))
    count = math.ceil(audio.shape[0] / frame)
    padded = np.zeros(count * frame, dtype=np.float64)
    padded[: audio.shape[0]] = audio
    power = np.mean(padded.reshape(count, frame) ** 2, axis=1)
    return 10.0 * np.log10(power + _ENERGY_EPS)


def _silent_mask(energy_db: np.ndarray, threshold_db: float) -> np.ndarray:
    peak = float(energy_db.max()) if energy_db.size else SILENCE_FLOOR_DB
    return (energy_db < peak + threshold_db) | (energy_db <= SILENCE_FLOOR_DB)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Half-open index ranges ``[a, b)`` where ``mask`` is True."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def find_silences(
    audio: np.ndarray,
    sample_rate: int = SAMPLE_RATE,
    *,
    threshold_db: float = -35.0,
    min_silence_s: float = 0.3,
    frame_s: float = 0.02,
) -> tuple[tuple[float, float], ...]:
    """Stretches of at least ``min_silence_s`` quieter than ``threshold_db`` below the peak.

    The threshold is relative to the loudest frame, so quiet and loud recordings
    behave alike; digital silence (<= -90 dBFS) always counts. Returns
    ``(start_s, end_s)`` pairs in time order, clipped to the audio length.
    """
    energy = frame_energy_db(audio, sample_rate, frame_s)
    min_frames = max(1, round(min_silence_s / frame_s))
    total = duration_s(audio, sample_rate)
    return tuple(
        (a * frame_s, min(b * frame_s, total)) for a, b in _runs(_silent_mask(energy, threshold_db)) if b - a >= min_frames
    )


# --------------------------------------------------------------------- chunking


@dataclass(frozen=True)
class Chunk:
    """A piece of the timeline, ``[start, end)`` in seconds."""

    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start

    def slice(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
        """The chunk's samples (a view, no copy)."""
        return audio[round(self.start * sample_rate) : round(self.end * sample_rate)]


@dataclass(frozen=True)
class ChunkingOptions:
    """How long audio is cut for parallel transcription.

    Attributes:
        target_chunk_s: preferred chunk length; cuts are searched within
            ``target ± (max - target)`` of each chunk start.
        max_chunk_s: no chunk is longer (30 s is Whisper's window; 30/40 is a good pair).
        threshold_db: silence threshold relative to the loudest frame.
        min_silence_s: shortest pause that counts as a silence.
        frame_s: energy frame length.
    """

    target_chunk_s: float = 30.0
    max_chunk_s: float = 40.0
    threshold_db: float = -35.0
    min_silence_s: float = 0.3
    frame_s: float = 0.02

    def __post_init__(self) -> None:
        if not 0 < self.target_chunk_s <= self.max_chunk_s:
            raise ValueError("need 0 < target_chunk_s <= max_chunk_s")
        if self.frame_s <= 0 or self.min_silence_s < 0:
            raise ValueError("frame_s must be > 0 and min_silence_s >= 0")


def split_at_silences(
    audio: np.ndarray,
    target_chunk_s: float = 30.0,
    max_chunk_s: float = 40.0,
    *,
    sample_rate: int = SAMPLE_RATE,
    options: ChunkingOptions | None = None,
) -> tuple[Chunk, ...]:
    """Cut ``audio`` into contiguous chunks no longer than ``max_chunk_s``.

    Each cut lies in the longest silence inside the search window around the
    target boundary (nearest the target on ties); with no silence there it lies
    in the quietest ``min_silence_s`` stretch of the window. The chunks cover the
    whole audio without gaps or overlap. ``options``, when given, wins over
    the two lengths.
    """
    opts = options or ChunkingOptions(target_chunk_s=target_chunk_s, max_chunk_s=max_chunk_s)
    total = duration_s(audio, sample_rate)
    energy = frame_energy_db(audio, sample_rate, opts.frame_s)
    silences = find_silences(
        audio, sample_rate, threshold_db=opts.threshold_db, min_silence_s=opts.min_silence_s, frame_s=opts.frame_s
    )
    chunks: list[Chunk] = []
    pos = 0.0
    while total - pos > opts.max_chunk_s:
        cut = _choose_cut(pos, energy, silences, opts)
        chunks.append(Chunk(pos, cut))
        pos = cut
    chunks.append(Chunk(pos, total))
    return tuple(chunks)


def _search_window(pos: float, opts: ChunkingOptions) -> tuple[float, float]:
    slack = opts.max_chunk_s - opts.target_chunk_s
    low = pos + max(opts.target_chunk_s - slack, opts.target_chunk_s / 2)
    return low, pos + opts.max_chunk_s


def _choose_cut(pos: float, energy: np.ndarray, silences: Sequence[tuple[float, float]], opts: ChunkingOptions) -> float:
    low, high = _search_window(pos, opts)
    target = pos + opts.target_chunk_s
    inside = [(max(a, low), min(b, high)) for a, b in silences if b > low and a < high]
    if inside:
        a, b = max(inside, key=lambda r: (round(r[1] - r[0], 6), -abs((r[0] + r[1]) / 2 - target)))
        return (a + b) / 2
    return _quietest_point(energy, low, high, target, opts)


def _quietest_point(energy: np.ndarray, low: float, high: float, target: float, opts: ChunkingOptions) -> float:
    first, last = int(low / opts.frame_s), min(int(high / opts.frame_s), energy.size)
    width = max(1, round(opts.min_silence_s / opts.frame_s))
    window = energy[first:last]
    smooth = np.convolve(window, np.ones(width) / width, mode="same")
    candidates = np.flatnonzero(smooth <= smooth.min() + 1e-9)
    centers = (first + candidates + 0.5) * opts.frame_s
    return float(min(centers, key=lambda c: abs(c - target)))


# --------------------------------------------------------------------- merging

_NON_WORD = re.compile(r"[^\w']+")


def normalize_word(text: str) -> str:
    """Lower case without punctuation or spaces: the key used to spot doubles."""
    return _NON_WORD.sub("", text.lower())


def merge_transcripts(parts: Sequence[Transcript]) -> Transcript:
    """Join chunk transcripts (each carrying its chunk's ``offset``) into one.

    Rule, per seam between consecutive chunks ``a`` and ``b`` (by offset):

    * where the chunks overlap, the overlap is split at its middle and a word
      (or a segment without words) is kept only by the chunk that owns its
      midpoint, so overlapping audio is never transcribed twice;
    * outside overlaps every word is kept: only that chunk heard that audio;
    * if, after that, ``a``'s last word and ``b``'s first word are the same word
      and their time ranges intersect, ``b``'s copy is dropped;
    * word and segment times are clamped into their chunk's range, which keeps
      the merged timeline monotonic.
    """
    if not parts:
        raise InvalidInput("no transcripts to merge")
    ordered = sorted(parts, key=lambda t: t.offset)
    kept = [_owned_segments(part, _seam(ordered, i - 1), _seam(ordered, i)) for i, part in enumerate(ordered)]
    for i in range(1, len(kept)):
        kept[i] = _drop_seam_double(kept[i - 1], kept[i])
    kept = [_clamp(segments, part) for segments, part in zip(kept, ordered, strict=True)]
    language, probability = _vote_language(ordered)
    start = ordered[0].offset
    return Transcript(
        language=language,
        language_probability=probability,
        duration=max(p.end for p in ordered) - start,
        segments=tuple(s for segments in kept for s in segments),
        offset=start,
        engine=ordered[0].engine,
        options=ordered[0].options,
    )


def _seam(ordered: Sequence[Transcript], i: int) -> float | None:
    """Middle of the overlap between part ``i`` and ``i + 1``; None without overlap."""
    if i < 0 or i + 1 >= len(ordered):
        return None
    a, b = ordered[i], ordered[i + 1]
    return (b.offset + a.end) / 2 if b.offset < a.end else None


def _owned_segments(part: Transcript, low: float | None, high: float | None) -> list[Segment]:
    lo = -math.inf if low is None else low
    hi = math.inf if high is None else high
    kept: list[Segment] = []
    for segment in part.segments:
        if not segment.words:
            if lo <= segment.midpoint < hi:
                kept.append(segment)
            continue
        words = tuple(w for w in segment.words if lo <= w.midpoint < hi)
        if words:
            kept.append(segment if words == segment.words else _with_words(segment, words))
    return kept


def _with_words(segment: Segment, words: tuple[Word, ...]) -> Segment:
    """The segment restricted to ``words``: times and text follow the words."""
    return replace(segment, start=words[0].start, end=words[-1].end, words=words, text="".join(w.text for w in words).strip())


def _drop_seam_double(before: list[Segment], after: list[Segment]) -> list[Segment]:
    if not before or not after or not before[-1].words or not after[0].words:
        return after
    last, first = before[-1].words[-1], after[0].words[0]
    same = normalize_word(last.text) == normalize_word(first.text) != ""
    if not (same and min(last.end, first.end) > max(last.start, first.start)):
        return after
    rest = after[0].words[1:]
    head = [_with_words(after[0], rest)] if rest else []
    return head + after[1:]


def _clamp(segments: list[Segment], part: Transcript) -> list[Segment]:
    lo, hi = part.offset, part.end

    def fit(t: float) -> float:
        return min(max(t, lo), hi)

    return [
        replace(
            s, start=fit(s.start), end=fit(s.end), words=tuple(replace(w, start=fit(w.start), end=fit(w.end)) for w in s.words)
        )
        for s in segments
    ]


def _vote_language(parts: Sequence[Transcript]) -> tuple[str, float]:
    """The language covering the most audio, with its duration-weighted probability."""
    weight: dict[str, float] = {}
    for part in parts:
        weight[part.language] = weight.get(part.language, 0.0) + max(part.duration, 1e-6)
    language = max(weight, key=weight.__getitem__)
    same = [p for p in parts if p.language == language]
    total = sum(max(p.duration, 1e-6) for p in same)
    return language, sum(p.language_probability * max(p.duration, 1e-6) for p in same) / total
