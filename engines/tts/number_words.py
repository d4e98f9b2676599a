"""The words :mod:`engines.tts.numbers` reads numbers with, per language.

Plain tables, no logic: which languages ``num2words`` spells, how each language
groups thousands, its words for the decimal point and the minus sign, unit words
with their plural forms (percent, degrees, money), clock-time templates and the
ordinal marks recognised in text.
"""

from __future__ import annotations

import dataclasses

#: Our language code → num2words language id (languages missing here keep their digits).
N2W_LANGS: dict[str, str] = {
    code: code
    for code in (
        *("ar", "az", "bn", "ca", "cs", "da", "de", "en", "es", "fa", "fi", "fr", "he", "hu", "id", "is", "it", "ja"),
        *("ko", "lt", "lv", "nl", "no", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi"),
    )
}
N2W_LANGS["ms"] = "id"  # Malay numerals are Indonesian ones

_DOT_GROUP = frozenset(["ca", "da", "de", "el", "es", "hr", "id", "is", "it", "nl", "pt", "ro", "sl", "sr", "tr", "vi"])
_SPACE_GROUP = frozenset(["af", "az", "bg", "cs", "et", "fi", "fr", "hu", "lt", "lv", "no", "pl", "ru", "sk", "sv", "uk"])
#: Thousands separator per language; "," where not listed.
THOUSANDS: dict[str, str] = {**dict.fromkeys(_DOT_GROUP, "."), **dict.fromkeys(_SPACE_GROUP, " ")}
#: Scripts written without spaces between words.
NO_SPACES = frozenset({"ja", "th", "zh"})

#: The decimal point, read between the whole part and the digits after it.
POINT = {
    "en": "point", "es": "coma", "fr": "virgule", "de": "Komma", "it": "virgola", "pt": "vírgula", "nl": "komma",
    "ru": "запятая", "uk": "кома", "pl": "przecinek", "cs": "čárka", "sk": "čiarka", "sl": "vejica", "sr": "zarez",
    "hu": "vessző", "ro": "virgulă", "lt": "kablelis", "lv": "komats", "fi": "pilkku", "sv": "komma", "da": "komma",
    "no": "komma", "is": "komma", "tr": "virgül", "ca": "coma", "id": "koma", "ms": "perpuluhan", "ja": "点", "ko": "점",
    "th": "จุด", "vi": "phẩy", "he": "נקודה", "ar": "فاصلة", "fa": "ممیز", "bn": "দশমিক", "az": "vergül",
}  # fmt: skip
#: The minus sign before a negative number.
MINUS = {
    "en": "minus", "es": "menos", "fr": "moins", "de": "minus", "it": "meno", "pt": "menos", "nl": "min", "ru": "минус",
    "uk": "мінус", "pl": "minus", "cs": "mínus", "sk": "mínus", "sl": "minus", "sr": "minus", "hu": "mínusz", "ro": "minus",
    "lt": "minus", "lv": "mīnus", "fi": "miinus", "sv": "minus", "da": "minus", "no": "minus", "is": "mínus", "tr": "eksi",
    "ca": "menys", "id": "minus", "ms": "negatif", "ja": "マイナス", "ko": "마이너스", "th": "ลบ", "vi": "âm", "he": "מינוס",
    "ar": "سالب", "fa": "منفی", "bn": "ঋণাত্মক", "az": "mənfi",
}  # fmt: skip

# Templates with plural forms where the noun agrees: (one, few, many) or (one, other).
Forms = str | tuple[str, ...]
PERCENT: dict[str, Forms] = {
    "en": "{} percent", "es": "{} por ciento", "fr": "{} pour cent", "de": "{} Prozent", "it": "{} per cento",
    "pt": "{} por cento", "nl": "{} procent", "ru": ("{} процент", "{} процента", "{} процентов"),
    "uk": ("{} відсоток", "{} відсотки", "{} відсотків"), "pl": "{} procent",
    "cs": ("{} procento", "{} procenta", "{} procent"), "sk": ("{} percento", "{} percentá", "{} percent"),
    "sv": "{} procent", "da": "{} procent", "no": "{} prosent", "fi": ("{} prosentti", "{} prosenttia"), "is": "{} prósent",
    "lv": ("{} procents", "{} procenti"), "sr": "{} posto", "hu": "{} százalék", "ro": "{} la sută", "ca": "{} per cent",
    "tr": "yüzde {}", "id": "{} persen", "ms": "{} peratus", "vi": "{} phần trăm", "he": "{} אחוז", "ar": "{} بالمئة",
    "fa": "{} درصد", "bn": "{} শতাংশ", "az": "{} faiz", "ja": "{}パーセント", "ko": "{} 퍼센트", "th": "{}เปอร์เซ็นต์",
}  # fmt: skip
DEGREES: dict[str, Forms] = {
    "en": ("{} degree", "{} degrees"), "es": ("{} grado", "{} grados"), "fr": ("{} degré", "{} degrés"), "de": "{} Grad",
    "it": ("{} grado", "{} gradi"), "pt": ("{} grau", "{} graus"), "nl": "{} graden",
    "ru": ("{} градус", "{} градуса", "{} градусов"), "ja": "{}度",
}  # fmt: skip

# Money: currency → unit forms, minor unit forms, and the word joining the two amounts.
CURRENCY_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "USD": "USD", "EUR": "EUR", "GBP": "GBP", "JPY": "JPY"}


@dataclasses.dataclass(frozen=True)
class Money:
    """How one language reads amounts of money."""

    units: dict[str, Forms]
    cents: dict[str, Forms]
    joiner: str


MONEY: dict[str, Money] = {
    "en": Money(
        {"USD": ("{} dollar", "{} dollars"), "EUR": ("{} euro", "{} euros"), "GBP": ("{} pound", "{} pounds"), "JPY": "{} yen"},
        {"USD": ("{} cent", "{} cents"), "EUR": ("{} cent", "{} cents"), "GBP": ("{} penny", "{} pence")},
        " and ",
    ),
    "es": Money(
        {"USD": ("{} dólar", "{} dólares"), "EUR": ("{} euro", "{} euros"), "GBP": ("{} libra", "{} libras"), "JPY": "{} yenes"},
        {"USD": ("{} centavo", "{} centavos"), "EUR": ("{} céntimo", "{} céntimos"), "GBP": ("{} penique", "{} peniques")},
        " con ",
    ),
    "fr": Money(
        {"USD": ("{} dollar", "{} dollars"), "EUR": ("{} euro", "{} euros"), "GBP": ("{} livre", "{} livres"), "JPY": "{} yens"},
        {"USD": ("{} cent", "{} cents"), "EUR": ("{} centime", "{} centimes"), "GBP": "{} pence"},
        " et ",
    ),
    "de": Money(
        {"USD": "{} Dollar", "EUR": "{} Euro", "GBP": "{} Pfund", "JPY": "{} Yen"},
        {"USD": "{} Cent", "EUR": "{} Cent", "GBP": "{} Pence"},
        " und ",
    ),
    "it": Money(
        {"USD": ("{} dollaro", "{} dollari"), "EUR": "{} euro", "GBP": ("{} sterlina", "{} sterline"), "JPY": "{} yen"},
        {"USD": ("{} centesimo", "{} centesimi"), "EUR": ("{} centesimo", "{} centesimi"), "GBP": "{} penny"},
        " e ",
    ),
    "pt": Money(
        {"USD": ("{} dólar", "{} dólares"), "EUR": ("{} euro", "{} euros"), "GBP": ("{} libra", "{} libras"), "JPY": "{} ienes"},
        {"USD": ("{} centavo", "{} centavos"), "EUR": ("{} cêntimo", "{} cêntimos"), "GBP": "{} pence"},
        " e ",
    ),
    "nl": Money(
        {"USD": "{} dollar", "EUR": "{} euro", "GBP": "{} pond", "JPY": "{} yen"},
        {"USD": "{} cent", "EUR": "{} cent", "GBP": "{} pence"},
        " en ",
    ),
    "ru": Money(
        {
            "USD": ("{} доллар", "{} доллара", "{} долларов"),
            "EUR": "{} евро",
            "GBP": ("{} фунт", "{} фунта", "{} фунтов"),
            "JPY": ("{} иена", "{} иены", "{} иен"),
        },
        {"USD": ("{} цент", "{} цента", "{} центов"), "EUR": ("{} цент", "{} цента", "{} центов")},
        " ",
    ),
    "ja": Money(
        {"USD": "{}ドル", "EUR": "{}ユーロ", "GBP": "{}ポンド", "JPY": "{}円"},
        {"USD": "{}セント", "EUR": "{}セント"},
        "",
    ),
}
#: Scale words an amount of money may carry (``€1.5 million``), as a regex alternation.
SCALE_WORDS = (
    r"thousand|million|billion|trillion|mil|mill[oó]n(?:es)?|millions?|milliards?|Million(?:en)?|Milliarden?"
    r"|milion[ei]|miliard[io]|milh(?:ão|ões)|bilh(?:ão|ões)|miljoen|miljard|тысяч[аи]?|миллион(?:а|ов)?|миллиард(?:а|ов)?"
)

# Clock times: (with minutes, on the hour).
CLOCK: dict[str, tuple[str, str]] = {
    "en": ("{h} {m}", "{h} o'clock"), "de": ("{h} Uhr {m}", "{h} Uhr"), "fr": ("{h} {u} {m}", "{h} {u}"),
    "es": ("{h} y {m}", "{h} en punto"), "it": ("{h} e {m}", "{h}"), "pt": ("{h} e {m}", "{h} horas"),
    "nl": ("{h} uur {m}", "{h} uur"), "ja": ("{h}時{m}分", "{h}時"),
}  # fmt: skip
#: Hour words that agree with the feminine hora/heure: (masculine, feminine) endings.
FEMININE_HOURS = {"es": (("uno", "una"),), "pt": (("um", "uma"), ("dois", "duas")), "fr": (("un", "une"),)}

#: Words a German ordinal (``3. Oktober``) stands before; elsewhere ``3.`` ends a sentence.
_DE_ORDINAL_NEXT = (
    "Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|Jahrhundert|Jahrtausend|Mal|Platz"
)

#: Ordinal marks: a regex of (digits)(mark) per language; de only before months and a few nouns.
ORDINALS: dict[str, str] = {
    "en": r"(\d+)(st|nd|rd|th)\b",
    "fr": r"(\d+)(ers?|res?|ère|ème|eme|e|nde?)(?!\w)",
    "es": r"(\d+)\.?([ºª])",
    "it": r"(\d+)\.?([ºª])",
    "pt": r"(\d+)\.?([ºª])",
    "ca": r"(\d+)\.?([ºª])",
    "nl": r"(\d+)(ste|de|e)\b",
    "de": rf"(\d+)(\.)(?=\s(?:{_DE_ORDINAL_NEXT})\b)",
}
