"""Whisper tiny.en and base (int8, CPU) on espeak-ng speech."""

from __future__ import annotations

import re

import pytest

from deployments.engines.asr.audio import (
    frame_energy_db,
    load_audio,
    merge_transcripts,
    normalize_word,
    split_at_silences,
)
from deployments.engines.asr.whisper import API_LANGUAGES

pytestmark = pytest.mark.models

SHORT = (
    "Good morning everyone. Please open your books at the second chapter. "
    "Today we will read a story about a brave little mouse who lived in a big old house."
)

LONG = (
    "Once upon a time, a small village stood beside a quiet river. "
    "Every morning the baker opened his shop and sold warm bread to the farmers. "
    "The children walked to school across an old wooden bridge. "
    "In the afternoon, the fishermen returned with baskets full of silver fish. "
    "One winter, heavy snow covered the mountains and the river froze. "
    "The villagers gathered in the town hall to plan how to survive the cold months. "
    "They shared their food, repaired the roofs, and cut wood for every family. "
    "When spring finally arrived, the ice melted and the fields turned green again. "
    "The mayor thanked everyone for their courage and their kindness. "
    "Since that year, the village celebrates the first day of spring with music and dancing."
)

SPANISH = "Hola, me llamo Carlos y vivo en Madrid. Me gusta mucho leer libros por la tarde."
GERMAN = "Guten Morgen, ich heiße Anna und wohne in Berlin. Heute ist das Wetter sehr schön."


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def overlap(expected: str, heard: str) -> float:
    """Share of the expected distinct words that were heard."""
    want = set(words_of(expected))
    return len(want & set(words_of(heard))) / len(want)


def assert_well_timed(transcript, duration: float, offset: float = 0.0) -> None:
    words = transcript.words
    assert words, "no words recognised"
    starts = [w.start for w in words]
    assert starts == sorted(starts)
    for w in words:
        assert offset - 1e-3 <= w.start <= w.end <= offset + duration + 1e-3
        assert 0.0 <= w.probability <= 1.0


@pytest.mark.parametrize("engine_name", ["tiny_en", "base"])
def test_english_speech_is_recognised(engine_name, request, speak):
    engine = request.getfixturevalue(engine_name)
    path = speak(SHORT)
    result = engine.transcribe(path, language="en")
    assert overlap(SHORT, result.text) >= 0.7, result.text
    assert result.language == "en"
    assert_well_timed(result, result.duration)
    assert result.options.compute_type == "int8" and result.options.beam_size == 5


def test_language_sets(tiny_en, base):
    assert tiny_en.languages() == frozenset({"en"})
    assert base.languages() == API_LANGUAGES


def test_offset_shifts_every_timestamp(tiny_en, speak):
    audio = load_audio(speak(SHORT))
    plain = tiny_en.transcribe(audio, language="en")
    shifted = tiny_en.transcribe(audio, language="en", offset=100.0)
    assert [w.text for w in shifted.words] == [w.text for w in plain.words]
    assert [w.start for w in shifted.words] == pytest.approx([w.start + 100 for w in plain.words])
    assert_well_timed(shifted, shifted.duration, offset=100.0)


def test_base_detects_spanish_and_transcribes_it(base, speak):
    result = base.transcribe(speak(SPANISH, "es"))  # no language: detected first
    assert result.language == "es"
    assert result.language_probability > 0.5
    assert overlap(SPANISH, result.text) >= 0.5, result.text


def test_base_detects_german(base, speak):
    code, probability = base.detect_language(speak(GERMAN, "de"))
    assert code == "de"
    assert probability > 0.3


def test_chunked_transcription_matches_whole_file(tiny_en, speak):
    audio = load_audio(speak(LONG))
    duration = audio.size / 16_000
    assert 30 < duration < 60
    chunks = split_at_silences(audio, target_chunk_s=12, max_chunk_s=16)
    assert len(chunks) >= 3
    energy = frame_energy_db(audio)
    for chunk in chunks[1:]:  # every cut lies in a pause
        frame = int(chunk.start / 0.02)
        assert energy[frame - 2 : frame + 2].max() < energy.max() - 30

    whole = tiny_en.transcribe(audio, language="en")
    parts = [tiny_en.transcribe(c.slice(audio), language="en", offset=c.start) for c in chunks]
    merged = merge_transcripts(parts)

    assert overlap(LONG, whole.text) >= 0.8, whole.text
    assert overlap(whole.text, merged.text) >= 0.9, merged.text
    assert overlap(merged.text, whole.text) >= 0.9, whole.text
    assert abs(len(merged.words) - len(whole.words)) <= 4
    assert_well_timed(merged, duration)
    for chunk in chunks[1:]:  # the words either side of each cut are not one word twice
        before = [w for w in merged.words if w.end <= chunk.start][-1]
        after = next(w for w in merged.words if w.start >= chunk.start)
        assert normalize_word(before.text) != normalize_word(after.text)
    assert sum(len(p.words) for p in parts) == len(merged.words)  # nothing dropped between chunks
