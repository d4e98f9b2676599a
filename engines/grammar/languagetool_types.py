"""LanguageTool's vocabulary → the API's: issue types, severities, language codes, messages.

Shared by the in-process engine (lingotweaker) and the LanguageTool server client.
The type comes from the rule's category where that says more than LanguageTool's
issue type (a confusable's issue type is "misspelling", its category
CONFUSED_WORDS: a grammar issue); documented in docs/grammar.md.
"""

from __future__ import annotations

import re

from engines.grammar.types import IssueType, Severity

#: LanguageTool issue type → (issue type, severity).
ISSUE_TYPES: dict[str, tuple[IssueType, Severity]] = {
    "misspelling": ("spelling", "error"),
    "grammar": ("grammar", "error"),
    "typographical": ("punctuation", "warning"),
    "whitespace": ("punctuation", "warning"),
    "style": ("style", "info"),
    "register": ("style", "info"),
    "locale-violation": ("style", "info"),
    "duplication": ("grammar", "warning"),
    "inconsistency": ("grammar", "warning"),
    "uncategorized": ("grammar", "warning"),
}
#: LanguageTool category → issue type, where the category says more than the issue type.
CATEGORIES: dict[str, IssueType] = {
    "TYPOS": "spelling",
    "GRAMMAR": "grammar",
    "CONFUSED_WORDS": "grammar",
    "CASING": "grammar",
    "PUNCTUATION": "punctuation",
    "TYPOGRAPHY": "punctuation",
    "REDUNDANCY": "wordiness",
    "WORDINESS": "wordiness",
    "PLAIN_ENGLISH": "wordiness",
    "STYLE": "style",
    "COLLOQUIALISMS": "style",
    "REGIONALISMS": "style",
    "SEMANTICS": "grammar",
}
#: Severity of each API type when LanguageTool gives no better hint.
SEVERITIES: dict[IssueType, Severity] = {
    "spelling": "error",
    "grammar": "error",
    "punctuation": "warning",
    "style": "info",
    "wordiness": "info",
}
#: API code → LanguageTool language code (a code not listed is its language's). A bare ``en``/``pt`` is its
#: default variant (``engines/grammar/variants.py``); the grammar checker passes the resolved variant.
LT_CODES = {
    "en": "en-US",
    "en-US": "en-US",
    "en-GB": "en-GB",
    "de": "de-DE",
    "pt": "pt-BR",
    "pt-BR": "pt-BR",
    "pt-PT": "pt-PT",
    "nl-BE": "nl-BE",
    "fr-CA": "fr",
    "es-MX": "es",
    "zh-CN": "zh-CN",
    "zh-TW": "zh-CN",
    "ru": "ru-RU",
    "uk": "uk-UA",
    "pl": "pl-PL",
    "el": "el-GR",
    "ro": "ro-RO",
    "sk": "sk-SK",
    "sl": "sl-SI",
    "ca": "ca-ES",
    "ja": "ja-JP",
    "zh": "zh-CN",
    "is": "is-IS",
    "tl": "tl-PH",
    "lt": "lt-LT",
}

_SUGGESTION = re.compile(r"<suggestion>(.*?)</suggestion>")


#: Words in a language's own category ids (REDUNDANCY_PT_PT, STYLE_...) → issue type.
CATEGORY_WORDS: tuple[tuple[str, IssueType], ...] = (
    ("REDUNDAN", "wordiness"),
    ("WORDINESS", "wordiness"),
    ("SHORTEN", "wordiness"),
    ("STYLE", "style"),
    ("CLARITY", "style"),
    ("COLLOQUIAL", "style"),
    ("TYPO", "spelling"),
    ("PUNCT", "punctuation"),
)


def classify(issue_type: str, category: str) -> tuple[IssueType, Severity]:
    """(issue type, severity) of a LanguageTool match or rule."""
    kind, severity = ISSUE_TYPES.get(issue_type, ("grammar", "warning"))
    by_category = CATEGORIES.get(category) or next((t for word, t in CATEGORY_WORDS if word in category), None)
    if by_category is not None and by_category != kind:
        kind = by_category
        severity = "warning" if issue_type in ("duplication", "inconsistency") else SEVERITIES[kind]
    elif kind == "spelling" and category not in ("TYPOS", ""):  # "misspelling" of a rule outside TYPOS: a wrong word
        kind, severity = "grammar", "error"
    return kind, severity


#: LanguageTool codes that name a variant with rules and a speller of its own in a lingotweaker data pack:
#: the engine loads them as ``Engine(language, variant=code)`` (given as a language, the variant is ignored).
LT_VARIANTS = frozenset({"en-US", "en-GB", "pt-BR", "pt-PT", "nl-BE"})


def lt_code(lang: str) -> str:
    return LT_CODES.get(lang, lang.split("-")[0])


def lt_engine_args(lang: str) -> tuple[str, ...]:
    """The lingotweaker worker's arguments for API code ``lang``: the LanguageTool language, then its variant."""
    code = lt_code(lang)
    return (code.split("-")[0], code) if code in LT_VARIANTS else (code,)


def plain_message(message: str) -> str:
    """LanguageTool marks suggestions inside messages with tags: shown as quotes."""
    return _SUGGESTION.sub("\u201c\\1\u201d", message)
