"""A stored transcript back into the cue groups the writers and dubbing take (pipelines/transcript_store.py)."""

from __future__ import annotations

from pipelines.dubbing.voices import Speaker
from pipelines.subtitles import Cue, SegmentationOptions, render
from pipelines.subtitles.translation import cue_text, group_sentences, translate_sentences
from pipelines.transcript_store import dubbing_by_segment, groups_of, speakers_of, to_stored

OPTIONS = SegmentationOptions(max_chars=42, speaker_labels=True)


def _cues() -> list[Cue]:
    speakers = ["Speaker 1", "Speaker 1", "Speaker 2", "Speaker 1"]
    texts = ["Good morning everyone.", "We start at nine.", "Where is the key?", "On the table, next to the lamp."]
    out, previous = [], None
    for i, (speaker, text) in enumerate(zip(speakers, texts)):
        label = f"[{speaker}]" if speaker != previous else ""
        previous = speaker
        lines = (f"{label} {text}".strip(),)
        out.append(Cue(i + 1, 2.0 * i, 2.0 * i + 1.5, lines, speaker=speaker, label=label))
    return out


def _stored():
    groups = group_sentences(_cues())
    sentences = [" ".join(cue_text(c) for c in g) for g in groups]
    translations = [f"T{i}" for i in range(len(groups))]
    speakers = [Speaker("Speaker 1", 5.0, "female", 0.9, (0.1, 0.2)), Speaker("Speaker 2", 1.5, "male", 0.8, (0.3, 0.4))]
    stored = to_stored(
        groups, sentences, translations, speakers, root_task_id="r" * 32, source_lang="en", target_lang="es",
        duration=8.0, span=(0.0, 8.0), speaker_labels=True,
    )  # fmt: skip
    return groups, stored


def test_an_unedited_transcript_gives_back_the_groups_it_was_stored_from() -> None:
    groups, stored = _stored()
    assert [s.id for s in stored.segments] == ["s1", "s2", "s3", "s4"]
    again = groups_of(stored, set(), OPTIONS)
    assert [[(c.start, c.end, c.lines, c.speaker, c.label) for c in g] for g in again] == [
        [(c.start, c.end, c.lines, c.speaker, c.label) for c in g] for g in groups
    ]
    assert [s.name for s in speakers_of(stored)] == ["Speaker 1", "Speaker 2"]
    assert speakers_of(stored)[1].embedding == (0.3, 0.4)


def test_a_new_source_is_laid_over_the_segments_own_cue_spans() -> None:
    _, stored = _stored()
    segments = list(stored.segments)
    segments[1] = segments[1].model_copy(update={"source": "We begin at half past nine sharp."})
    edited = stored.model_copy(update={"segments": segments})
    groups = groups_of(edited, {"s2"}, OPTIONS)
    assert " ".join(cue_text(c) for c in groups[1]) == "We begin at half past nine sharp."
    assert groups[1][0].start >= 2.0 and groups[1][-1].end <= 3.5
    assert groups[0] == groups_of(stored, set(), OPTIONS)[0]  # the others untouched


def test_a_speaker_edit_moves_the_labels_to_the_new_turns() -> None:
    _, stored = _stored()
    segments = list(stored.segments)
    segments[2] = segments[2].model_copy(update={"speaker": "Speaker 1"})  # Speaker 2's only line, now Speaker 1's
    edited = stored.model_copy(update={"segments": segments})
    groups = groups_of(edited, set(), OPTIONS, relabel=True)
    assert [g[0].label for g in groups] == ["[Speaker 1]", "", "", ""]
    srt = render(translate_sentences(groups, ["A.", "B.", "C.", "D."], OPTIONS), "srt")
    assert "[Speaker 2]" not in srt and srt.count("[Speaker 1]") == 1


def test_dubbing_report_lines_find_their_segments_by_start() -> None:
    groups, _ = _stored()
    report = {"lines": [{"index": 0, "cue_start": 0.0, "tempo": 1.1}, {"index": 1, "cue_start": 4.0, "tempo": 1.0}]}
    assert {k: v["tempo"] for k, v in dubbing_by_segment(groups, report).items()} == {0: 1.1, 2: 1.0}
