"""The service's own transcript JSON (``GET /v1/video/task/{id}/transcript``) read back as cues.

A client may send a transcript the service returned (corrected or not) where a subtitle file is taken:
each segment becomes a cue with its ``start``, ``end``, ``source`` text and ``speaker``. Only those keys
are read; the rest (translations, words, quality report) is ignored. Errors name the line of the
segment in the JSON text, as the subtitle readers name theirs.
"""

from __future__ import annotations

import json
import math
from typing import Any

from engines.text.subtitle_cues import BadSubtitleFile, InputCue, tidy_lines, timed_cue

_SHAPE = 'a transcript is a JSON object whose "segments" each have "start", "end" (seconds) and "source" (text)'


def read_transcript_json(text: str) -> list[InputCue]:
    """The segments of a transcript JSON document as cues; :class:`BadSubtitleFile` when it is not one."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadSubtitleFile(error.lineno, "the JSON is malformed.") from None
    segments = document.get("segments") if isinstance(document, dict) else None
    if not isinstance(segments, list):
        raise BadSubtitleFile(None, f"the JSON is not a transcript: {_SHAPE}.")
    lines = _segment_lines(text, len(segments))
    cues = []
    for n, segment in enumerate(segments):
        cue = _cue(segment, lines[n], n + 1)
        if cue is not None:
            cues.append(cue)
    return cues


def _cue(segment: Any, line: int, number: int) -> InputCue | None:
    if not isinstance(segment, dict):
        raise BadSubtitleFile(line, f"segment {number} is not an object: {_SHAPE}.")
    start, end, source = segment.get("start"), segment.get("end"), segment.get("source")
    times = [float(t) for t in (start, end) if isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t)]
    if len(times) != 2:
        raise BadSubtitleFile(line, f"segment {number} has no start and end in seconds.")
    if not isinstance(source, str):
        raise BadSubtitleFile(line, f"segment {number} has no source text.")
    speaker = segment.get("speaker")
    speaker = " ".join(speaker.split()) or None if isinstance(speaker, str) else None
    return timed_cue(times[0], times[1], tidy_lines(source), speaker, line, f"start {start}, end {end}")


def _segment_lines(text: str, count: int) -> list[int]:
    """The line each segment's object opens on (best effort: the n-th ``{`` after ``"segments"``; 1 when unknown)."""
    at = text.find('"segments"')
    lines: list[int] = []
    depth = 0
    for position in range(max(at, 0), len(text)):
        char = text[position]
        if char == "[" and depth == 0:
            depth = 1
        elif char == "{" and depth == 1:
            lines.append(text.count("\n", 0, position) + 1)
            depth = 2
        elif char == "{" and depth >= 2:
            depth += 1
        elif char == "}" and depth >= 2:
            depth -= 1
        if len(lines) >= count:
            break
    return lines + [1] * (count - len(lines))
