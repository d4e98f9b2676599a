"""A task's translated transcript ↔ the stored ``transcript.json`` a revision renders from.

:func:`to_stored` records, for each translated sentence, a segment with a stable id (``s1``, ``s2``, … in
time order), its span, speaker, recognized text, translation, the source cues the translation is laid
over and, for a dubbed task, how its line was fitted. :func:`groups_of` turns segments back into the
cue groups the subtitle writers and dubbing take; segments a revision changed are laid out again there.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.specs.transcript import CueRecord, SegmentRecord, StoredTranscript, WordRecord
from engines.asr.types import Transcript
from pipelines.dubbing.voices import Speaker
from pipelines.subtitles import Cue, SegmentationOptions, renumber
from pipelines.subtitles.layout import speaker_label
from pipelines.subtitles.qc import QcReport
from pipelines.subtitles.translation import cue_text, layout_groups

#: Fields of a dubbing report line that say how the line was fitted (the rest is in the segment already).
DUBBING_FIELDS = ("start", "end", "method", "tempo", "reasked", "natural_s", "truncated_s", "text")


def segment_ids(count: int) -> list[str]:
    return [f"s{i + 1}" for i in range(count)]


def to_stored(
    groups: Sequence[Sequence[Cue]],
    sentences: Sequence[str],
    translations: Sequence[str],
    speakers: Sequence[Speaker],
    dubbing: Mapping[int, dict[str, Any]] | None = None,
    ids: Sequence[str] | None = None,
    *,
    full: Sequence[str | None] | None = None,
    words: Sequence[list[WordRecord]] | None = None,
    qc: QcReport | None = None,
    **fields: Any,
) -> StoredTranscript:
    """The transcript to store; ``dubbing`` maps a segment's position to its dubbing report line, ``full`` gives
    a condensed segment's full translation, ``words`` each segment's recognized words, ``qc`` the final cues' report."""
    ids = list(ids) if ids is not None else segment_ids(len(groups))
    segments = []
    for i, (cues, source, translation) in enumerate(zip(groups, sentences, translations, strict=True)):
        line = (dubbing or {}).get(i)
        segments.append(
            SegmentRecord(
                id=ids[i],
                start=round(cues[0].start, 3),
                end=round(cues[-1].end, 3),
                speaker=cues[0].speaker,
                source=source,
                translation=translation,
                cues=[CueRecord(start=c.start, end=c.end, lines=list(c.lines), speaker=c.speaker, label=c.label) for c in cues],
                dubbing={k: line[k] for k in DUBBING_FIELDS if k in line} if line else None,
                full_translation=full[i] if full else None,
                words=words[i] if words else [],
            )
        )
    report = {"summary": qc.summary(), "cues": qc.cue_records()} if qc is not None else None
    return StoredTranscript(
        speakers=[{**dataclasses.asdict(s), "embedding": list(s.embedding)} for s in speakers],
        segments=segments,
        qc=report,
        **fields,
    )


def words_by_segment(groups: Sequence[Sequence[Cue]], transcript: Transcript) -> list[list[WordRecord]]:
    """Each segment's recognized words: a word belongs to the last segment starting at or before its middle."""
    starts = [cues[0].start if cues else math.inf for cues in groups]
    out: list[list[WordRecord]] = [[] for _ in groups]
    for segment in transcript.segments:
        for word in segment.words:
            k = bisect.bisect_right(starts, (word.start + word.end) / 2) - 1
            if 0 <= k < len(out) and word.text.strip():
                out[k].append(
                    WordRecord(text=word.text.strip(), start=round(word.start, 3), end=round(word.end, 3),
                               probability=round(word.probability, 3) if word.probability is not None else None)
                )  # fmt: skip
    return out


def dubbing_by_segment(groups: Sequence[Sequence[Cue]], report: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """Segment position → its line of the dubbing report (a line starts where its sentence's first cue does)."""
    starts = {round(cues[0].start, 3): i for i, cues in enumerate(groups) if cues}
    lines = report.get("lines") or []
    return {starts[round(line["cue_start"], 3)]: line for line in lines if round(line.get("cue_start", -1), 3) in starts}


def speakers_of(transcript: StoredTranscript) -> list[Speaker]:
    fields = {f.name for f in dataclasses.fields(Speaker)}
    return [
        Speaker(**{**{k: v for k, v in s.items() if k in fields}, "embedding": tuple(s.get("embedding") or ())})
        for s in transcript.speakers
    ]


def groups_of(
    transcript: StoredTranscript, relayout: set[str], options: SegmentationOptions, *, relabel: bool = False
) -> list[tuple[Cue, ...]]:
    """Each segment's source cues; those in ``relayout`` (new source text or times) are laid out again from
    the segment's source over its cues' spans. With ``relabel`` (a speaker changed) speaker labels are set
    again, on the first segment of each speaker turn, and segments whose label changed are laid out again."""
    out: list[tuple[Cue, ...]] = []
    previous: str | None = None
    for segment in transcript.segments:
        cues = [Cue(0, c.start, c.end, tuple(c.lines), speaker=c.speaker, label=c.label) for c in segment.cues]
        label = cues[0].label
        if relabel:
            turn = transcript.speaker_labels and segment.speaker is not None and segment.speaker != previous
            label = speaker_label(segment.speaker, options.max_chars, options.measure) if turn and segment.speaker else ""
            previous = segment.speaker if segment.speaker is not None else previous
        if segment.id in relayout or label != cues[0].label or _text(cues) != segment.source:
            cues[0] = dataclasses.replace(cues[0], label=label)
            cues = renumber(layout_groups([cues], [segment.source], options, timed=False)[0])
            cues = [dataclasses.replace(c, speaker=segment.speaker) for c in cues]
        out.append(tuple(cues))
    return out


def _text(cues: Sequence[Cue]) -> str:
    return " ".join(cue_text(c) for c in cues)
