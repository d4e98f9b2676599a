"""Acceptance of a shorter translation: numbers, negations, glossary terms and names must survive."""

from __future__ import annotations

import pytest

from pipelines.subtitles.condense import NEGATIONS, char_budget, keeps_meaning, reasons

REQUIRED = {"en", "es", "fr", "de", "pt", "it", "ru", "nl", "pl", "tr", "ar", "hi", "zh", "ja", "ko", "id", "vi"}
REQUIRED |= {"sv", "da", "no", "cs", "uk"}


def test_every_required_language_has_negations():
    assert set(NEGATIONS) >= REQUIRED
    assert all(NEGATIONS[lang] for lang in REQUIRED)


@pytest.mark.parametrize(
    ("language", "original", "shorter"),
    [
        ("en", "Honestly, we must have sold about 1,000 copies.", "We sold about 1000 copies."),
        ("en", "We sold about 1000 copies last year.", "We sold 1,000 copies."),
        ("en", "The rate went up to 3.5 percent this year.", "The rate hit 3.5%."),
        ("en", "Twelve people came to the party.", "12 came."),
        ("de", "Wir haben ungefähr 1.000 Exemplare verkauft.", "1000 Exemplare verkauft."),
        ("de", "Der Zins stieg in diesem Jahr auf 3,5 Prozent.", "Zins: 3,5 %."),
        ("es", "Vendimos más o menos 1.000 copias.", "Vendimos 1000 copias."),
        ("es", "Vendimos más o menos 1 000 copias.", "Vendimos 1.000 copias."),
        ("fr", "Nous avons vendu à peu près 1 000 exemplaires.", "Vendu 1000 exemplaires."),
        ("hi", "इस साल हमने 1,00,000 किताबें बेचीं।", "100000 किताबें बिकीं।"),
    ],
)
def test_numbers_written_another_way_are_kept(language, original, shorter):
    assert reasons(original, shorter, language) == []


@pytest.mark.parametrize(
    ("language", "original", "shorter", "dropped"),
    [
        ("en", "We sold about 1,000 copies last year.", "We sold copies last year.", "1,000"),
        ("en", "We sold about 1,000 copies last year.", "We sold 1,500 copies.", "1,000"),
        ("en", "The train leaves at 12 sharp.", "The train leaves at twelve.", "12"),
        ("en", "The rate went up to 3.5 percent.", "The rate hit 3,5%.", "3.5"),
        ("de", "Wir haben ungefähr 1.000 Exemplare verkauft.", "Wir haben 1,000 verkauft.", "1.000"),
        ("es", "Vendimos más o menos 1.000 copias.", "Vendimos 100 copias.", "1.000"),
    ],
)
def test_a_dropped_or_changed_number_is_refused(language, original, shorter, dropped):
    assert reasons(original, shorter, language) == [f"number {dropped} dropped"]


@pytest.mark.parametrize(
    ("language", "original", "kept", "dropped"),
    [
        ("en", "I really don't think that this is a good idea.", "I don't think it's wise.", "I think it's wise."),
        ("en", "Nobody is ever going to believe this story.", "No one will believe it.", "Everyone will believe it."),
        ("es", "No creo que esto sea una buena idea.", "No es buena idea.", "Es buena idea."),
        ("es", "Nunca había visto nada parecido en mi vida.", "Nunca vi nada igual.", "Vi algo igual."),
        ("fr", "Je ne pense pas que ce soit une bonne idée.", "Pas une bonne idée.", "Une bonne idée."),
        ("de", "Ich glaube nicht, dass das eine gute Idee ist.", "Keine gute Idee.", "Eine gute Idee."),
        ("pt-BR", "Eu não acho que isso seja uma boa ideia.", "Não é boa ideia.", "É boa ideia."),
        ("ru", "Я не думаю, что это хорошая идея.", "Это не лучшая идея.", "Это хорошая идея."),
        ("zh", "我不认为这是一个好主意。", "不是好主意。", "是好主意。"),
        ("zh", "他还没有回来。", "他没回来。", "他回来了。"),
        ("zh-TW", "他還沒有回來。", "他沒回來。", "他回來了。"),
        ("ar", "أنا لا أعرف أين هو الآن.", "لا أعرف أين هو.", "أعرف أين هو."),
        ("hi", "मुझे सच में नहीं पता कि वह कहाँ है।", "मुझे नहीं पता।", "मुझे पता है।"),
        ("ja", "それはいい考えだとは思いません。", "いい考えではない。", "いい考えだ。"),
        ("ko", "나는 그것이 좋은 생각이라고 생각하지 않아요.", "좋은 생각이 아니에요.", "좋은 생각이에요."),
        ("ko", "저는 오늘 학교에 안 가요.", "학교 안 가요.", "학교 가요."),
    ],
)
def test_negation_must_be_kept(language, original, kept, dropped):
    assert reasons(original, kept, language) == []
    assert reasons(original, dropped, language) == ["negation dropped"]


def test_negations_are_counted():
    original = "I don't know and I don't care."
    assert keeps_meaning(original, "Don't know, don't care.", "en")
    assert reasons(original, "Don't know, I care.", "en") == ["negation dropped"]


def test_a_repeated_negation_counts_once():
    assert keeps_meaning("No, no, no, I said no!", "No, I said no!", "en")


def test_the_spoken_french_negation_without_ne_is_kept():
    assert keeps_meaning("Je ne sais pas ce qu'il veut.", "Je sais pas.", "fr")
    # "ne ... que" means "only": dropping the particle changes the meaning.
    assert reasons("Je n'ai que cinq euros sur moi.", "J'ai cinq euros.", "fr") == ["negation dropped"]


def test_words_that_only_contain_a_negation_character_do_not_count():
    assert keeps_meaning("我们的未来会很好。", "未来很好。", "zh")
    assert keeps_meaning("まず、必ず電話してください。", "電話して。", "ja")


def test_a_glossary_term_must_be_kept_case_insensitively():
    original = "Restart the Kubernetes cluster before the demo."
    assert keeps_meaning(original, "Restart kubernetes first.", "en", terms=["Kubernetes"])
    assert reasons(original, "Restart the cluster first.", "en", terms=["Kubernetes"]) == ["term Kubernetes dropped"]


def test_a_glossary_term_absent_from_the_original_is_not_required():
    assert keeps_meaning("Restart the cluster before the demo.", "Restart it first.", "en", terms=["Kubernetes"])


@pytest.mark.parametrize(
    ("language", "original", "kept", "dropped", "name"),
    [
        ("en", "Yesterday I met Anna and Paul in the park.", "I met Anna and Paul.", "I met Anna.", "Paul"),
        ("en", "Tell me, what did O'Brien say?", "What did O'Brien say?", "What did he say?", "O'Brien"),
        (
            "fr",
            "Hier, nous sommes allés à Paris avec Marie.",
            "On est allés à Paris avec Marie.",
            "On est allés à Paris.",
            "Marie",
        ),
        ("ru", "Вчера я видел Ивана в городе.", "Я видел Ивана.", "Я видел его.", "Ивана"),
        ("fr", "Nous parlons très souvent de l'Europe ici.", "On parle de l'Europe.", "On en parle.", "Europe"),
        ("en", "So that was actually John's car, right?", "That was John's car?", "That was his car?", "John"),
    ],
)
def test_a_name_must_be_kept(language, original, kept, dropped, name):
    assert reasons(original, kept, language) == []
    assert reasons(original, dropped, language) == [f"name {name} dropped"]


def test_a_name_must_keep_its_case():
    assert reasons("We flew to London last night.", "We flew to london.", "en") == ["name London dropped"]


def test_capitals_at_a_sentence_start_or_the_pronoun_i_are_not_names():
    original = "Yesterday I was late. Again the bus broke down.\n- Sorry, I'm late."
    assert keeps_meaning(original, "I was late again.\n- Sorry!", "en")


def test_german_nouns_are_not_taken_for_names():
    assert keeps_meaning("Gestern habe ich den Hund im Garten gesehen.", "Ich sah den Hund.", "de")


def test_text_in_capitals_has_no_names():
    assert keeps_meaning("STOP IT RIGHT NOW, PLEASE!", "STOP IT!", "en")


def test_a_longer_or_empty_version_is_refused():
    assert reasons("I can't go.", "I cannot go there.", "en") == ["longer than the original (18 > 11 characters)"]
    assert reasons("I can't go.", "   ", "en") == ["empty"]
    assert not keeps_meaning("I can't go.", "", "en")


def test_every_reason_is_listed():
    original = "Anna, I don't have 1,000 euros for the Kubernetes course."
    shorter = "I have euros for the course."
    assert reasons(original, shorter, "en", terms=["Kubernetes"]) == [
        "number 1,000 dropped",
        "negation dropped",
        "term Kubernetes dropped",
    ]


@pytest.mark.parametrize(
    ("language", "original", "shorter"),
    [
        ("en", "Well, to be honest, I don't really think that Maria will come at 8.", "I don't think Maria will come at 8."),
        ("es", "Bueno, la verdad es que no creo que Carlos llegue antes de las 9.", "No creo que Carlos llegue antes de las 9."),
        ("fr", "Eh bien, franchement, je ne crois pas que Pierre vienne avant 9 heures.", "Pierre ne viendra pas avant 9 h."),
        ("de", "Also, ehrlich gesagt glaube ich nicht, dass Thomas vor 9 Uhr kommt.", "Thomas kommt nicht vor 9 Uhr."),
        ("ru", "Честно говоря, я не думаю, что Анна придёт раньше 9 часов.", "Анна не придёт раньше 9."),
        ("zh", "老实说，我不认为小明会在9点之前到。", "小明9点前不会到。"),
        ("ja", "正直に言うと、田中さんは9時前には来ないと思います。", "田中さんは9時前に来ない。"),
        ("ko", "솔직히 말하면, 민수는 9시 전에는 안 올 것 같아요.", "민수는 9시 전에 안 와요."),
    ],
)
def test_an_honest_shortening_is_accepted(language, original, shorter):
    assert reasons(original, shorter, language, terms=["Kubernetes"]) == []


@pytest.mark.parametrize(
    ("seconds", "cps", "label", "expected"),
    [
        (2.0, 17.0, "", 34),
        (1.5, 15.0, "", 22),
        (0.57, 100.0, "", 57),
        (2.0, 17.0, "ANNA: ", 28),
        (0.2, 15.0, "ANNA: ", 1),
        (0.0, 17.0, "", 1),
    ],
)
def test_char_budget(seconds, cps, label, expected):
    assert char_budget(seconds, cps, label) == expected


def test_char_budget_refuses_a_non_finite_input():
    with pytest.raises(ValueError):
        char_budget(float("nan"), 17.0)
