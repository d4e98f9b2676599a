"""Check subtitle files against a timed-text preset: the quality check subtitle buyers run (pipelines/subtitles/qc.py).

Reads SRT and WebVTT (pysubs2) and TTML / IMSC / EBU-TT-D (ttconv; one cue per ``<p>``, so overlapping
paragraphs stay overlapping cues), and prints per file the cues, the share failing a rule, the cues breaking
each rule and the worst cues. ``read_cues`` and ``declared_fps`` are for other benchmarks to reuse.

    .venv/bin/python loadtests/qc_subtitles.py out.es.srt --lang es
    .venv/bin/python loadtests/qc_subtitles.py a.vtt b.ttml --lang ja --preset broadcast --fps 23.976 \\
        --shot-changes cuts.txt --json

The frame rate is ``--fps``, else a TTML file's ``ttp:frameRate``, else 24. A shot-change file holds one cut
a line, in seconds (``12.345``, Subtitle Edit's shot-change files), as ``HH:MM:SS.mmm`` or as non-drop SMPTE
timecode ``HH:MM:SS:FF`` (frame ``(HH*3600 + MM*60 + SS) * round(fps) + FF``, so 30 frames a second at 29.97).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipelines.subtitles.presets import PRESETS, preset_for  # noqa: E402
from pipelines.subtitles.qc import DEFAULT_FPS, QcReport, check_cues, exact_rate  # noqa: E402
from pipelines.subtitles.timecode import vtt_time  # noqa: E402
from pipelines.subtitles.types import Cue  # noqa: E402

TTML_SUFFIXES = frozenset({".ttml", ".xml", ".dfxp", ".imsc", ".ttml2"})
_TTP = "{http://www.w3.org/ns/ttml#parameter}"
_CLOCK = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2})(?:([.,])(\d+)|:(\d+))?$")


def read_cues(path: str | Path) -> list[Cue]:
    """The cues of a subtitle file: TTML by its suffix (``TTML_SUFFIXES``), anything else through pysubs2."""
    path = Path(path)
    if path.suffix.lower() in TTML_SUFFIXES:
        return _ttml_cues(ET.parse(path))
    return _pysubs2_cues(path)


def declared_fps(path: str | Path) -> float | None:
    """The frame rate a TTML file declares (``ttp:frameRate`` × ``ttp:frameRateMultiplier``); None elsewhere."""
    path = Path(path)
    if path.suffix.lower() not in TTML_SUFFIXES:
        return None
    root = ET.parse(path).getroot()
    rate = root.get(f"{_TTP}frameRate")
    if rate is None:
        return None
    numerator, denominator = (root.get(f"{_TTP}frameRateMultiplier") or "1 1").split()
    return float(Fraction(int(rate)) * Fraction(int(numerator), int(denominator)))


def _pysubs2_cues(path: Path) -> list[Cue]:
    import pysubs2

    subs = pysubs2.load(str(path), encoding="utf-8-sig")
    cues: list[Cue] = []
    for event in subs:
        if not event.is_text:
            continue
        text = html.unescape(event.plaintext) if subs.format == "vtt" else event.plaintext
        lines = tuple(line.strip() for line in text.splitlines() if line.strip())
        cues.append(Cue(index=len(cues) + 1, start=event.start / 1000, end=event.end / 1000, lines=lines))
    return cues


def _ttml_cues(tree: ET.ElementTree[Any]) -> list[Cue]:
    from ttconv import model
    from ttconv.imsc.reader import to_model

    doc = to_model(tree)
    body = doc.get_body() if doc is not None else None
    if body is None:
        return []
    cues: list[Cue] = []
    for paragraph, begin, end in _paragraphs(model, body, Fraction(0), None):
        lines = tuple(" ".join(line.split()) for line in "".join(_texts(model, paragraph)).split("\n"))
        lines = tuple(line for line in lines if line)
        # A paragraph left open has no end: it is shown for no time, which the check reports.
        stop = end if end is not None else begin
        cues.append(Cue(index=len(cues) + 1, start=float(begin), end=float(stop), lines=lines))
    return cues


def _paragraphs(model: Any, element: Any, parent_begin: Fraction, parent_end: Fraction | None) -> Iterator[Any]:
    """Each ``p`` under ``element`` with its absolute begin and end (TTML's parallel time containers)."""
    begin = parent_begin + (element.get_begin() or 0)
    end = parent_begin + element.get_end() if element.get_end() is not None else parent_end
    if end is not None and parent_end is not None:
        end = min(end, parent_end)
    if isinstance(element, model.P):
        yield element, begin, end
        return
    for child in element:
        yield from _paragraphs(model, child, begin, end)


def _texts(model: Any, element: Any) -> Iterator[str]:
    if isinstance(element, model.Text):
        yield element.get_text()
    elif isinstance(element, model.Br):
        yield "\n"
    elif not isinstance(element, model.Rt | model.Rtc | model.Rp):  # ruby annotations are not read as text
        for child in element:
            yield from _texts(model, child)


def read_shot_changes(path: str | Path, fps: float) -> list[float]:
    """Cut times in seconds, one a line: seconds, ``HH:MM:SS.mmm`` or non-drop ``HH:MM:SS:FF`` at ``fps``."""
    times = []
    for raw in Path(path).read_text(encoding="utf-8-sig").splitlines():
        line = raw.split("#")[0].strip()
        if line:
            times.append(_seconds(line, fps))
    return times


def _seconds(text: str, fps: float) -> float:
    clock = _CLOCK.match(text)
    if clock is None:
        return float(text)
    hours, minutes, seconds, _, fraction, frames = clock.groups()
    total = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
    if fraction is not None:
        return total + float(f"0.{fraction}")
    if frames is None:
        return float(total)
    # SMPTE non-drop timecode counts whole frames: 30 a labelled second at 29.97 fps.
    return (total * round(fps) + int(frames)) / exact_rate(fps)


def worst(report: QcReport, count: int) -> list[dict[str, object]]:
    """The cues breaking the most rules, the fastest to read first."""
    failing = [cue for cue in report.cues if cue.rules]
    failing.sort(key=lambda cue: (-len(cue.rules), -cue.cps, cue.start))
    return [cue.record() for cue in failing[:count]]


def render(path: str, report: QcReport, examples: list[dict[str, object]]) -> str:
    summary = report.summary()
    preset = report.preset
    out = [
        f"{path}: {summary['cues']} cues, {summary['failing']} failing ({report.share():.1%}); "
        f"preset {preset.name}/{preset.language}, {report.fps:.5g} fps"
    ]
    out += [f"  {rule:<18} {n}" for rule, n in report.counts().items()]
    if examples:
        out.append("  worst:")
    for cue in examples:
        cps = "-" if cue["cps"] is None else cue["cps"]
        text = " / ".join(cue["lines"])  # type: ignore[arg-type]
        times = f"{vtt_time(cue['start'])} --> {vtt_time(cue['end'])}"  # type: ignore[arg-type]
        out.append(f"    #{cue['index']} {times} {cps} cps {', '.join(cue['rules'])}: {text}")  # type: ignore[arg-type]
    return "\n".join(out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--lang", required=True, help="language of the subtitles (its preset limits)")
    parser.add_argument("--preset", choices=PRESETS, default="standard")
    parser.add_argument("--fps", type=float, default=None, help=f"frame rate (default: the file's, else {DEFAULT_FPS:g})")
    parser.add_argument("--shot-changes", type=Path, default=None, help="file of cut times, one a line")
    parser.add_argument("--max-chars", type=int, default=None, help="characters per line instead of the preset's")
    parser.add_argument("--max-duration", type=float, default=None, help="longest time on screen (s) instead of the preset's")
    parser.add_argument("--examples", type=int, default=5, help="worst cues shown per file")
    parser.add_argument("--json", action="store_true", help="one JSON document: the summary and worst cues of each file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    preset = preset_for(args.lang, args.preset, max_chars=args.max_chars, max_duration=args.max_duration)
    results = []
    for name in args.files:
        fps = args.fps or declared_fps(name) or DEFAULT_FPS
        cuts = read_shot_changes(args.shot_changes, fps) if args.shot_changes else ()
        report = check_cues(read_cues(name), preset, fps=fps, shot_changes=cuts)
        examples = worst(report, args.examples)
        if args.json:
            results.append({"file": name, **report.summary(), "worst": examples})
        else:
            print(render(name, report, examples))
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
