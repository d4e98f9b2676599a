"""Abbreviations spelt out for speech, per language, so that their full stops neither end a sentence nor get read.

Titles and connectors (``Dr.``, ``z. B.``) stand before something, so never end a sentence;
"may end" ones (``etc.``, ``usw.``) keep a full stop where a sentence follows them
(:func:`~engines.text.sentences.sentence_follows`); "before number" ones (``No.``)
are only expanded before a digit.
"""

from __future__ import annotations

import functools
import re

from engines.text.sentences import sentence_follows

_TITLES: dict[str, dict[str, str]] = {
    "en": {
        "Mr.": "Mister", "Mrs.": "Missus", "Ms.": "Miz", "Dr.": "Doctor", "Prof.": "Professor", "Mt.": "Mount",
        "e.g.": "for example", "i.e.": "that is", "vs.": "versus", "approx.": "approximately", "Fig.": "Figure",
        "Feb.": "February", "Aug.": "August", "Sept.": "September", "Oct.": "October",
        "Nov.": "November", "Dec.": "December",
    },
    "es": {
        "Sr.": "señor", "Sra.": "señora", "Srta.": "señorita", "Dr.": "doctor", "Dra.": "doctora", "Ud.": "usted",
        "Uds.": "ustedes", "Prof.": "profesor", "Dña.": "doña", "p. ej.": "por ejemplo", "aprox.": "aproximadamente",
        "pág.": "página", "Avda.": "avenida",
    },
    "fr": {
        "M.": "monsieur", "MM.": "messieurs", "Mme": "madame", "Mmes": "mesdames", "Mlle": "mademoiselle",
        "Mlles": "mesdemoiselles", "Dr": "docteur", "Dr.": "docteur", "p. ex.": "par exemple", "c.-à-d.": "c'est-à-dire",
        "env.": "environ", "av. J.-C.": "avant Jésus-Christ", "apr. J.-C.": "après Jésus-Christ",
    },
    "de": {
        "Dr.": "Doktor", "Prof.": "Professor", "Hr.": "Herr", "Fr.": "Frau", "St.": "Sankt", "z. B.": "zum Beispiel",
        "d. h.": "das heißt", "bzw.": "beziehungsweise", "ca.": "circa", "evtl.": "eventuell", "ggf.": "gegebenenfalls",
        "inkl.": "inklusive", "vgl.": "vergleiche", "Str.": "Straße", "bspw.": "beispielsweise", "sog.": "sogenannte",
        "Mio.": "Millionen", "Mrd.": "Milliarden",
    },
    "it": {
        "Sig.": "signor", "Sig.ra": "signora", "Sig.na": "signorina", "Dott.": "dottor", "Dott.ssa": "dottoressa",
        "Dr.": "dottor", "Prof.": "professor", "Prof.ssa": "professoressa", "Ing.": "ingegner", "Avv.": "avvocato",
        "es.": "per esempio", "pag.": "pagina",
    },
    "pt": {
        "Sr.": "senhor", "Sra.": "senhora", "Srta.": "senhorita", "Dr.": "doutor", "Dra.": "doutora", "Prof.": "professor",
        "Profa.": "professora", "p. ex.": "por exemplo", "pág.": "página", "Av.": "avenida", "aprox.": "aproximadamente",
    },
    "nl": {
        "dhr.": "de heer", "mevr.": "mevrouw", "Dr.": "dokter", "dr.": "dokter", "prof.": "professor",
        "bijv.": "bijvoorbeeld", "d.w.z.": "dat wil zeggen", "m.a.w.": "met andere woorden", "ca.": "circa",
        "blz.": "bladzijde", "t.o.v.": "ten opzichte van", "incl.": "inclusief", "evt.": "eventueel",
    },
    "ru": {"т. е.": "то есть", "т. к.": "так как", "напр.": "например", "см.": "смотри", "стр.": "страница"},
}  # fmt: skip
_MAY_END: dict[str, dict[str, str]] = {
    "en": {
        "etc.": "et cetera", "Inc.": "Incorporated", "Ltd.": "Limited", "Corp.": "Corporation", "Co.": "Company",
        "Jr.": "Junior", "Sr.": "Senior", "a.m.": "ay em", "p.m.": "pee em", "Ave.": "Avenue", "Blvd.": "Boulevard",
    },
    "es": {"etc.": "etcétera", "EE. UU.": "Estados Unidos"},
    "fr": {"etc.": "et cetera"},
    "de": {"usw.": "und so weiter", "u. a.": "unter anderem", "o. ä.": "oder Ähnliches", "o. Ä.": "oder Ähnliches"},
    "it": {"ecc.": "eccetera", "S.p.A.": "società per azioni"},
    "pt": {"etc.": "etcétera", "Ltda.": "limitada"},
    "nl": {"enz.": "enzovoort", "o.a.": "onder andere"},
    "ru": {"т. д.": "так далее", "т. п.": "тому подобное", "др.": "другие"},
}  # fmt: skip
_BEFORE_NUMBER: dict[str, dict[str, str]] = {
    "en": {"No.": "number", "no.": "number", "#": "number "},
    "es": {"n.º": "número", "nº": "número", "núm.": "número"},
    "fr": {"n°": "numéro", "nº": "numéro"},
    "de": {"Nr.": "Nummer"},
    "it": {"n.": "numero", "nº": "numero"},
    "pt": {"n.º": "número", "nº": "número"},
    "nl": {"nr.": "nummer"},
    "ru": {"№": "номер"},
}  # fmt: skip


@functools.cache
def _abbreviation_rules(lang: str) -> list[tuple[re.Pattern[str], str, str]]:
    """(pattern, expansion, kind) per abbreviation, longest first so ``av. J.-C.`` wins over ``av.``."""
    rules = [
        (abbreviation, expansion, kind)
        for kind, table in (("title", _TITLES), ("may_end", _MAY_END), ("number", _BEFORE_NUMBER))
        for abbreviation, expansion in table.get(lang, {}).items()
    ]
    rules += [(a[0].upper() + a[1:], e[0].upper() + e[1:], k) for a, e, k in rules if a[0].islower()]  # sentence start
    rules.sort(key=lambda rule: -len(rule[0]))
    return [(_abbreviation_pattern(abbreviation, kind), expansion, kind) for abbreviation, expansion, kind in rules]


def _abbreviation_pattern(abbreviation: str, kind: str) -> re.Pattern[str]:
    """``z. B.`` also matches ``z.B.``; words end at a boundary; ``M.`` only before a capitalised name."""
    parts = [part for part in re.split(r"(?<=\.)\s*", abbreviation) if part]
    body = r"\s?".join(re.escape(part) for part in parts)
    ahead = r"(?=\s?\d)" if kind == "number" else "" if abbreviation.endswith(".") else r"(?!\w)"
    if re.fullmatch(r"[A-Z]\.", abbreviation):
        ahead = r"(?=\s+[A-ZÀ-ÖØ-Þ])"
    return re.compile(rf"(?<![\w.]){body}{ahead}")


def expand_abbreviations(text: str, lang: str) -> str:
    """Spell out the language's common abbreviations (and en ``St.`` as Saint or Street)."""
    for pattern, expansion, kind in _abbreviation_rules(lang):
        text = pattern.sub(functools.partial(_expand, expansion=expansion, kind=kind), text)
    if lang == "en":
        text = re.sub(r"(?<![\w.])St\.", _saint_or_street, text)
    return text


def _expand(match: re.Match[str], expansion: str, kind: str) -> str:
    ends = kind == "may_end" and sentence_follows(match.string, match.end(), "capital")
    return expansion + ("." if ends else "")


def _saint_or_street(match: re.Match[str]) -> str:
    """``St. Louis`` → Saint Louis; ``Main St.`` → Main Street."""
    before = match.string[: match.start()].rstrip().split(" ")[-1:]
    if before and before[0][:1].isupper() and before[0][-1:].isalpha():
        return "Street" + ("." if sentence_follows(match.string, match.end(), "capital") else "")
    return "Saint"
