"""Text made ready for speech: normalised per language and cut into sentences with pauses.

:func:`normalise` cleans what a voice cannot say (markup, emoji, control characters),
expands abbreviations (:mod:`.abbreviations`) and spells numbers out (:mod:`.numbers`); :func:`sentences`
normalises, then splits into the pieces an engine speaks one at a time, each with the
silence to leave after it — punctuation drives the pauses, no SSML needed.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import re
import unicodedata

from engines.errors import InvalidInput
from engines.text.sentences import split
from engines.tts.abbreviations import expand_abbreviations
from engines.tts.numbers import spell_numbers

#: Longest text accepted per request, in characters, before normalisation.
MAX_TEXT_CHARS = 5000

PAUSE_SENTENCE_S = 0.35  # after . … and other full stops
PAUSE_QUESTION_S = 0.4  # after ? and !
PAUSE_PARAGRAPH_S = 0.7  # at a blank line
PAUSE_CLAUSE_S = 0.15  # after a long sentence cut at , ; : — 、，
PAUSE_NONE_S = 0.0  # after a cut between words, and after the last piece

_ALIASES = {"nb": "no", "nn": "no", "iw": "he", "in": "id", "ji": "yi", "fil": "tl"}
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


def sentences(text: str, lang: str, max_chars: int = 300) -> list[Sentence]:
    """Normalise ``text`` and cut it into sentences of at most ``max_chars`` characters, with pauses.

    Sentences end where :func:`engines.text.sentences.split` says: at . ! ? … (not
    before a lowercase word or after an initial), at CJK 。！？, at the Devanagari danda and the
    Arabic/Urdu marks. Longer ones are cut at clause punctuation, then between words. Pieces
    without a letter or digit are dropped; empty input gives ``[]``.
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


#: A stream's first piece is cut short so audio starts sooner: a first sentence longer than
#: ``LEAD_MAX_CHARS`` is cut after its first clause (a clause mark between ``LEAD_MIN_CHARS`` and
#: ``LEAD_MAX_CHARS``), else after its first ``LEAD_WORDS`` words when at least two more follow.
LEAD_MIN_CHARS = 12
LEAD_MAX_CHARS = 48
LEAD_WORDS = 5


def lead_clause(pieces: list[Sentence]) -> list[Sentence]:
    """``pieces`` with the first one cut after its first clause or first few words (streaming's first chunk).

    Text without spaces and no early clause mark (Chinese, Japanese) is left whole.
    """
    if not pieces or len(pieces[0].text) <= LEAD_MAX_CHARS:
        return pieces
    first = pieces[0]
    text = first.text
    cuts = (m.end() for m in _CLAUSE_CUT.finditer(text))
    cut = next((c for c in cuts if LEAD_MIN_CHARS <= c <= LEAD_MAX_CHARS), None)
    pause = PAUSE_CLAUSE_S
    if cut is None:
        gaps = list(_WORD_CUT.finditer(text))
        if len(gaps) < LEAD_WORDS + 1:
            return pieces
        cut, pause = gaps[LEAD_WORDS - 1].end(), PAUSE_NONE_S
    head, tail = text[:cut].strip(), text[cut:].strip()
    if not (_speakable(head) and _speakable(tail)):
        return pieces
    return [Sentence(head, pause), Sentence(tail, first.pause_after_s), *pieces[1:]]


def _paragraph(paragraph: str, lang: str, max_chars: int) -> list[Sentence]:
    out: list[Sentence] = []
    for sentence, pause in _split_sentences(paragraph, lang):
        chunks = _fit(sentence, max_chars)
        out.extend(Sentence(chunk, _cut_pause(chunk)) for chunk in chunks[:-1])
        out.extend(Sentence(chunk, pause) for chunk in chunks[-1:])
    return out


def _split_sentences(paragraph: str, lang: str) -> list[tuple[str, float]]:
    """The paragraph's sentences (:func:`~engines.text.sentences.split`), each with its pause."""
    return [
        (paragraph[s.start : s.end], PAUSE_QUESTION_S if s.question else PAUSE_SENTENCE_S) for s in split(paragraph, lang=lang)
    ]


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
