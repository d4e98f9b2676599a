"""Text normalisation and sentence splitting for speech (engines.tts.text)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.errors import InvalidInput
from engines.tts.number_words import N2W_LANGS
from engines.tts.text import (
    LEAD_MAX_CHARS,
    MAX_TEXT_CHARS,
    PAUSE_CLAUSE_S,
    PAUSE_NONE_S,
    PAUSE_PARAGRAPH_S,
    PAUSE_QUESTION_S,
    PAUSE_SENTENCE_S,
    Sentence,
    language,
    lead_clause,
    normalise,
    sentences,
)

ASCII_DIGIT = re.compile(r"[0-9]")

# (lang, input, words that must appear in the normalised text)
SPOKEN = [
    ("en", "I have 20 apples.", ["twenty"]),
    ("en", "It costs 1,234,567 dollars.", ["one million", "two hundred and thirty-four thousand"]),
    ("en", "Pi is about 3.14.", ["three point one four"]),
    ("en", "He came 1st, she came 2nd and I was 23rd.", ["first", "second", "twenty-third"]),
    ("en", "Prices fell 50% today.", ["fifty percent"]),
    (
        "en",
        "It costs $5 or $5.99 or £3.50.",
        ["five dollars", "five dollars and ninety-nine cents", "three pounds and fifty pence"],
    ),
    ("en", "A budget of €1.5 million and 5 € more.", ["one point five million euros", "five euros"]),
    (
        "en",
        "Born in 1999, grew up in the 1980s, left in 2024.",
        ["nineteen ninety-nine", "nineteen eighties", "twenty twenty-four"],
    ),
    ("en", "Meet at 10:30, not 10:05 pm or 7:00.", ["ten thirty", "ten oh five pee em", "seven o'clock"]),
    ("en", "It is -7 outside, 25°C inside.", ["minus seven", "twenty-five degrees Celsius"]),
    ("en", "Call Mr. Smith, Mrs. Jones and Dr. Who, e.g. today, i.e. now, vs. tomorrow.", ["Mister Smith", "Missus Jones"]),
    ("en", "Apples, pears, etc. are fruit.", ["et cetera are fruit"]),
    ("en", "She lives on Main St. in St. Louis.", ["Main Street", "Saint Louis"]),
    ("en", "Room No. 5 and #7.", ["number five", "number seven"]),
    ("es", "Tengo 1.234 euros y 3,5 litros.", ["mil doscientos treinta y cuatro euros", "tres coma cinco"]),
    ("es", "Subió un 50% y cuesta 5 € o $20.", ["cincuenta por ciento", "cinco euros", "veinte dólares"]),
    ("es", "El Sr. García y la Sra. López, p. ej., etc.", ["señor García", "señora López", "por ejemplo", "etcétera"]),
    ("es", "Quedó 1º y ella 1ª, a las 21:00.", ["primero", "primera", "veintiuna en punto"]),
    ("fr", "J'ai 1 234 euros et 3,5 litres.", ["mille deux cent trente-quatre euros", "trois virgule cinq"]),
    ("fr", "Une hausse de 50 % à 10h30.", ["cinquante pour cent", "dix heures trente"]),
    ("az", "Qiymət 1 250 manatdır, endirim 15% və -3,5 dərəcə.", ["min iki yüz əlli", "on beş faiz", "mənfi üç vergül beş"]),
    ("fr", "Le 1er et la 1re, puis le 2e.", ["premier", "première", "deuxième"]),
    ("fr", "M. Dupont et Mme Martin, c.-à-d. les voisins.", ["monsieur Dupont", "madame Martin", "c'est-à-dire"]),
    (
        "de",
        "Es kostet 1.234,50 € und 3,5 Liter.",
        ["eintausendzweihundertvierunddreißig Euro und fünfzig Cent", "drei Komma fünf"],
    ),
    ("de", "Am 3. Oktober 1990 um 10:30 Uhr.", ["Am dritten Oktober", "neunzehnhundertneunzig", "zehn Uhr dreißig"]),
    ("de", "Das sind 50% mehr, z. B. Äpfel, d. h. Obst, bzw. Birnen usw.", ["fünfzig Prozent", "zum Beispiel", "das heißt"]),
    ("de", "Dr. Müller, z.B. im 19. Jahrhundert.", ["Doktor Müller", "zum Beispiel", "neunzehnten Jahrhundert"]),
    ("it", "Ho 1.234 euro e il 50% di 3,5.", ["milleduecentotrentaquattro", "cinquanta per cento", "tre virgola cinque"]),
    ("it", "Il Sig. Rossi e la Sig.ra Bianchi, ecc.", ["signor Rossi", "signora Bianchi", "eccetera"]),
    (
        "pt",
        "Tenho 1.234 euros, 50% e 3,5 litros.",
        ["mil duzentos e trinta e quatro", "cinquenta por cento", "três vírgula cinco"],
    ),
    ("pt", "O Sr. Silva chegou em 1º, a Dra. Sousa em 2ª, às 2:00.", ["senhor Silva", "doutora Sousa", "primeiro", "segunda"]),
    (
        "nl",
        "Dhr. Jansen betaalt 1.234 euro, bijv. om 10:30 uur.",
        ["De heer Jansen", "duizendtweehonderdvierendertig", "bijvoorbeeld"],
    ),
    ("ru", "У меня 1 234 рубля, т. е. 21% или 25%.", ["одна тысяча двести тридцать четыре", "то есть", "двадцать один процент"]),
    ("ru", "Скидка 25% и 3,5 литра.", ["двадцать пять процентов", "три запятая пять"]),
    ("ja", "2024年に1,234円、3.5%です。", ["二千二十四年", "千二百三十四円", "三点五パーセント"]),
    ("pl", "Mam 1 234 zł i -5 stopni.", ["tysiąc dwieście trzydzieści cztery", "minus pięć"]),
    ("tr", "Fiyat 1.234 lira, yüzde 50% arttı.", ["bin"]),
    ("ko", "1,234원", ["천이백삼십사"]),
    ("ar", "لدي 1,234 كتاب", ["ألف"]),
    ("vi", "Tôi có 1.234 đồng.", ["một nghìn hai trăm ba mươi bốn"]),
]


@pytest.mark.parametrize(("lang", "text", "expected"), SPOKEN, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPOKEN)])
def test_numbers_and_abbreviations_are_spoken(lang: str, text: str, expected: list[str]) -> None:
    spoken = normalise(text, lang)
    for words in expected:
        assert words in spoken
    assert not ASCII_DIGIT.search(spoken), spoken


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("zh", "今天是2024年,有1,234人。", "今天是2024年,有1234人。"),
        ("hi", "मैं 25 साल का हूँ, 1,234 रुपये।", "मैं 25 साल का हूँ, 1234 रुपये।"),
        ("hr", "Imam 1.234 kuna i 3,5 litre.", "Imam 1234 kuna i 3,5 litre."),
        ("el", "Έχω 1.234 ευρώ.", "Έχω 1234 ευρώ."),
        ("sw", "Nina 1,234 shilingi.", "Nina 1234 shilingi."),
    ],
)
def test_languages_num2words_lacks_keep_digits_without_group_separators(lang: str, text: str, expected: str) -> None:
    assert lang not in N2W_LANGS
    assert normalise(text, lang) == expected


def test_ids_with_leading_zeros_and_long_runs_are_read_digit_by_digit() -> None:
    assert normalise("Agent 007", "en") == "Agent zero zero seven"
    assert normalise("1234567890123456789", "en").split()[:3] == ["one", "two", "three"]


def test_dates_and_versions_are_read_part_by_part() -> None:
    assert normalise("Version 1.2.3", "en") == "Version one two three"
    assert not ASCII_DIGIT.search(normalise("Am 12.05.2020 kam er.", "de"))


def test_a_hyphen_is_not_a_minus_sign() -> None:
    assert normalise("pages 5-10", "en") == "pages five-ten"
    assert normalise("from -5 to +5", "en") == "from minus five to + five"


def test_markup_emoji_and_control_characters_are_dropped() -> None:
    text = "<p>Hello <b>world</b> 😀👍🏽!</p>\x00\x07<br>New &amp; improved\u200b… **bold** [link](https://x.y) ❤️"
    assert normalise(text, "en") == "Hello world!\n\nNew and improved… bold link"


def test_whitespace_collapses_but_paragraphs_stay() -> None:
    text = "  One\ttwo\u00a0 three\nfour\r\n\r\n\n  Five  \u2029Six "
    assert normalise(text, "en") == "One two three four\n\nFive\n\nSix"


def test_text_is_nfc() -> None:
    decomposed = "Cafe\u0301 cre\u0300me"
    assert normalise(decomposed, "fr") == unicodedata.normalize("NFC", decomposed)


def test_persian_zero_width_non_joiner_survives_inside_words() -> None:
    assert normalise("می\u200cخواهم", "fa") == "می\u200cخواهم"


def test_language_tags_are_reduced_to_the_base_code() -> None:
    assert language("pt-BR") == "pt"
    assert language("EN_us") == "en"
    assert language("nb") == "no"
    assert normalise("20", "en-GB") == "twenty"


def test_unknown_language_is_only_cleaned() -> None:
    assert normalise("<i>Hola</i>  20", "xx") == "Hola 20"


def test_text_over_the_limit_is_refused() -> None:
    assert normalise("a" * MAX_TEXT_CHARS, "en") == "a" * MAX_TEXT_CHARS
    with pytest.raises(InvalidInput, match="5000"):
        normalise("a" * (MAX_TEXT_CHARS + 1), "en")
    with pytest.raises(InvalidInput):
        sentences("a" * (MAX_TEXT_CHARS + 1), "en")


def texts(parts: list[Sentence]) -> list[str]:
    return [part.text for part in parts]


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("en", "Dr. Smith paid 3.5 dollars. Then he left!", ["Doctor Smith paid three point five dollars.", "Then he left!"]),
        ("en", "J. K. Rowling wrote it. Hmm... yes, she did.", ["J. K. Rowling wrote it.", "Hmm... yes, she did."]),
        ("en", 'He said "Stop." Then he ran.', ['He said "Stop."', "Then he ran."]),
        ("es", "El Sr. García llegó. ¿Quién es? ¡Hola!", ["El señor García llegó.", "¿Quién es?", "¡Hola!"]),
        ("fr", "M. Dupont est là. Il pleut !", ["monsieur Dupont est là.", "Il pleut !"]),
        ("de", "Er kam z. B. am 3. Oktober. Danach ging er.", ["Er kam zum Beispiel am dritten Oktober.", "Danach ging er."]),
        ("it", "Il Dott. Verdi è qui. Bene.", ["Il dottor Verdi è qui.", "Bene."]),
        ("pt", "A Dra. Sousa chegou. Ótimo.", ["A doutora Sousa chegou.", "Ótimo."]),
        ("ru", "Это т. е. пример. Второе предложение.", ["Это то есть пример.", "Второе предложение."]),
        ("ja", "今日は晴れです。明日は？すごい！", ["今日は晴れです。", "明日は？", "すごい！"]),
        ("zh", "今天天气很好。你呢？太好了！", ["今天天气很好。", "你呢？", "太好了！"]),
        ("hi", "मेरा नाम राम है। आप कैसे हैं?", ["मेरा नाम राम है।", "आप कैसे हैं?"]),
        ("ar", "مرحبا بكم. كيف حالك؟", ["مرحبا بكم.", "كيف حالك؟"]),
        ("el", "Τι κάνεις; Καλά.", ["Τι κάνεις;", "Καλά."]),
    ],
)
def test_sentences_split_at_sentence_ends_only(lang: str, text: str, expected: list[str]) -> None:
    assert texts(sentences(text, lang)) == expected


def test_pauses_follow_punctuation_and_paragraphs() -> None:
    parts = sentences("One. Two? Three!\n\nFour… Five", "en")
    assert [(p.text, p.pause_after_s) for p in parts] == [
        ("One.", PAUSE_SENTENCE_S),
        ("Two?", PAUSE_QUESTION_S),
        ("Three!", PAUSE_PARAGRAPH_S),
        ("Four…", PAUSE_SENTENCE_S),
        ("Five", PAUSE_NONE_S),
    ]
    assert (PAUSE_SENTENCE_S, PAUSE_QUESTION_S, PAUSE_PARAGRAPH_S, PAUSE_CLAUSE_S) == (0.35, 0.4, 0.7, 0.15)


def test_cjk_question_and_exclamation_pause_longer() -> None:
    assert [p.pause_after_s for p in sentences("本当？はい！そう。終わり。", "ja")] == [0.4, 0.4, 0.35, 0.0]


def test_long_sentences_are_cut_at_clauses_then_words() -> None:
    clause = "the quick brown fox jumps over the lazy dog"
    text = ", ".join([clause] * 6) + "."
    parts = sentences(text, "en", max_chars=100)
    assert all(len(p.text) <= 100 for p in parts)
    assert all(p.text.endswith(",") and p.pause_after_s == PAUSE_CLAUSE_S for p in parts[:-1])
    assert " ".join(texts(parts)) == text

    words = " ".join(["word"] * 60) + "."
    parts = sentences(words, "en", max_chars=50)
    assert all(len(p.text) <= 50 and set(p.text.rstrip(".").split()) == {"word"} for p in parts)
    assert [p.pause_after_s for p in parts[:-1]] == [PAUSE_NONE_S] * (len(parts) - 1)


def test_long_cjk_sentences_are_cut_at_ideographic_commas_then_anywhere() -> None:
    text = "、".join(["今日はとても良い天気です"] * 10) + "。"
    parts = sentences(text, "ja", max_chars=40)
    assert all(len(p.text) <= 40 for p in parts)
    assert "".join(texts(parts)) == text
    unbroken = "天" * 95
    assert [len(p.text) for p in sentences(unbroken, "zh", max_chars=40)] == [40, 40, 15]


def test_empty_and_punctuation_only_input_gives_nothing() -> None:
    assert sentences("", "en") == []
    assert sentences("   \n\n  ", "en") == []
    assert sentences("... !!! ??? — ,", "en") == []
    assert sentences("😀 <br> 🎉", "en") == []
    assert texts(sentences("Hi. !!! There.", "en")) == ["Hi.", "There."]


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        sentences("Hello.", "en", max_chars=0)


LANGS = ["en", "es", "fr", "de", "it", "pt", "ru", "ja", "zh", "hi", "ar", "el", "nl", "pl", "xx"]
ALPHABET = st.sampled_from(
    [*list("abcXYZ éüßжя日本。、？！।؟019 ,.;:!?…—-%$€'\"\n\t()"), "Dr. ", "3.5", "1,234", "z. B.", "\n\n"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(ALPHABET, max_size=120).map("".join), lang=st.sampled_from(LANGS), max_chars=st.integers(5, 300))
def test_sentences_never_lose_letters_nor_exceed_the_cap(text: str, lang: str, max_chars: int) -> None:
    parts = sentences(text, lang, max_chars=max_chars)
    spoken = [ch for part in parts for ch in part.text if ch.isalnum()]
    assert spoken == [ch for ch in normalise(text, lang) if ch.isalnum()]
    assert all(0 < len(part.text) <= max_chars for part in parts)
    assert all(part.text == part.text.strip() for part in parts)
    assert all(part.pause_after_s >= 0 for part in parts)
    if parts:
        assert parts[-1].pause_after_s == 0.0


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäéñ", min_size=1, max_size=12)
SEPARATOR = st.sampled_from([" ", " ", " ", ", ", "; ", ": ", ". ", "? ", "! ", "\n\n"])


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(WORD, SEPARATOR), min_size=1, max_size=80), max_chars=st.integers(12, 200))
def test_sentences_never_break_a_word(pairs: list[tuple[str, str]], max_chars: int) -> None:
    text = "".join(word + separator for word, separator in pairs)
    parts = sentences(text, "en", max_chars=max_chars)
    words = [word for part in parts for word in re.findall(r"\w+", part.text)]
    assert words == re.findall(r"\w+", normalise(text, "en"))


# -- the first chunk of a stream --------------------------------------------------------------


def test_a_long_first_sentence_is_cut_after_its_first_clause() -> None:
    pieces = sentences("When the bell rings at noon, every player returns to the arena. Good luck.", "en")
    lead = lead_clause(pieces)
    assert lead[0] == Sentence("When the bell rings at noon,", PAUSE_CLAUSE_S)
    assert lead[1].text == "every player returns to the arena." and lead[1].pause_after_s == pieces[0].pause_after_s
    assert lead[2:] == pieces[1:]


def test_without_an_early_clause_mark_the_cut_falls_after_a_few_words() -> None:
    pieces = sentences("The weather is pleasant today and the children are playing in the park.", "en")
    head, tail = lead_clause(pieces)
    assert head.pause_after_s == PAUSE_NONE_S and len(head.text.split()) == 5
    assert f"{head.text} {tail.text}" == pieces[0].text


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Short and sweet.", "en"), ("今天天气很好孩子们在公园里玩耍老师在旁边看着他们大家都很开心我们明天再来吧。", "zh")],
)
def test_short_sentences_and_unspaced_text_without_clause_marks_stay_whole(text: str, lang: str) -> None:
    pieces = sentences(text, lang)
    assert lead_clause(pieces) == pieces


def test_chinese_is_cut_at_its_own_clause_mark() -> None:
    text = (
        "今天天气很好，孩子们在公园里开心地玩耍，老师们在旁边安静地看着他们，家长们也在树下聊天，大家都觉得这是一个美好的下午。"
    )
    pieces = sentences(text, "zh")
    assert len(pieces[0].text) > LEAD_MAX_CHARS
    head, tail = lead_clause(pieces)
    assert head.text == "今天天气很好，孩子们在公园里开心地玩耍，" and head.text + tail.text == pieces[0].text


@given(st.text(alphabet=st.sampled_from("ab ,.;é"), max_size=200))
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_lead_clause_only_splits_the_first_piece(text: str) -> None:
    pieces = sentences(text, "fr")
    lead = lead_clause(pieces)
    assert lead[len(lead) - len(pieces) + 1 :] == pieces[1:]
    rejoined = " ".join(p.text for p in lead[: len(lead) - len(pieces) + 1])
    assert rejoined.split() == (pieces[0].text.split() if pieces else [])
