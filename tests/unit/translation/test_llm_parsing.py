"""Pure parts of the LLM engine: answer parsing, prompts, pairs, backoff.

No server and no network: these pin the rules that decide whether a model
answer is accepted, because a wrong count silently misaligns subtitles.
"""

from __future__ import annotations

import json

import httpx
import pytest

from engines.translation.base import TranslationHints
from engines.translation.languages import DEFAULT_LANGUAGES, language_pairs
from engines.translation.llm.answers import OutputMismatch, parse_translations
from engines.translation.llm.batches import Segment, chunks
from engines.translation.llm.client import backoff_delay, normalize_base_url, retry_after_s
from engines.translation.llm.prompts import (
    SYSTEM_BATCH,
    SYSTEM_SINGLE,
    batch_messages,
    response_schema,
    review_messages,
    single_messages,
)

# -- JSON answers -------------------------------------------------------------


def test_plain_json_object() -> None:
    assert parse_translations('{"translations": ["Hola", "Mundo"]}', 2) == ["Hola", "Mundo"]


def test_fenced_json_with_chatter_around() -> None:
    answer = 'Sure! Here you go:\n```json\n{"translations": ["a", "b", "c"]}\n```\nEnjoy.'
    assert parse_translations(answer, 3) == ["a", "b", "c"]


def test_unlabelled_fence() -> None:
    assert parse_translations('```\n{"translations": ["x"]}\n```', 1) == ["x"]


def test_leading_text_without_fence() -> None:
    answer = 'The translations are {"translations": ["uno", "dos"]} as requested.'
    assert parse_translations(answer, 2) == ["uno", "dos"]


def test_bare_json_list() -> None:
    assert parse_translations('["eins", "zwei"]', 2) == ["eins", "zwei"]


def test_bare_list_of_numbers_is_not_an_answer() -> None:
    with pytest.raises(OutputMismatch, match="no JSON list"):
        parse_translations("[4]", 1)


def test_single_renamed_key_is_tolerated() -> None:
    assert parse_translations('{"result": ["eins", "zwei"]}', 2) == ["eins", "zwei"]


def test_object_with_several_lists_and_no_translations_key_is_rejected() -> None:
    with pytest.raises(OutputMismatch):
        parse_translations('{"a": ["x"], "b": ["y"]}', 1)


def test_order_and_embedded_newlines_are_kept() -> None:
    answer = json.dumps({"translations": ["first\nline two", "second", "third"]})
    assert parse_translations(answer, 3) == ["first\nline two", "second", "third"]


def test_numbers_become_strings_but_booleans_and_nulls_do_not_count() -> None:
    assert parse_translations('{"translations": [42, "x"]}', 2) == ["42", "x"]
    with pytest.raises(OutputMismatch):
        parse_translations('{"translations": [true, "x"]}', 2)
    with pytest.raises(OutputMismatch):
        parse_translations('{"translations": [null, "x"]}', 2)


def test_first_matching_json_wins_over_later_ones() -> None:
    answer = '{"translations": ["a"]} and also {"translations": ["b", "c"]}'
    assert parse_translations(answer, 1) == ["a"]


@pytest.mark.parametrize("expected", [1, 3])
def test_wrong_json_count_raises(expected: int) -> None:
    with pytest.raises(OutputMismatch, match=f"expected {expected} translations, got 2"):
        parse_translations('{"translations": ["a", "b"]}', expected)


def test_empty_list_is_a_mismatch_not_a_success() -> None:
    with pytest.raises(OutputMismatch):
        parse_translations('{"translations": []}', 1)


# -- numbered lines -------------------------------------------------------------


def test_numbered_lines_in_several_styles() -> None:
    assert parse_translations("1. uno\n2) dos\n3: tres\n[4] cuatro", 4) == [
        "uno",
        "dos",
        "tres",
        "cuatro",
    ]


def test_numbered_lines_after_a_preamble() -> None:
    assert parse_translations("Translations:\n1. Bonjour\n2. Monde", 2) == ["Bonjour", "Monde"]


def test_numbered_continuation_lines_join_the_previous_item() -> None:
    assert parse_translations("1. line one\nline two\n2. other", 2) == [
        "line one\nline two",
        "other",
    ]


def test_numbered_json_quoted_items_are_unquoted() -> None:
    assert parse_translations('1. "Hola\\nmundo"\n2. "Adiós"', 2) == ["Hola\nmundo", "Adiós"]


def test_numbered_lines_out_of_order_are_rejected() -> None:
    with pytest.raises(OutputMismatch):
        parse_translations("1. a\n3. c\n2. b", 3)


def test_numbered_lines_wrong_count_is_rejected() -> None:
    with pytest.raises(OutputMismatch, match="expected 3 translations, got 2"):
        parse_translations("1. a\n2. b", 3)


def test_text_without_structure_is_rejected() -> None:
    with pytest.raises(OutputMismatch, match="no JSON list"):
        parse_translations("I cannot help with that.", 1)


# -- prompts -------------------------------------------------------------------


def test_batch_prompt_numbers_segments_marks_context_and_ends_with_the_pair() -> None:
    messages = batch_messages(["Hello", "two\nlines"], "en", "de", TranslationHints(), ["Earlier line"], ["Later"])
    lines = messages[1]["content"].splitlines()
    assert lines[:2] == ["Context before (do not translate):", '- "Earlier line"']
    assert lines[3:6] == ["Segments (2):", "1. Hello", '2. "two\\nlines"']
    assert "Context after (do not translate):" in lines and '- "Later"' in lines
    assert lines[-1] == "Translate the 2 segments from English into German."


def test_segments_are_quoted_only_when_their_edges_or_line_breaks_need_it() -> None:
    from engines.translation.llm.prompts import segment_line

    assert segment_line("Press any key.") == "Press any key."
    assert segment_line(" padded") == '" padded"'
    assert segment_line('"Quoted," she said.') == '"\\"Quoted,\\" she said."'
    assert segment_line("a\nb") == '"a\\nb"'


def test_batch_prompt_without_context_has_no_context_block() -> None:
    assert "Context" not in batch_messages(["Hello", "Bye"], "en", "fr", TranslationHints())[1]["content"]


def test_system_prompts_are_the_same_for_every_pair_so_servers_can_cache_them() -> None:
    first = batch_messages(["a", "b"], "en", "de", TranslationHints(tone="epic"))
    second = batch_messages(["c"], "fr", "ja", TranslationHints())
    assert first[0] == second[0] and first[0]["content"] == SYSTEM_BATCH
    assert single_messages("a", "en", "de", TranslationHints())[0]["content"] == SYSTEM_SINGLE


def test_texts_to_several_targets_share_everything_but_the_last_line() -> None:
    hints = TranslationHints(content_type="ui", genre="rpg")
    german = single_messages("Press any key.", "en", "de", hints)[1]["content"].splitlines()
    french = single_messages("Press any key.", "en", "fr", hints)[1]["content"].splitlines()
    assert german[:-1] == french[:-1] and german[-1] != french[-1]


def test_hints_become_notes_in_the_user_turn() -> None:
    hints = TranslationHints(
        content_type="dialogue",
        genre="rpg",
        tone="epic",
        formality="formal",
        max_length=40,
        domain="film",
        summary="Two friends plan a trip.",
        terms=(("<x0/>", "Espada de Luz"),),
    )
    prompt = batch_messages(["a", "b", "c"], "en", "pt-BR", hints)[1]["content"]
    needles = ["English", "Brazilian Portuguese", "3 segments", "dialogue", "rpg", "epic", "formal register"]
    needles += ["at most 40 characters", "film", "Two friends plan a trip.", '<x0/> stands for the term "Espada de Luz"']
    assert [n for n in needles if n not in prompt] == []


def test_no_hints_add_no_notes() -> None:
    prompt = single_messages("Hello", "en", "de", TranslationHints())[1]["content"]
    assert "Tone" not in prompt and "register" not in prompt and "characters long" not in prompt
    assert prompt.splitlines()[:2] == ["Text:", "Hello"]


def test_review_prompt_pairs_each_source_with_its_draft() -> None:
    messages = review_messages(["Hello", "Bye"], ["Hallo", "Tschüss"], "en", "de", TranslationHints())
    user = messages[1]["content"]
    assert '1. source: "Hello"' in user and '   draft: "Tschüss"' in user
    assert [m["role"] for m in messages] == ["system", "user"]


def test_response_schema_pins_the_count() -> None:
    items = response_schema(5)["json_schema"]["schema"]["properties"]["translations"]
    assert items["minItems"] == items["maxItems"] == 5


# -- languages -------------------------------------------------------------------


def test_default_pairs_cover_primaries_and_variant_targets() -> None:
    pairs = language_pairs(DEFAULT_LANGUAGES)
    assert len([c for c in DEFAULT_LANGUAGES if "-" not in c]) == 49
    assert len(pairs) == 49 * 48 + 9 * 48
    assert ("en", "pt-BR") in pairs and ("ja", "fr") in pairs
    assert ("pt", "pt-BR") not in pairs and ("en", "en") not in pairs
    assert ("pt-BR", "en") not in pairs


# -- shaping and HTTP helpers ---------------------------------------------------------


def test_segment_keeps_outer_whitespace() -> None:
    segment = Segment.of("  Hello \n")
    assert segment.core == "Hello"
    assert segment.wrap(" Hola ") == "  Hola \n"
    assert Segment.of("   ").wrap("ignored") == "   "


def test_chunks() -> None:
    assert chunks(list("abcde"), 2) == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize("url", ["http://h:8000", "http://h:8000/", "http://h:8000/v1", "http://h:8000/v1/"])
def test_normalize_base_url(url: str) -> None:
    assert normalize_base_url(url) == "http://h:8000"


def test_normalize_base_url_keeps_a_route_prefix() -> None:
    assert normalize_base_url("http://127.0.0.1:8000/llm/v1") == "http://127.0.0.1:8000/llm"


def test_retry_after_seconds_and_garbage() -> None:
    assert retry_after_s(httpx.Response(429, headers={"Retry-After": "2"})) == 2.0
    assert retry_after_s(httpx.Response(429, headers={"Retry-After": "soon"})) is None
    assert retry_after_s(httpx.Response(503)) is None


def test_retry_after_http_date() -> None:
    response = httpx.Response(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:05 GMT"})
    assert retry_after_s(response, now=1445412480.0) == 5.0
    assert retry_after_s(response, now=1445412490.0) == 0.0


def test_backoff_honours_hint_with_cap_and_grows_otherwise() -> None:
    assert backoff_delay(0, 0.5, 30.0, 3.0) == 3.0
    assert backoff_delay(0, 0.5, 30.0, 300.0) == 30.0
    delays = [backoff_delay(4, 0.5, 30.0, None) for _ in range(50)]
    assert all(0.0 <= d <= 8.0 for d in delays) and max(delays) > 0.5
