"""Our portable rules and the style packs (data under configs/grammar/)."""

from __future__ import annotations

import pytest

from engines.grammar.rules_engine import RulesEngine
from engines.grammar.types import CheckOptions


@pytest.fixture(scope="module")
def engine() -> RulesEngine:
    rules = RulesEngine()
    rules.start()
    return rules


def found(engine: RulesEngine, text: str, lang: str = "en", domain: str = "general") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i in engine.check(text, CheckOptions(lang, domain=domain)):  # type: ignore[arg-type]
        assert text[i.offset : i.end] or i.length == 0
        out.setdefault(i.rule_id, []).append(text[i.offset : i.end])
    return out


@pytest.mark.parametrize(
    ("lang", "text", "rule", "span"),
    [
        ("en", "We saw the the river.", "REPEATED_WORD", "the the"),
        ("de", "Wir sahen den den Fluss.", "REPEATED_WORD", "den den"),
        ("en", "It rained , then stopped.", "SPACE_BEFORE_PUNCTUATION", " ,"),
        ("en", "It rained,then stopped.", "MISSING_SPACE_AFTER_PUNCTUATION", ","),
        ("es", "Llovió,, luego paró.", "DOUBLED_PUNCTUATION", ",,"),
        ("ja", "雨でした。。", "DOUBLED_PUNCTUATION", "。。"),
        ("en", "It rained (a lot.", "UNBALANCED_BRACKET", "("),
        ("en", "He said “yes.", "UNBALANCED_QUOTE", "“"),
        ("fr", "Il a dit « oui.", "UNBALANCED_QUOTE", "«"),
        ("de", "Er sagte „ja und ging.", "UNBALANCED_QUOTE", "„"),
        ("en", "He said yes” and left.", "UNBALANCED_QUOTE", "”"),
        ("sv", "Hon sa ”ja och gick.", "UNBALANCED_QUOTE", "”"),
        ("de", "Es regnete am 3. Mai. dann hörte es auf.", "SENTENCE_START_CAPITAL", "dann"),
        ("en", "We met in 2019. then we moved.", "SENTENCE_START_CAPITAL", "then"),
        ("en", "Where are they? over there.", "SENTENCE_START_CAPITAL", "over"),
        ("en", "It rained. then it stopped.", "SENTENCE_START_CAPITAL", "then"),
        ("en", "You could of asked.", "EN_CONFUSION_COULD_OF", "could of"),
        ("de", "Das ist das selbe Auto.", "DE_CONFUSION_DAS_SELBE", "das selbe"),
        ("fr", "Malgré qu'il pleuve, il sort.", "FR_CONFUSION_MALGRE_QUE", "Malgré qu'"),
    ],
)
def test_each_rule_finds_its_error(engine: RulesEngine, lang: str, text: str, rule: str, span: str) -> None:
    assert span in found(engine, text, lang).get(rule, []), found(engine, text, lang)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "He said that that was fine. It is 3.5 km, e.g. near the U.S. border. 1) first 2) second"),
        ("fr", "Il vient ; elle part ! Qu'en dites-vous ? « Oui », dit-il."),  # French spacing is correct
        ("de", "Er sagte, die die kommen, sind willkommen. Das kostet z. B. 5 Euro."),
        ("ar", "ذهب الولد إلى المدرسة."),  # no capitals to check
        ("en", "Visit https://example.com/a,,b now. Version 1.2.3 shipped."),
        # Each language's own quotation marks pair: „…“ (de, cs), „…” (pl, ro), ”…” and »…» (sv), »…« (da), “…” (en)
        ("de", "Der Film „Leben unter dem Eis“ lief gestern. „Wo bist du?“, fragte sie."),
        ("pl", "Widziałeś już nowy sezon „Wiedźmina”? Tak."),
        ("sv", "Dokumentären ”Livet under isen” och boken »Isen» kom ut i år."),
        ("da", "»Hvor har du lagt nøglerne?« spurgte min mor."),
        ("en", "She said “yes” and he said “no”."),
        # Ordinal numbers with a full stop, and abbreviations of the language
        ("no", "På 17. mai går barna i tog. Billetten koster 450 kr. og er billig."),
        ("da", "Koncerten er den 14. oktober, og billetterne koster ca. 300 kr. per stk."),
        # A dialogue line's tag after its question mark stays in lower case
        ("sv", "– Var har du lagt bilnycklarna? frågade mamma."),
    ],
)
def test_correct_text_is_left_alone(engine: RulesEngine, lang: str, text: str) -> None:
    issues = [i for i in engine.check(text, CheckOptions(lang)) if i.severity != "info"]
    assert issues == [], [(i.rule_id, text[i.offset : i.end]) for i in issues]


def test_domain_shapes_style_and_wordiness(engine: RulesEngine) -> None:
    text = "We don't have the data in order to decide, and that's a lot of stuff."
    severities = {
        d: {i.rule_id: i.severity for i in engine.check(text, CheckOptions("en", domain=d))}
        for d in ("general", "academic", "business", "casual")
    }  # type: ignore[arg-type]
    assert severities["academic"]["EN_STYLE_CONTRACTION"] == "warning"
    assert severities["academic"]["EN_STYLE_INFORMAL"] == "warning"
    assert "EN_STYLE_CONTRACTION" not in severities["general"]  # general English allows contractions
    assert severities["general"]["EN_WORDY_PHRASE"] == "info"
    assert not {"EN_STYLE_CONTRACTION", "EN_STYLE_INFORMAL", "EN_WORDY_PHRASE"} & set(severities["casual"])  # lenient
    assert severities["business"]["EN_WORDY_PHRASE"] == "warning"


def test_packs_exist_for_english_and_three_more_languages(engine: RulesEngine) -> None:
    assert {"en", "es", "fr", "de"} <= engine.style_languages()
    for lang, text, rule in [
        ("es", "Lo hicimos a nivel de empresa.", "ES_WORDY_PHRASE"),
        ("fr", "Il l'a fait dans le but de gagner.", "FR_WORDY_PHRASE"),
        ("de", "Zum jetzigen Zeitpunkt warten wir.", "DE_WORDY_PHRASE"),
    ]:
        assert rule in found(engine, text, lang, domain="business")


def test_replacements_keep_a_leading_capital_and_curly_apostrophes_match(engine: RulesEngine) -> None:
    issues = engine.check("In order to win, don’t stop.", CheckOptions("en", domain="academic"))
    fixes = {i.rule_id: i.replacements for i in issues}
    assert fixes["EN_WORDY_PHRASE"] == ("To",) and fixes["EN_STYLE_CONTRACTION"] == ("do not",)


def test_every_reported_rule_is_in_the_catalogue(engine: RulesEngine) -> None:
    ids = {r.id for r in engine.rules()}
    text = "the the , ,, ( “ could of. In order to don't a lot"
    assert {i.rule_id for i in engine.check(text, CheckOptions("en", domain="academic"))} <= ids


def test_common_reduplication_is_grammatical_but_a_doubled_word_is_not(engine: RulesEngine) -> None:
    assert "REPEATED_WORD" not in found(engine, "Yavaş yavaş ilerliyoruz.", "tr")
    assert "REPEATED_WORD" not in found(engine, "वह धीरे धीरे चल रहा था।", "hi")
    assert "REPEATED_WORD" not in found(engine, "Xe chạy từ từ qua cầu.", "vi")
    assert found(engine, "Çocuklar parkta parkta oynuyor.", "tr")["REPEATED_WORD"] == ["parkta parkta"]


def test_a_space_before_punctuation_after_a_combining_mark_is_found(engine: RulesEngine) -> None:
    assert found(engine, "आज ठंड है , लेकिन धूप है।", "hi")["SPACE_BEFORE_PUNCTUATION"] == [" ,"]
    assert found(engine, "Un café e\u0301te\u0301 , puis rien.", "fr")["SPACE_BEFORE_PUNCTUATION"] == [" ,"]
