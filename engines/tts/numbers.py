"""Numbers read out as words, per language, for speech.

:func:`spell_numbers` rewrites times, amounts of money, percentages, ordinals,
temperatures, years, decimals and plain integers (with the locale's thousands
separator) into words with ``num2words``. Languages ``num2words`` lacks keep their
digits for the engine to read; only thousands separators are dropped there, so
``1.234`` (hr) or ``1,234`` (zh) reaches the engine as one number.

Decimals are read digit by digit after the locale's decimal word ("three point one
four"): uniform across languages and immune to ``num2words``' float rounding.
The words per language are the tables of :mod:`engines.tts.number_words`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable

from num2words import num2words

from engines.tts import number_words

_SIGN = r"(?P<sign>(?<![^\s(\[])[-−])?"  # a minus sign at the start of a word, not a hyphen or a range


@dataclasses.dataclass(frozen=True)
class _Locale:
    """How numbers are written and read in one language."""

    lang: str
    n2w: str
    group: str  # thousands separator: "," "." or " "
    decimal: str  # decimal separator
    number: str  # regex of an unsigned number, without capturing groups

    @property
    def joiner(self) -> str:
        return "" if self.lang in number_words.NO_SPACES else " "


@functools.cache
def _locale(lang: str) -> _Locale | None:
    n2w = number_words.N2W_LANGS.get(lang)
    if n2w is None:
        return None
    group = number_words.THOUSANDS.get(lang, ",")
    decimal = "." if group == "," else ","
    g, d = re.escape(group), re.escape(decimal)
    english_style = r"|\d+\.\d+(?![.\d])" if decimal == "," else ""  # "3.5" in a comma-decimal text
    number = rf"(?<!\d)(?:\d{{1,3}}(?:{g}\d{{3}})+(?!\d)(?:{d}\d+)?{english_style}|\d+(?:{d}\d+)?)"
    return _Locale(lang, n2w, group, decimal, number)


def _plural_index(lang: str, value: int | None, count: int) -> int:
    """Which of ``count`` plural forms fits ``value`` (``None``: a fraction)."""
    if count == 1:
        return 0
    if count == 2:
        return 0 if value == 1 else 1
    if value is None:
        return 1
    if lang in ("cs", "sk"):
        return 0 if value == 1 else 1 if 2 <= value <= 4 else 2
    if value % 10 == 1 and value % 100 != 11:
        return 0
    return 1 if 2 <= value % 10 <= 4 and not 12 <= value % 100 <= 14 else 2


def _form(forms: number_words.Forms, lang: str, value: int | None, words: str) -> str:
    options = (forms,) if isinstance(forms, str) else forms
    return options[_plural_index(lang, value, len(options))].format(words)


def _say(value: int, loc: _Locale, to: str = "cardinal") -> str | None:
    """``num2words``, or ``None`` where it fails (it raises NotImplementedError, OverflowError, …)."""
    try:
        return str(num2words(value, lang=loc.n2w, to=to))
    except Exception:
        return None


def _digits(text: str, loc: _Locale) -> str | None:
    words = [_say(int(ch), loc) for ch in text]
    return None if None in words else loc.joiner.join(str(w) for w in words)


def _integer(text: str, loc: _Locale) -> str | None:
    """Integer digits as words; IDs with leading zeros, and runs over 15 digits, digit by digit."""
    if len(text) > 15 or (len(text) > 1 and text.startswith("0")):
        return _digits(text, loc)
    return _say(int(text), loc)


def _split_number(text: str, loc: _Locale) -> tuple[str, str | None]:
    """``"1.234,5"`` (de) → ``("1234", "5")``; English-style ``"3.5"`` is a decimal in every locale."""
    english = loc.decimal == "," and re.fullmatch(r"\d+\.\d+", text)
    if english and not (loc.group == "." and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", text)):
        whole, frac = text.split(".")
        return whole, frac
    whole, _, frac = text.partition(loc.decimal)
    return whole.replace(loc.group, ""), frac or None


def _number(text: str, loc: _Locale, sign: str | None = None) -> tuple[str | None, int | None]:
    """A number as words and its integer value (``None`` for fractions, for plural agreement)."""
    whole, frac = _split_number(text, loc)
    words = _integer(whole, loc)
    if words is not None and frac is not None:
        tail = _digits(frac, loc)
        words = None if tail is None else loc.joiner.join((words, number_words.POINT[loc.lang], tail))
    if words is not None and sign:
        words = f"{number_words.MINUS[loc.lang]}{loc.joiner}{words}"
    value = int(whole) if frac is None and len(whole) <= 15 else None
    return words, value


def _pad(match: re.Match[str], words: str | None, loc: _Locale) -> str:
    """Keep spoken words apart from letters or symbols they were glued to (``20kg`` → ``twenty kg``)."""
    if words is None:
        return match.group(0)
    if loc.lang in number_words.NO_SPACES:
        return words
    text, start, end = match.string, match.start(), match.end()
    before = " " if start > 0 and _glues(text[start - 1]) else ""
    after = " " if end < len(text) and _glues(text[end]) else ""
    return f"{before}{words}{after}"


def _glues(char: str) -> bool:
    return char.isalnum() or char in "$€£¥%°#&@+=/"


def _times(text: str, loc: _Locale) -> str:
    """``10:30`` → ten thirty (en: ``10:05 pm`` → ten oh five pee em; fr also ``10h30``)."""
    templates = number_words.CLOCK.get(loc.lang, ("{h} {m}", "{h} {m}"))
    separator = r"\s?[:h]" if loc.lang == "fr" else ":"
    meridiem = r"(?:\s?(?P<ampm>[ap])\.?m(?![a-z]))?" if loc.lang == "en" else ""
    minutes = r"(?P<m>\d\d)?(?![\d:\w])" if loc.lang == "fr" else r"(?P<m>\d\d)(?![\d:])"
    unit = {"de": r"(?:\s?Uhr\b)?", "nl": r"(?:\s?uur\b)?"}.get(loc.lang, "")  # said by the template already
    pattern = rf"(?<![\d:.,])(?P<h>[01]?\d|2[0-3]){separator}{minutes}{meridiem}{unit}"

    def spell(match: re.Match[str]) -> str:
        hour, minute, ampm = int(match["h"]), int(match["m"] or 0), match.groupdict().get("ampm")
        spoken_minutes = _say(minute, loc) or ""
        if loc.lang == "en" and 0 < minute < 10:
            spoken_minutes = f"oh {spoken_minutes}"
        template = templates[1] if minute == 0 else templates[0]
        if ampm:
            template = ("{h} {m}" if minute else "{h}") + (" ay em" if ampm.lower() == "a" else " pee em")
        unit = "heure" if hour <= 1 else "heures"
        return _pad(match, template.format(h=_hour(hour, loc), m=spoken_minutes, u=unit), loc)

    return re.sub(pattern, spell, text, flags=re.IGNORECASE if loc.lang == "en" else 0)


def _hour(hour: int, loc: _Locale) -> str:
    """Hours agree with the feminine hora/heure: es una, pt uma/duas, fr une."""
    words = _say(hour, loc) or str(hour)
    for masculine, feminine in number_words.FEMININE_HOURS.get(loc.lang, ()):
        if words == masculine or words.endswith((" " + masculine, "ti" + masculine)):
            words = words[: len(words) - len(masculine)] + feminine
    return words


def _money(text: str, loc: _Locale) -> str:
    """``$5.99`` → five dollars and ninety-nine cents; ``5 €``, ``€1.5 million``, ``10 EUR`` alike."""
    table = number_words.MONEY.get(loc.lang)
    if table is None:
        return text
    signs = r"[$€£¥]"
    before = rf"(?P<sign>{signs})\s?(?P<num>{loc.number})(?:\s(?P<scale>{number_words.SCALE_WORDS})\b)?"
    after = rf"(?P<num2>{loc.number})(?:\s(?P<scale2>{number_words.SCALE_WORDS}))?\s?(?P<sign2>{signs}|\b(?:USD|EUR|GBP|JPY)\b)"

    def spell(match: re.Match[str]) -> str:
        currency = number_words.CURRENCY_SIGNS[match["sign"] or match["sign2"]]
        words = _amount(match["num"] or match["num2"], match["scale"] or match["scale2"], currency, table, loc)
        return _pad(match, words, loc)

    return re.sub(f"{before}|{after}", spell, text)


def _amount(number: str, scale: str | None, currency: str, table: number_words.Money, loc: _Locale) -> str | None:
    whole, frac = _split_number(number, loc)
    unit = table.units[currency]
    if scale or frac is None or len(frac) != 2 or currency not in table.cents:
        words, value = _number(number, loc)
        if words is None:
            return None
        return _form(unit, loc.lang, None, f"{words} {scale}") if scale else _form(unit, loc.lang, value, words)
    main, cents = _integer(whole, loc), _integer(str(int(frac)), loc)
    if main is None or cents is None:
        return None
    spoken = _form(unit, loc.lang, int(whole), main)
    if int(frac) == 0:
        return spoken
    return f"{spoken}{table.joiner}{_form(table.cents[currency], loc.lang, int(frac), cents)}"


def _with_unit(table: dict[str, number_words.Forms], suffix: str) -> Callable[[str, _Locale], str]:
    """A pass reading ``<number><suffix>`` with the language's unit word (percent, degrees)."""

    def step(text: str, loc: _Locale) -> str:
        forms = table.get(loc.lang)
        if forms is None:
            return text

        def spell(match: re.Match[str]) -> str:
            words, value = _number(match["n"], loc, match["sign"])
            scale = {"C": " Celsius", "F": " Fahrenheit"}.get(match.groupdict().get("cf") or "", "")
            return _pad(match, None if words is None else _form(forms, loc.lang, value, words) + scale, loc)

        return re.sub(rf"{_SIGN}(?P<n>{loc.number}){suffix}", spell, text)

    return step


def _ordinals(text: str, loc: _Locale) -> str:
    """en 1st, fr 1er/2e, es/it/pt 1º/1ª, nl 1e/2de, de ``3. Oktober`` (only before months and a few nouns)."""
    pattern = number_words.ORDINALS.get(loc.lang)
    if pattern is None:
        return text

    def spell(match: re.Match[str]) -> str:
        number, mark = int(match.group(1)), match.group(2)
        if loc.lang == "fr" and number == 1:
            return _pad(match, "première" if mark.startswith(("r", "è")) else "premier", loc)
        words = _say(number, loc, "ordinal")
        if words is not None and mark == "ª":
            words = re.sub(r"o\b", "a", words)
        if words is not None and loc.lang == "de":
            words += "n"  # dative/accusative after am/zum/im/vom, the common case
        return _pad(match, words, loc)

    return re.sub(r"(?<![\d.,])" + pattern, spell, text)


def _years(text: str, loc: _Locale) -> str:
    """Years the way they are said: en 1999 → nineteen ninety-nine (1100–2099), 1990s; de/nl 1100–1999."""
    if loc.lang not in ("en", "de", "nl"):
        return text
    years = r"1[1-9]\d\d|20\d\d" if loc.lang == "en" else r"1[1-9]\d\d"

    def decade(match: re.Match[str]) -> str:
        words = _say(int(match.group(1)), loc, "year")
        return _pad(match, None if words is None else (words[:-1] + "ies" if words.endswith("y") else words + "s"), loc)

    if loc.lang == "en":
        text = re.sub(r"(?<![\d.,])(1[1-9]\d0|20\d0)s\b", decade, text)
    pattern = rf"(?<![\d.,:])({years})(?![\d:]|[.,]\d)"
    return re.sub(pattern, lambda m: _pad(m, _say(int(m.group(1)), loc, "year"), loc), text)


def _dotted(text: str, loc: _Locale) -> str:
    """Dates and versions (``12.05.2020``, ``1.2.3``): each part read as a number."""

    def spell(match: re.Match[str]) -> str:
        parts = [_integer(part, loc) for part in re.split(r"[./]", match.group(0))]
        return _pad(match, None if None in parts else loc.joiner.join(str(p) for p in parts), loc)

    return re.sub(r"(?<![\d.,])\d+(?:[./]\d+){2,}(?!\d)", spell, text)


def _plain(text: str, loc: _Locale) -> str:
    """Every other number: integers (with thousands separators) and decimals, with a leading minus."""

    def spell(match: re.Match[str]) -> str:
        return _pad(match, _number(match["n"], loc, match["sign"])[0], loc)

    return re.sub(rf"{_SIGN}(?P<n>{loc.number})", spell, text)


_PASSES: tuple[Callable[[str, _Locale], str], ...] = (
    _times,
    _money,
    _with_unit(number_words.PERCENT, r"\s?[%٪]"),
    _with_unit(number_words.DEGREES, r"\s?°\s?(?P<cf>[CF](?!\w))?"),
    _ordinals,
    _dotted,
    _years,
    _plain,
)


def spell_numbers(text: str, lang: str) -> str:
    """Numbers in ``text`` as words of ``lang``; languages num2words lacks only lose thousands separators."""
    loc = _locale(lang)
    if loc is None:
        return _ungroup(text, lang)
    for step in _PASSES:
        text = step(text, loc)
    return text


def _ungroup(text: str, lang: str) -> str:
    group = re.escape(number_words.THOUSANDS.get(lang, ","))
    pattern = rf"(?<![\d.,])\d{{1,3}}(?:{group}\d{{3}})+(?!\d)"
    return re.sub(pattern, lambda m: re.sub(r"\D", "", m.group(0)), text)
