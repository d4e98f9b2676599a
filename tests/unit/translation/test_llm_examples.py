"""The in-context example bank, the examples chosen for a request, and how they enter the prompt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from engines.translation.base import TranslationHints
from engines.translation.llm.answers import parse_translations
from engines.translation.llm.examples import ExampleBank, load_bank
from engines.translation.llm.prompts import (
    SYSTEM_BATCH,
    SYSTEM_SINGLE,
    batch_messages,
    single_messages,
    with_examples,
)

ROOT = Path(__file__).resolve().parents[3]
BANK = ROOT / "configs" / "translation-examples"
DEVSET = ROOT / "configs" / "devset"
CONTRACT = [row["code"] for row in yaml.safe_load((ROOT / "configs" / "languages.yaml").read_text())["languages"]]
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@pytest.fixture(scope="module")
def bank() -> ExampleBank:
    return load_bank(str(BANK))


def test_every_contract_language_has_a_complete_aligned_bank(bank: ExampleBank) -> None:
    assert bank.languages() == set(CONTRACT)
    ids = set(bank.texts["en"])
    assert len(ids) >= 12 and set(bank.content_types.values()) >= {"ui", "dialogue", "item_desc", "subtitle"}
    for code in CONTRACT:
        assert set(bank.texts[code]) == ids, code
        for key, text in bank.texts[code].items():
            assert PLACEHOLDER.findall(text) == PLACEHOLDER.findall(bank.texts["en"][key]), (code, key, text)


def test_every_contract_language_has_a_devset_reference() -> None:
    english = [line.split("\t")[2] for line in (DEVSET / "en.tsv").read_text(encoding="utf-8").splitlines()]
    for code in (c for c in CONTRACT if c != "en"):
        lines = (DEVSET / f"{code}.txt").read_text(encoding="utf-8").splitlines()
        assert len(lines) == len(english) and all(line.strip() for line in lines), code
        for source, reference in zip(english, lines, strict=True):
            assert PLACEHOLDER.findall(reference) == PLACEHOLDER.findall(source), (code, reference)


def test_the_bank_shares_no_sentence_with_the_scoring_devset(bank: ExampleBank) -> None:
    """Examples that went into prompts must not be the sentences that score them."""
    scored = {line.split("\t")[2].casefold() for line in (DEVSET / "en.tsv").read_text(encoding="utf-8").splitlines()}
    for path in DEVSET.glob("*.txt"):
        scored |= {line.casefold() for line in path.read_text(encoding="utf-8").splitlines()}
    shown = {text.casefold() for rows in bank.texts.values() for text in rows.values()}
    assert not shown & scored


def test_examples_follow_content_type_then_placeholders(bank: ExampleBank) -> None:
    items = bank.pick("en", "de", "Sharp as a razor.", "item_desc", 2)
    assert [e.content_type for e in items] == ["item_desc", "item_desc"]
    with_token = bank.pick("en", "de", "<x0/> files deleted", "ui", 1)
    assert with_token[0].content_type == "ui" and "<x0/>" in with_token[0].source and "<x0/>" in with_token[0].target
    assert "{" not in with_token[0].target  # bank placeholders are shown as the sentinels the model sees


def test_requests_alike_get_the_same_examples_so_the_prompt_prefix_is_cached(bank: ExampleBank) -> None:
    one = bank.pick("en", "fr", "Exit the game?", "ui", 3)
    two = bank.pick("en", "fr", "Remove this save?", "ui", 3)
    assert one == two and len(one) == 3
    assert bank.pick("en", "fr", "A much longer tutorial sentence that explains how crafting works.", "ui", 3) != one


def test_any_two_bank_languages_form_example_pairs(bank: ExampleBank) -> None:
    (example,) = bank.pick("de", "ja", "Gespeichert.", "ui", 1)
    key = next(k for k, v in bank.texts["de"].items() if v == example.source)
    assert example.target == bank.texts["ja"][key]
    assert bank.pick("en", "xx", "Hello", None, 3) == [] and bank.pick("en", "de", "Hello", None, 0) == []


def test_a_malformed_bank_row_is_refused(tmp_path: Path) -> None:
    (tmp_path / "de.tsv").write_text("ui-a\tui\tSaved.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"de\.tsv line 1"):
        ExampleBank.load(tmp_path)


def test_single_requests_get_one_plain_exchange_per_example_closest_last() -> None:
    examples = [("Saved.", "Gespeichert."), ("Exit?", "Beenden?")]
    messages = with_examples(single_messages("Quit now?", "en", "de", TranslationHints()), examples, "en", "de")
    assert messages[0]["content"] == SYSTEM_SINGLE
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[2]["content"] == "Beenden?" and messages[4]["content"] == "Gespeichert."  # closest last
    assert "Saved." in messages[3]["content"] and "German" in messages[3]["content"]
    assert "Quit now?" in messages[-1]["content"]


def test_batches_get_one_exchange_answered_in_the_batch_shape() -> None:
    examples = [("Saved.", "Gespeichert."), ("Exit?", "Beenden?"), ("Heals <x0/> HP.", "Heilt <x0/> LP.")]
    plain = batch_messages(["One", "Two"], "en", "de", TranslationHints())
    messages = with_examples(plain, examples, "en", "de")
    assert messages[0]["content"] == SYSTEM_BATCH and len(messages) == 4 and messages[-1] == plain[-1]
    assert parse_translations(messages[2]["content"], 3) == ["Heilt <x0/> LP.", "Beenden?", "Gespeichert."]
    assert with_examples(plain, [], "en", "de") == plain
