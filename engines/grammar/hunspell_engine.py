"""Spelling in ~40 languages with Hunspell dictionaries (Debian ``hunspell-*`` and ``myspell-*`` packages).

pyhunspell (PyPI ``hunspell``) binds libhunspell, the library LibreOffice and
Firefox use; every configured dictionary is loaded at start (about 5 s and
110 MB for 35), and each is used under a lock (libhunspell objects are not
thread-safe). Words come from
:func:`~engines.grammar.text.words`, which leaves out URLs,
e-mail addresses, placeholders and markup; numbers, single letters, words in
capitals (acronyms) and words with inner capitals (brand names, code) are not
checked either. Dictionaries in a legacy 8-bit charset (pl, sl, lt, el, et, ...)
cannot hold every character: a word with a letter outside it (a foreign name,
"Muñoz" in Polish) is not checked, and suggestions, which pyhunspell decodes as
Latin-1, are re-decoded in the dictionary's charset.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from engines.errors import EngineUnavailable
from engines.grammar.base import GrammarEngine
from engines.grammar.text import words
from engines.grammar.types import CheckOptions, Issue, Rule
from engines.options import EngineOptions, ProjectPath

#: API code → dictionary name under ``dictionary_dir`` (Debian names). A bare code with variants is its
#: default variant's (``pt``: ``pt_BR``; engines/grammar/variants.py); codes naming one file share it.
DICTIONARIES: dict[str, str] = {
    "af": "af_ZA", "ar": "ar", "bg": "bg_BG", "bn": "bn_BD", "ca": "ca", "cs": "cs_CZ", "da": "da_DK",
    "de": "de_DE", "el": "el_GR", "en": "en_US", "en-US": "en_US", "en-GB": "en_GB", "es": "es_ES", "et": "et_EE",
    "fr": "fr_FR", "he": "he_IL", "hi": "hi_IN", "hr": "hr_HR", "hu": "hu_HU", "id": "id_ID", "is": "is_IS",
    "it": "it_IT", "ko": "ko_KR", "lt": "lt_LT", "lv": "lv_LV", "nl": "nl_NL", "no": "nb_NO", "pl": "pl_PL",
    "pt": "pt_BR", "pt-BR": "pt_BR", "pt-PT": "pt_PT", "ro": "ro_RO", "ru": "ru_RU", "sk": "sk_SK", "sl": "sl_SI",
    "sq": "sq_AL", "sr": "sr_RS", "sv": "sv_SE", "sw": "sw_TZ", "tl": "tl", "tr": "tr_TR", "uk": "uk_UA",
    "vi": "vi_VN",
}  # fmt: skip
#: Languages that write compound nouns as one word the dictionary lacks, with their particles attached
#: (Korean 시의회는 = 시 + 의회 + 는): a word that splits into dictionary words is spelled right.
COMPOUNDING = frozenset({"ko"})

SPELLING = "SPELLING"
MAX_SUGGESTIONS = 3


class HunspellOptions(EngineOptions):
    """Where the dictionaries are and which languages to load."""

    dictionary_dir: ProjectPath = Field(
        "/usr/share/hunspell", min_length=1, description="Folder with <name>.dic and <name>.aff files (Debian names)."
    )
    languages: tuple[str, ...] | None = Field(
        None, description="API codes to load (see DICTIONARIES); unset or empty: every one whose dictionary is installed."
    )

    @field_validator("languages")
    @classmethod
    def _known(cls, codes: tuple[str, ...] | None) -> tuple[str, ...] | None:
        unknown = sorted(set(codes or ()) - set(DICTIONARIES))
        if unknown:
            raise ValueError(f"no Hunspell dictionary is known for {', '.join(unknown)}")
        return codes


class HunspellEngine(GrammarEngine):
    """Hunspell through pyhunspell, one dictionary per language."""

    name = "hunspell"
    priority = 10
    Options = HunspellOptions
    options: HunspellOptions

    def __init__(self, options: HunspellOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._available: dict[str, str] = {}
        self._loaded: dict[str, tuple[Any, threading.Lock]] = {}

    def start(self) -> None:
        import hunspell

        folder = Path(self.options.dictionary_dir)
        self._available = {
            code: DICTIONARIES[code]
            for code in self.options.languages or DICTIONARIES
            if (folder / f"{DICTIONARIES[code]}.dic").is_file()
        }
        if not self._available:
            raise EngineUnavailable(f"no Hunspell dictionary found in {folder}")
        by_file: dict[Path, tuple[Any, threading.Lock]] = {}
        for code, name in self._available.items():  # a few seconds at start, not on each language's first request
            base = folder / name
            real = (folder / f"{name}.dic").resolve()  # pt and pt-BR (es_MX → es_ES): one dictionary, loaded once
            if real not in by_file:
                by_file[real] = (hunspell.HunSpell(f"{base}.dic", f"{base}.aff"), threading.Lock())
            self._loaded[code] = by_file[real]

    def languages(self) -> frozenset[str]:
        return frozenset(self._available)

    def rules(self) -> list[Rule]:
        return [
            Rule(SPELLING, "spelling", "error", "A word not in the language's dictionary.", self.name, tuple(self._available))
        ]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "dictionaries": dict(self._available)}

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        speller, lock = self._speller(options.lang)
        charset = _charset(speller.get_dic_encoding())
        compounding = options.lang.split("-")[0] in COMPOUNDING
        issues = []
        with lock:
            for word in words(text):
                if unchecked_word(word.text) or _numeral_suffix(text, word.start) or not _encodable(word.text, charset):
                    continue
                if speller.spell(word.text) or _spelled_apart(speller, word.text):
                    continue
                if compounding and _compound(speller, word.text):
                    continue
                suggestions = tuple(s for s in _suggestions(speller, word.text, charset) if s != word.text)
                message = f"Possible spelling mistake: “{word.text}”."
                issues.append(
                    Issue(word.start, word.end - word.start, "spelling", "error", SPELLING, message, suggestions, self.name)
                )
        return issues

    def _speller(self, lang: str) -> tuple[Any, threading.Lock]:
        """A variant's dictionary, else its language's (``es-MX``: ``es``)."""
        return self._loaded[lang if lang in self._loaded else lang.split("-")[0]]


def _charset(name: str) -> str:
    """Hunspell's charset names as Python codecs (``ISO8859-2`` → ``iso8859-2``; ``microsoft-cp1251``...)."""
    return name.lower().replace("microsoft-", "")


def _encodable(word: str, charset: str) -> bool:
    try:
        word.replace("’", "'").encode(charset)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _suggestions(speller: Any, word: str, charset: str) -> list[str]:
    raw = speller.suggest(word)[:MAX_SUGGESTIONS]
    if charset in ("utf-8", "utf8"):
        return list(raw)
    return [s.encode("latin-1", "replace").decode(charset, "replace") for s in raw]


def _numeral_suffix(text: str, start: int) -> bool:
    """A case ending written after a number and an apostrophe (Turkish 07.15'te, 2019'da): part of the number."""
    return start >= 2 and text[start - 1] in "'’" and text[start - 2].isdigit()


def unchecked_word(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    if len(letters) < 2:
        return True
    if word.isupper():  # NATO, EU
        return True
    return any(c.isupper() for c in word[1:] if c.isalpha()) and not word.istitle()  # iPhone, McDonald, JavaScript


def _compound(speller: Any, word: str, parts: int = 3) -> bool:
    """``word`` is at most ``parts`` dictionary words written together (the last may carry a particle), one of
    any two of them at least two letters long: 공립학교를 = 공립 + 학교를, 홈팀은 = 홈 + 팀은."""
    if parts < 2:
        return False
    for cut in range(1, len(word)):
        head, tail = word[:cut], word[cut:]
        if (
            (len(head) >= 2 or len(tail) >= 2)
            and speller.spell(head)
            and (speller.spell(tail) or _compound(speller, tail, parts - 1))
        ):
            return True
    return False


def _spelled_apart(speller: Any, word: str) -> bool:
    """Hyphenated and apostrophed words whose parts are all words (co-operate, l'eau)."""
    parts = [p for p in word.replace("’", "'").replace("-", "'").split("'") if p]
    return len(parts) > 1 and all(len(p) == 1 or speller.spell(p) for p in parts)
