"""The service's transcript JSON read back as cues (a client's corrected transcript beside its video)."""

from __future__ import annotations

import json

import pytest

from engines.text.subtitle_files import BadSubtitleFile, read_subtitles

TRANSCRIPT = {
    "task_id": "0f6c",
    "source_lang": "en",
    "target_lang": "es",
    "segments": [
        {
            "id": "s1",
            "start": 0.52,
            "end": 3.1,
            "speaker": "Speaker 1",
            "source": "Good morning,\nmy friend.",
            "translation": "x",
        },
        {"id": "s2", "start": 3.4, "end": 5.0, "speaker": "Speaker 2", "source": "Hello.", "words": []},
        {"id": "s3", "start": 6.0, "end": 7.5, "source": "   "},
    ],
}


def test_segments_become_cues_with_speakers_and_the_rest_is_ignored() -> None:
    read = read_subtitles(json.dumps(TRANSCRIPT, indent=1).encode(), "transcript.json")
    assert read.format == "transcript"
    assert [(c.start, c.end, c.text, c.speaker) for c in read.cues] == [
        (0.52, 3.1, "Good morning,\nmy friend.", "Speaker 1"),
        (3.4, 5.0, "Hello.", "Speaker 2"),
    ]  # the blank segment has no text


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ('{"segments": [{"start": 1, "end": 2, "source": "a"},', "malformed"),
        ('{"cues": []}', "not a transcript"),
        ('{"segments": [{"start": 1, "end": 2, "source": "a"}, {"start": "x", "end": 2, "source": "b"}]}', "segment 2"),
        ('{"segments": [{"start": 1, "end": 2}]}', "no source text"),
        ('{"segments": [{"start": 5, "end": 2, "source": "back"}]}', "ends before it starts"),
        ('{"segments": []}', "no subtitle cue"),
    ],
)
def test_what_is_not_a_transcript_is_refused_in_the_services_words(document: str, says: str) -> None:
    with pytest.raises(BadSubtitleFile, match=says) as caught:
        read_subtitles(document.encode())
    assert "Traceback" not in str(caught.value) and "json." not in str(caught.value)


def test_an_error_names_the_segments_line() -> None:
    document = json.dumps({"segments": [{"start": 1, "end": 2, "source": "a"}, {"start": 9, "end": 3, "source": "b"}]}, indent=2)
    opening = [n for n, line in enumerate(document.splitlines(), 1) if line.strip() == "{"]  # the document's, then each segment's
    with pytest.raises(BadSubtitleFile) as caught:
        read_subtitles(document.encode())
    assert caught.value.line == opening[2]
