"""Text made ready for speech: normalised per language and cut into sentences with pauses.

:func:`normalise` cleans what a voice cannot say (markup, emoji, control characters),
expands abbreviations and spells numbers out (:mod:`.numbers`); :func:`sentences`
normalises, then splits into the pieces an engine speaks one at a time, each with the
silence to leave after it — punctuation drives the pauses, no SSML needed.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import re
import unicodedata

from deployments.engines.errors import InvalidInput
from deployments.engines.tts.numbers import spell_numbers

#: Longest text accepted per request, in characters, before normalisation.
MAX_TEXT_CHARS = 5000

PAUSE_SENTENCE_S = 0.35  # after . … and other full stops
PAUSE_QUESTION_S = 0.4  # after ? and !
PAUSE_PARAGRAPH_S = 0.7  # at a blank line
PAUSE_CLAUSE_S = 0.15  # after a long sentence cut at , ; : — 、，
PAUSE_NONE_S = 0.0  # after a cut between words, and after the last piece

_ALIASES = {"nb": "no", "nn": "no", "iw": "he", "in": "id", "ji": "yi", "fil": "tl"}
_CLOSERS = "\"'”’»)]」』）"  # closing quotes and brackets that may follow a full stop
_CLOSERS_RE = re.escape(_CLOSERS)
_AND = {"en": "and", "es": "y", "fr": "et", "de": "und", "it": "e", "pt": "e", "nl": "en", "ru": "и", "pl": "i"}


@dataclasses.dataclass(frozen=True)
class Sentence:
    """One piece of text for the engine and the silence (seconds) to leave after it."""

    text: str
    pause_after_s: float


def language(lang: str) -> str:
    """``"pt-BR"`` → ``"pt"``: the ISO 639-1 code that the text rules are keyed by."""
    code = lang.strip().lower().replace("_", "-").split("-")[0]
    return _ALIASES.get(code, code)


def normalise(text: str, lang: str) -> str:
    """NFC, markup and emoji dropped, whitespace collapsed (blank lines kept), abbreviations and numbers spelt out.

    Raises:
        InvalidInput: ``text`` is longer than :data:`MAX_TEXT_CHARS`.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text has {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    code = language(lang)
    text = unicodedata.normalize("NFC", html.unescape(text))
    text = _collapse_whitespace(_drop_unspeakable(_strip_markup(text)))
    text = expand_abbreviations(text, code)
    if code in _AND:
        text = text.replace(" & ", f" {_AND[code]} ")
    text = re.sub(r" {2,}", " ", spell_numbers(text, code))
    if code != "fr":  # French typography keeps a space before ! ? ; :
        text = re.sub(r" +(?=[.,!?…;:](?:\s|$))", "", text)
    return text.strip()


_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLOCK_TAG = re.compile(r"</?(?:p|div|h[1-6]|li|ul|ol|tr|table|blockquote|section|article|header|footer)\b[^<>]*>", re.I)
_LINE_TAG = re.compile(r"<br\s*/?>", re.I)
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,500}>")
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_MD_LINE_MARK = re.compile(r"^[^\S\n]{0,3}(?:#{1,6}|>+|[-*+](?=\s))[^\S\n]*", re.M)
_MD_MARK = re.compile(r"[*_`~|]+")


def _strip_markup(text: str) -> str:
    """HTML tags (block tags become paragraph breaks) and Markdown marks; link texts are kept."""
    text = _COMMENT.sub(" ", text)
    text = _BLOCK_TAG.sub("\n\n", text)
    text = _TAG.sub(" ", _LINE_TAG.sub("\n", text))
    text = _MD_LINK.sub(r"\1", text)
    return _MD_MARK.sub(" ", _MD_LINE_MARK.sub("", text))


_KEPT_SYMBOLS = frozenset("°№")
_JOINERS = "\u200c\u200d"  # zero-width (non-)joiners shape Persian and Indic words: kept inside words


def _drop_unspeakable(text: str) -> str:
    """Emoji, pictographs, control and format characters, private-use and unassigned code points."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2029", "\n\n").replace("\u2028", "\n")
    text = "".join(_keep(ch) for ch in text)
    return re.sub(rf"(?:^|(?<=\s))[{_JOINERS}]+|[{_JOINERS}]+(?=\s|$)", "", text)


@functools.cache
def _keep(ch: str) -> str:
    category = unicodedata.category(ch)
    if category == "Cc":
        return " " if ch.isspace() and ch != "\n" else ch if ch == "\n" else ""
    if category == "Cf":
        return ch if ch in _JOINERS else ""
    if category in ("Co", "Cs", "Cn", "Me") or "\ufe00" <= ch <= "\ufe0f" or "\U0001f3fb" <= ch <= "\U0001f3ff":
        return ""
    if category == "So" and ch not in _KEPT_SYMBOLS:
        return " "
    return ch


def _collapse_whitespace(text: str) -> str:
    """Runs of spaces → one space; a blank line → ``"\\n\\n"`` (a paragraph); other line breaks → a space."""
    text = re.sub(r"[^\S\n]+", " ", text)
    text = re.sub(r" ?\n(?: ?\n)+ ?", "\n\n", text)
    text = re.sub(r"(?<!\n) ?\n ?(?!\n)", " ", text)
    return text.strip()


# Abbreviations, expanded so that the splitter does not end a sentence at their full stop.
# Titles and connectors stand before something, so never end a sentence; "may end" ones
# (etc., usw.) keep a full stop when the next word is capitalised; "before number" ones
# are only expanded before a digit.
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
_UPPER_NEXT = re.compile(rf"\s*[{_CLOSERS_RE}“‘«(]*[^\W\d_]")


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
    ends = kind == "may_end" and _ends_sentence(match.string, match.end())
    return expansion + ("." if ends else "")


def _ends_sentence(text: str, end: int) -> bool:
    """Whether a full stop at ``end`` also ends the sentence: the text ends or a capitalised word follows."""
    if not text[end:].strip():
        return True
    next_word = _UPPER_NEXT.match(text, end)
    return next_word is not None and next_word.group(0)[-1].isupper()


def _saint_or_street(match: re.Match[str]) -> str:
    """``St. Louis`` → Saint Louis; ``Main St.`` → Main Street."""
    before = match.string[: match.start()].rstrip().split(" ")[-1:]
    if before and before[0][:1].isupper() and before[0][-1:].isalpha():
        return "Street" + ("." if _ends_sentence(match.string, match.end()) else "")
    return "Saint"


def sentences(text: str, lang: str, max_chars: int = 300) -> list[Sentence]:
    """Normalise ``text`` and cut it into sentences of at most ``max_chars`` characters, with pauses.

    Sentences end at . ! ? … (not before a lowercase word or after an initial), at CJK 。！？,
    at the Devanagari danda and Arabic/Urdu marks. Longer ones are cut at clause punctuation, then
    between words. Pieces without a letter or digit are dropped; empty input gives ``[]``.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    code = language(lang)
    out: list[Sentence] = []
    for paragraph in normalise(text, lang).split("\n\n"):
        pieces = [piece for piece in _paragraph(paragraph, code, max_chars) if _speakable(piece.text)]
        if pieces:
            pieces[-1] = dataclasses.replace(pieces[-1], pause_after_s=PAUSE_PARAGRAPH_S)
        out.extend(pieces)
    if out:
        out[-1] = dataclasses.replace(out[-1], pause_after_s=PAUSE_NONE_S)
    return out


def _paragraph(paragraph: str, lang: str, max_chars: int) -> list[Sentence]:
    out: list[Sentence] = []
    for sentence, pause in _split_sentences(paragraph, lang):
        chunks = _fit(sentence, max_chars)
        out.extend(Sentence(chunk, _cut_pause(chunk)) for chunk in chunks[:-1])
        out.extend(Sentence(chunk, pause) for chunk in chunks[-1:])
    return out


_LATIN_END = re.compile(rf"[.!?…]+[{_CLOSERS_RE}]*(?=\s|$)")
_GREEK_END = re.compile(rf"[.!?…;]+[{_CLOSERS_RE}]*(?=\s|$)")  # NFC turns the Greek question mark into ";"
_SCRIPT_END = re.compile(rf"(?:[。！？]+|[।॥]+|[؟۔።။]+)[{_CLOSERS_RE}]*")
_QUESTION = frozenset("?!？！؟")


def _split_sentences(paragraph: str, lang: str) -> list[tuple[str, float]]:
    ends = [m for m in (_GREEK_END if lang == "el" else _LATIN_END).finditer(paragraph) if _is_sentence_end(m)]
    ends += list(_SCRIPT_END.finditer(paragraph))
    out: list[tuple[str, float]] = []
    start = 0
    for match in sorted(ends, key=lambda m: m.end()):
        if match.end() <= start:
            continue
        question = any(ch in _QUESTION for ch in match.group(0)) or (lang == "el" and ";" in match.group(0))
        out.append((paragraph[start : match.end()].strip(), PAUSE_QUESTION_S if question else PAUSE_SENTENCE_S))
        start = match.end()
    if paragraph[start:].strip():
        out.append((paragraph[start:].strip(), PAUSE_SENTENCE_S))
    return out


def _is_sentence_end(match: re.Match[str]) -> bool:
    """Not before a lowercase word (``Hmm... yes``), not after an initial (``J. K. Rowling``)."""
    text, start = match.string, match.start()
    after = text[match.end() :].lstrip().lstrip(_CLOSERS + "“‘«(")
    if after[:1].islower():
        return False
    initial = match.group(0) == "." and start >= 1 and text[start - 1].isupper()
    return not (initial and (start == 1 or text[start - 2] in " .\n"))


_CLAUSE_CUT = re.compile(r"[,;:،؛](?=\s)\s*|[—–]\s*|[、，；：]\s*")
_WORD_CUT = re.compile(r"\s+")
_CLAUSE_MARKS = ",;:،؛—–、，；："


def _fit(text: str, max_chars: int, level: int = 0) -> list[str]:
    """``text`` in pieces of at most ``max_chars``: cut at clause marks, then spaces, then (one huge word) anywhere."""
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    if level == 2:
        return _hard_cut(text, max_chars)
    cuts = [m.end() for m in (_CLAUSE_CUT, _WORD_CUT)[level].finditer(text)]
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)]) if b > a]
    out: list[str] = []
    current = ""
    for piece in pieces:
        if current and len((current + piece).strip()) > max_chars:
            out.extend(_fit(current, max_chars, level + 1))
            current = ""
        current += piece
    out.extend(_fit(current, max_chars, level + 1))
    return out


def _hard_cut(text: str, max_chars: int) -> list[str]:
    """A run without spaces (CJK, a URL) cut every ``max_chars``, never before a combining mark."""
    out: list[str] = []
    while len(text) > max_chars:
        cut = max_chars
        while cut > 1 and unicodedata.category(text[cut])[0] == "M":
            cut -= 1
        out.append(text[:cut])
        text = text[cut:]
    return [*out, text] if text else out


def _cut_pause(chunk: str) -> float:
    return PAUSE_CLAUSE_S if chunk[-1:] in _CLAUSE_MARKS else PAUSE_NONE_S


def _speakable(text: str) -> bool:
    return any(ch.isalnum() for ch in text)
