"""ffmpeg steps of the video pipeline: speech audio out, subtitles burned in.

Every step runs the ffmpeg binary in a subprocess with a deadline and maps its
failures onto the engine error tree: a missing binary is ``EngineUnavailable``
(the worker is misconfigured, another one may serve), a deadline is
``EngineTimeout``, a stop by a signal is ``EngineUnavailable`` too (the worker
is being killed), a non-zero exit is ``EngineFailure`` carrying the last lines
of ffmpeg's stderr (``check_exit``). Outputs are written to a temporary name
next to the target and renamed on success, so a failed or killed run never
leaves a truncated file where a reader expects a finished one.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import wave
from collections.abc import Iterator, Sequence
from pathlib import Path

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable, InvalidInput, UnsupportedMedia

FFMPEG = "ffmpeg"
#: Speech recognition input: 16 kHz mono 16-bit PCM.
SPEECH_RATE = 16_000
#: x264 settings of burned videos: fast enough for CPU workers, visually clean for subtitles.
X264_PRESET = "veryfast"
X264_CRF = 23
AAC_BITRATE = "160k"
#: Installed by fonts-noto-cjk; covers Chinese, Japanese and Korean.
CJK_FALLBACK = "Noto Sans CJK SC"
#: Regional CJK families, so that Han characters take the shapes readers of that language expect.
CJK_BY_LANG: dict[str, str] = {
    "ja": "Noto Sans CJK JP",
    "ko": "Noto Sans CJK KR",
    "zh-tw": "Noto Sans CJK TC",
    "zh-hant": "Noto Sans CJK TC",
    "zh-hk": "Noto Sans CJK HK",
}
_STDERR_LINES = 5
#: ffmpeg's exit status when more frames failed to decode than ``-max_error_rate`` allows (ffmpeg ≥ 5.1).
_DECODE_ERROR_EXIT = 69
#: What ffmpeg says when an input it opened holds broken data (undecodable packets, a nonsense channel
#: layout). A file it cannot open at all stays ``EngineFailure``: the pipeline probed it first.
_DAMAGED_INPUT = (b"Error while decoding stream", b"Rematrix is needed")
#: Characters that the filtergraph parser (ffmpeg's second escaping level) treats specially.
_GRAPH_SPECIAL = frozenset("\\'[],;")


# --------------------------------------------------------------------- running


#: Demuxers that may open an uploaded or fetched video (ffmpeg matches any name of a
#: multi-name demuxer: ``mov`` admits ``mov,mp4,m4a,3gp,3g2,mj2``, ``matroska`` admits WebM).
VIDEO_DEMUXERS = ("mov", "matroska", "avi", "flv", "asf")


def untrusted_input(demuxers: Sequence[str] = VIDEO_DEMUXERS) -> list[str]:
    """ffmpeg/ffprobe input options for customer files: local file protocol only, known demuxers only.

    Without them a playlist or concat file disguised as a video makes ffmpeg
    open URLs (``http://10.0.0.5:6379/``) or other local files on our side.
    """
    return ["-protocol_whitelist", "file", "-format_whitelist", ",".join(demuxers)]


def run_tool(cmd: Sequence[str], *, timeout_s: float, what: str) -> subprocess.CompletedProcess[bytes]:
    """Run an ffmpeg-family binary, leaving the exit status to the caller.

    Raises:
        EngineUnavailable: the binary is not installed.
        EngineTimeout: it did not finish within ``timeout_s`` (it is killed).
    """
    try:
        return subprocess.run(list(cmd), capture_output=True, check=False, timeout=timeout_s)
    except FileNotFoundError as exc:
        raise EngineUnavailable(f"{cmd[0]} is not installed; cannot {what}") from exc
    except subprocess.TimeoutExpired as exc:
        raise EngineTimeout(f"{cmd[0]} did not {what} within {timeout_s:g}s") from exc


def stderr_tail(stderr: bytes, lines: int = _STDERR_LINES) -> str:
    """The last non-empty stderr lines, where ffmpeg states why it failed."""
    text = stderr.decode("utf-8", "replace").strip().splitlines()
    return " | ".join(line.strip() for line in text[-lines:] if line.strip()) or "no error output"


def check_exit(proc: subprocess.CompletedProcess[bytes], cmd: Sequence[str], *, what: str) -> None:
    """Map a finished ffmpeg run's exit status onto the engine errors; return quietly on success.

    Raises:
        EngineUnavailable: it was stopped by a signal (its worker is being killed): retried, not failed.
        EngineFailure: it exited non-zero; the message carries the tail of its stderr.
    """
    if proc.returncode < 0:
        raise EngineUnavailable(f"{cmd[0]} was stopped by signal {-proc.returncode} while trying to {what}")
    if proc.returncode != 0:
        cause = subprocess.CalledProcessError(proc.returncode, list(cmd), stderr=proc.stderr)
        raise EngineFailure(f"{cmd[0]} could not {what} (exit {proc.returncode}): {stderr_tail(proc.stderr)}") from cause


def _ffmpeg(args: Sequence[str], *, timeout_s: float, what: str) -> None:
    cmd = [FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args]
    check_exit(run_tool(cmd, timeout_s=timeout_s, what=what), cmd, what=what)


@contextlib.contextmanager
def _atomic_output(dst: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path next to ``dst``, renamed to ``dst`` when the block succeeds."""
    final = Path(dst).absolute()
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".{final.name}.part")
    try:
        yield tmp
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def _input(src: str | os.PathLike[str]) -> str:
    """An absolute path: never mistaken for an option or a protocol (``a:b.mp4``)."""
    path = Path(src)
    if not path.is_file():
        raise InvalidInput("The media file was not found.") from FileNotFoundError(os.fspath(path))
    return os.fspath(path.absolute())


# --------------------------------------------------------------------- audio


def extract_audio(
    src: str | os.PathLike[str],
    dst_wav: str | os.PathLike[str],
    *,
    start: float | None = None,
    end: float | None = None,
    audio_index: int | None = None,
    timeout_s: float,
) -> Path:
    """Write 16 kHz mono s16 WAV of one audio stream, optionally only ``[start, end)`` seconds.

    ``audio_index`` is the absolute stream index (``MediaInfo.audio.index``);
    by default the first audio stream is used, as the contract requires for
    files with several tracks. Sample ``n`` of the output is media time
    ``start + n / 16000``: samples are placed by their timestamps, with
    silence where the stream starts late or has gaps. Without that, codecs
    with priming delays (Opus, WMA) shift by 8-90 ms between a whole-file and
    a ranged extraction, and so would every timestamp recognised from them.
    Returns the absolute output path.

    Raises:
        UnsupportedMedia: the audio could not be decoded (damaged data: ffmpeg reports
            invalid data or too many decoding errors) or decoded to no samples at all.
        EngineFailure / EngineUnavailable / EngineTimeout: ffmpeg failed otherwise, is missing or too slow.
    """
    _check_range(start, end)
    seek = ["-ss", f"{start:.3f}"] if start else []
    length = ["-t", f"{end - (start or 0.0):.3f}"] if end is not None else []
    stream = f"0:{audio_index}" if audio_index is not None else "0:a:0"
    args = [*seek, *untrusted_input(), "-i", _input(src), *length, "-map", stream, "-vn", "-sn", "-dn", "-map_metadata", "-1"]
    args += ["-af", f"aresample={SPEECH_RATE}:async=1:first_pts=0", "-ac", "1", "-ar", str(SPEECH_RATE)]
    args += ["-c:a", "pcm_s16le", "-f", "wav"]
    with _atomic_output(dst_wav) as tmp:
        cmd = [FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args, os.fspath(tmp)]
        proc = run_tool(cmd, timeout_s=timeout_s, what="extract audio")
        if proc.returncode > 0 and (proc.returncode == _DECODE_ERROR_EXIT or any(m in proc.stderr for m in _DAMAGED_INPUT)):
            cause = subprocess.CalledProcessError(proc.returncode, cmd, stderr=proc.stderr)
            raise UnsupportedMedia("The audio track could not be decoded; the file is damaged or incomplete.") from cause
        check_exit(proc, cmd, what="extract audio")
        if _wav_frames(tmp) == 0:
            raise UnsupportedMedia("The audio track holds no decodable audio; the file is damaged or incomplete.")
    return Path(dst_wav).absolute()


def _wav_frames(path: Path) -> int:
    """Samples in a WAV file ffmpeg wrote; 0 when it holds none (or no readable header)."""
    try:
        with wave.open(os.fspath(path), "rb") as wav:
            return wav.getnframes()
    except (wave.Error, EOFError):
        return 0


def _check_range(start: float | None, end: float | None) -> None:
    if start is not None and start < 0:
        raise InvalidInput(f"start must be >= 0, got {start}")
    if end is not None and end <= (start or 0.0):
        raise InvalidInput(f"end ({end}) must be after start ({start or 0.0})")


# --------------------------------------------------------------------- subtitles


def quote_filter_value(value: str) -> str:
    """Quote one filter option value (ffmpeg's first escaping level).

    Inside single quotes ``:`` and spaces are plain characters; a quote is
    written as close-quote, escaped quote, reopen: ``'a'\\''b'``.
    """
    return "'" + value.replace("'", "'\\''") + "'"


def escape_filtergraph(text: str) -> str:
    """Escape a filter's argument string for the filtergraph parser (second level).

    Every character the graph parser treats specially (``\\ ' [ ] , ;``) gets
    a backslash, so the filter receives ``text`` unchanged.
    """
    return "".join("\\" + c if c in _GRAPH_SPECIAL else c for c in text)


def subtitles_filter(ass_path: str | os.PathLike[str], fonts_dir: str | os.PathLike[str] | None = None) -> str:
    """The ``subtitles`` (libass) filter for one ASS file, safe for any path."""
    options = [f"filename={quote_filter_value(os.fspath(Path(ass_path).absolute()))}"]
    if fonts_dir is not None:
        options.append(f"fontsdir={quote_filter_value(os.fspath(Path(fonts_dir).absolute()))}")
    return "subtitles=" + escape_filtergraph(":".join(options))


def burn_subtitles(
    src: str | os.PathLike[str],
    ass_path: str | os.PathLike[str],
    dst_mp4: str | os.PathLike[str],
    *,
    fonts_dir: str | os.PathLike[str] | None = None,
    timeout_s: float,
    threads: int | None = None,
    duration: float | None = None,
) -> Path:
    """Render ``ass_path`` onto the first video stream; write H.264 + AAC MP4.

    Frames keep their timestamps (``-fps_mode passthrough``: none dropped or
    duplicated, variable frame rate preserved); odd sizes are scaled to even
    ones, which yuv420p needs. The first audio stream, when there is one, is
    re-encoded to AAC. ``fonts_dir`` adds fonts to fontconfig's; libass falls
    back per glyph, so CJK text renders even when the style's font lacks it.
    With ``duration``, the output stops there: the duration the source's container states, which is what the
    task was charged for (a stream longer than its container says is not rendered past it).
    Returns the absolute output path.
    """
    if not Path(ass_path).is_file():
        raise EngineFailure(f"subtitle file not found: {os.fspath(ass_path)}")
    vf = f"scale=trunc(iw/2)*2:trunc(ih/2)*2,{subtitles_filter(ass_path, fonts_dir)},format=yuv420p"
    args = [*untrusted_input(), "-i", _input(src), "-map", "0:V:0", "-map", "0:a:0?", "-vf", vf, "-fps_mode", "passthrough"]
    args += ["-c:v", "libx264", "-preset", X264_PRESET, "-crf", str(X264_CRF), "-pix_fmt", "yuv420p"]
    args += ["-c:a", "aac", "-b:a", AAC_BITRATE, "-movflags", "+faststart", "-max_muxing_queue_size", "4096"]
    if threads is not None:
        args += ["-threads", str(threads), "-filter_threads", str(threads)]
    with _atomic_output(dst_mp4) as tmp:
        length = ["-t", f"{duration:.3f}"] if duration else []
        _ffmpeg([*args, *length, "-f", "mp4", os.fspath(tmp)], timeout_s=timeout_s, what="burn subtitles")
    return Path(dst_mp4).absolute()


# --------------------------------------------------------------------- fonts


def resolve_font(family: str, *, lang: str | None = None, fonts_dir: str | os.PathLike[str] | None = None) -> str:
    """``family`` when it is installed (or in ``fonts_dir``), else a CJK-capable Noto family.

    Styles name fonts of other platforms (the default "PingFang SC" is
    Apple's); without them fontconfig would substitute a Latin font. The
    fallback covers Chinese, Japanese and Korean; ``lang`` picks its regional
    variant (``ja``/``ja-JP`` → JP, ``ko`` → KR, ``zh-TW`` → TC), Simplified Chinese
    otherwise. Lookups never fail: without fontconfig the fallback is returned.
    """
    wanted = family.strip().casefold()
    dirs = (os.fspath(Path(fonts_dir).absolute()),) if fonts_dir is not None else ()
    if wanted and wanted in _families(dirs):
        return family.strip()
    tag = (lang or "").casefold().replace("_", "-")
    return CJK_BY_LANG.get(tag) or CJK_BY_LANG.get(tag.split("-")[0], CJK_FALLBACK)


@functools.lru_cache(maxsize=8)
def _families(extra_dirs: tuple[str, ...]) -> frozenset[str]:
    """Case-folded family names fontconfig knows, plus those in ``extra_dirs``.

    Cached per process: installed fonts do not change while a worker runs.
    """
    commands = [["fc-list", "--format", "%{family}\n"]] + [["fc-scan", "--format", "%{family}\n", d] for d in extra_dirs]
    names: set[str] = set()
    for cmd in commands:
        names.update(_family_lines(cmd))
    return frozenset(names)


def _family_lines(cmd: list[str]) -> set[str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    return {name.strip().casefold() for line in lines for name in line.split(",") if name.strip()}
