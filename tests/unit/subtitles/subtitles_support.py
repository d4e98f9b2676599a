"""Word-stream builders and invariant checks shared by the subtitle tests."""

from __future__ import annotations

import itertools
import string
from collections.abc import Sequence

from hypothesis import strategies as st

from pipelines.subtitles.options import SegmentationOptions
from pipelines.subtitles.text import display_length
from pipelines.subtitles.timing import target_duration
from pipelines.subtitles.types import Cue, Word

EPS = 1e-6

THAI = ["สวัสดี", "ครับ", "วันนี้", "อากาศ", "ดีมาก", "เรา", "ไปเที่ยว", "กันเถอะ"]
CJK = "今天天气很好我们去公园散步吧日本語のテキストです"

latin_words = st.text(alphabet=string.ascii_letters + "'", min_size=1, max_size=12)
long_words = st.text(alphabet=string.ascii_lowercase, min_size=20, max_size=120)
cjk_words = st.text(alphabet=CJK, min_size=1, max_size=4)
thai_words = st.sampled_from(THAI)
punctuation = st.sampled_from(["", "", "", "", ",", ".", "?", "!", "。", "，", "、"])
gaps = st.one_of(st.just(0.0), st.just(0.0), st.floats(0.0, 0.3), st.floats(0.3, 2.5))


@st.composite
def word_streams(draw: st.DrawFn, max_words: int = 60) -> list[Word]:
    """Plausible ASR output: increasing times, mixed scripts, optional speakers."""
    whisper_spacing = draw(st.booleans())
    diarised = draw(st.booleans())
    kinds = st.one_of(latin_words, latin_words, cjk_words, thai_words, long_words)
    words: list[Word] = []
    t = draw(st.floats(0.0, 5.0))
    for _ in range(draw(st.integers(1, max_words))):
        text = draw(kinds) + draw(punctuation)
        duration = draw(st.one_of(st.just(0.0), st.floats(0.01, 1.2)))
        speaker = draw(st.sampled_from(["A", "B", None])) if diarised else None
        if whisper_spacing and text[0] in string.ascii_letters:
            text = " " + text
        words.append(Word(t, t + duration, text, speaker=speaker))
        t += duration + draw(gaps)
    return words


layout_options = st.builds(
    SegmentationOptions,
    max_chars=st.integers(10, 80),
    max_lines=st.sampled_from([1, 2, 2]),
    max_duration=st.floats(2.0, 10.0),
    min_duration=st.sampled_from([0.0, 0.7, 1.0]),
    max_cps=st.sampled_from([15.0, 17.0, 21.0]),
    speaker_labels=st.booleans(),
)


def squash(text: str) -> str:
    """Text without any whitespace: what must survive layout unchanged."""
    return "".join(text.split())


def body(cue: Cue) -> str:
    """The cue's characters without its speaker label."""
    text = squash("".join(cue.lines))
    return text[len(squash(cue.label)) :] if cue.label else text


def assert_layout(cues: Sequence[Cue], options: SegmentationOptions) -> None:
    """Hard rules every list of cues must obey."""
    for cue in cues:
        assert 1 <= len(cue.lines) <= options.max_lines, cue
        for line in cue.lines:
            assert line and line == line.strip(), cue
            assert display_length(line) <= options.max_chars, (line, options.max_chars)
        assert cue.start >= 0.0
        assert cue.start <= cue.end, cue
        assert cue.end - cue.start <= options.max_duration + EPS, cue
    for a, b in itertools.pairwise(cues):
        assert a.end <= b.start, (a, b)
    assert [c.index for c in cues] == list(range(1, len(cues) + 1))


def assert_readable(cues: Sequence[Cue], options: SegmentationOptions, lower: float = 0.0) -> None:
    """Each cue lasts its target duration unless both neighbours leave no room."""
    for k, cue in enumerate(cues):
        chars = sum(display_length(line) for line in cue.lines)
        goal = target_duration(chars, options)
        if cue.end - cue.start >= goal - EPS:
            continue
        following = cues[k + 1].start if k + 1 < len(cues) else float("inf")
        previous = cues[k - 1].end if k else lower
        assert cue.end >= following - EPS, (cue, goal, "could have grown forward")
        assert cue.start <= max(previous, lower) + EPS, (cue, goal, "could have grown backward")
