"""The dubbed audio track, built from files a block at a time (steps 4 and 5 of ``dubber``).

The original audio is extracted whole to a WAV file; when background is
kept, the processed range is separated into speech and background WAV files
(``separation.separate_track``). Spoken lines are kept in the work folder
(``LineFiles``), sped up and cut to their slots as clips (``place``), laid on
the dub track, brought to the loudness of the original speech and mixed over
the background into the original (``build``). No step holds a whole track:
a 3-hour dub needs the memory of a 5-minute one, and about 4 GB of scratch
disk per hour of video (docs/dubbing-audio.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import numpy as np

from engines.dubbing import fitting, loudness, mux
from engines.dubbing.mixdown import PlacedLine
from engines.dubbing.tempo import change_tempo
from engines.dubbing.timeline import Clip, lay_clips, mix_into, save_clip
from engines.dubbing.wav_track import WavTrack

TRACK_RATE = 48_000
FADE_S = 0.05

Report = Callable[[float], None]
#: (the processed range of the original, speech destination, background destination, report) → the two stems.
Separate = Callable[[WavTrack, Path, Path, Report], Awaitable[tuple[WavTrack, WavTrack]]]


@dataclasses.dataclass(frozen=True)
class OriginalAudio:
    """The source's audio: the whole track, the processed range's speech (the loudness reference and the
    own-voice samples) and its background (None when ``dubbing_bg_music`` is 0)."""

    full: WavTrack
    speech: WavTrack
    background: WavTrack | None


async def original_audio(
    media: Path, workdir: Path, start: float, end: float, bg_music: float, separate: Separate, timeout_s: float
) -> OriginalAudio:
    """Extract the original track and, when the background is kept, separate the range ``[start, end)``."""
    path = await asyncio.to_thread(mux.extract_full_audio, media, workdir / "original.wav", rate=TRACK_RATE, timeout_s=timeout_s)
    full = WavTrack(path)
    span = full.view(int(start * TRACK_RATE), min(int(end * TRACK_RATE), len(full)))
    if bg_music > 0 and len(span):
        speech, background = await separate(span, workdir / "speech.wav", workdir / "background.wav", lambda _f: None)
        return OriginalAudio(full, speech, background)
    return OriginalAudio(full, span, None)


class LineFiles:
    """Spoken lines kept in a folder as ``.npy`` (mono float32 at the track rate), by line index."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._count = 0

    def keep(self, audio: np.ndarray) -> tuple[Path, int]:
        """Write ``audio`` to a new file; returns it and the number of samples."""
        self._count += 1
        path = self.folder / f"spoken-{self._count}.npy"
        np.save(path, np.asarray(audio, np.float32), allow_pickle=False)
        return path, len(audio)


def place(
    spoken: Sequence[tuple[Path, int]], fits: Sequence[fitting.Fit], offset: float, folder: Path, timeout_s: float
) -> list[Clip]:
    """Each spoken line sped up and cut to its fit, relative to ``offset``, as a clip in ``folder``."""
    clips = []
    for k, ((path, _length), fit) in enumerate(zip(spoken, fits)):
        audio = np.load(path)
        path.unlink(missing_ok=True)  # the clip replaces it
        audio = change_tempo(audio, TRACK_RATE, fit.tempo, timeout_s=timeout_s) if fit.tempo != 1.0 else audio
        audio = audio[: max(0, round((fit.end - fit.start) * TRACK_RATE))]
        line = PlacedLine(fit.start - offset, audio, fade_out_s=FADE_S if fit.truncated_s > 0 else 0.0)
        clips.append(save_clip(line, TRACK_RATE, folder / f"placed-{k}.npy"))
    return clips


def build(
    clips: Sequence[Clip], original: OriginalAudio, start: float, end: float, bg_music: float, workdir: Path, timeout_s: float
) -> tuple[Path, dict[str, float | None]]:
    """The final WAV (the original with ``[start, end)`` dubbed) and the loudness levels of the report."""
    dub = lay_clips(clips, TRACK_RATE, max(0, round((end - start) * TRACK_RATE)), workdir / "dub-speech.wav")
    target = loudness.measure_track(original.speech, timeout_s=timeout_s)
    levels: dict[str, float | None] = {"reference_lufs": finite(target.integrated_lufs)}
    if levels["reference_lufs"] is not None and clips:
        dub = loudness.normalise_track(dub, workdir / "dub-level.wav", target.integrated_lufs, timeout_s=timeout_s)
        levels["dub_lufs"] = finite(loudness.measure_track(dub, timeout_s=timeout_s).integrated_lufs)
    upto = end if end < len(original.full) / TRACK_RATE - 1e-3 else None
    out = mix_into(original.full, dub, original.background, bg_music, start, upto, workdir / "dub.wav")
    return out.path, levels


def finite(value: float) -> float | None:
    return round(float(value), 2) if np.isfinite(value) and value > -70 else None
