"""Subtitles: ASR words to cues, translated re-layout, SRT/VTT/ASS/TTML output.

Pure Python with no heavy imports, so it runs anywhere in the pipeline.
Typical flow::

    cues = segment_segments(transcript.segments, SegmentationOptions(max_chars=32))
    texts = translate([cue_text(c) for c in cues])          # any translator
    cues = translate_cues(cues, texts, options, bilingual=True)
    srt = render(cues, "srt")

See ``docs/subtitles.md`` for the rules and defaults.
"""

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.profanity import ProfanityFilter, censor_cues, supported_languages
from pipelines.subtitles.segment import (
    cue_text,
    fit_text,
    group_sentences,
    renumber,
    segment_segments,
    segment_words,
    translate_cues,
    translate_sentences,
)
from pipelines.subtitles.style import SubtitleStyle, hex_to_ass, parse_hex_color
from pipelines.subtitles.timed_text import to_ebu_tt_d, to_ttml
from pipelines.subtitles.types import Cue, Segment, Word
from pipelines.subtitles.wrap import wrap_text
from pipelines.subtitles.writers import FORMATS, render, to_ass, to_srt, to_vtt

__all__ = [
    "FORMATS",
    "Cue",
    "ProfanityFilter",
    "Segment",
    "SegmentationOptions",
    "SubtitleStyle",
    "Word",
    "censor_cues",
    "cue_text",
    "fit_text",
    "group_sentences",
    "hex_to_ass",
    "parse_hex_color",
    "render",
    "renumber",
    "segment_segments",
    "segment_words",
    "supported_languages",
    "to_ass",
    "to_ebu_tt_d",
    "to_srt",
    "to_ttml",
    "to_vtt",
    "translate_cues",
    "translate_sentences",
    "wrap_text",
]
