"""What grammar engines produce and take: issues, rules, check options.

Offsets and lengths are in Unicode code points of the text as given (Python
``str`` indices), so ``text[offset:offset + length]`` is always the issue's
``wrong`` text, whatever emoji, CJK or combining characters precede it.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

IssueType = Literal["spelling", "grammar", "punctuation", "style", "wordiness"]
Severity = Literal["info", "warning", "error"]
Domain = Literal["general", "academic", "business", "casual"]

ISSUE_TYPES: tuple[IssueType, ...] = ("spelling", "grammar", "punctuation", "style", "wordiness")
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class Issue:
    """One problem in the text.

    Attributes:
        offset, length: code points of the original text.
        type: spelling, grammar, punctuation, style or wordiness.
        severity: info, warning or error.
        rule_id: a stable id listed by the rule catalogue (``GET /v1/grammar/rules``).
        message: a human sentence.
        replacements: best first; empty when there is no single fix ("" deletes the span).
        engine: which engine found it (for merging and debugging; not in the API).
        also: shared catalogue ids this engine's rule is an instance of (``SPELLING`` for
            ``MORFOLOGIK_RULE_EN_US``): disabling one of them disables the issue too.
    """

    offset: int
    length: int
    type: IssueType
    severity: Severity
    rule_id: str
    message: str
    replacements: tuple[str, ...] = ()
    engine: str = ""
    also: tuple[str, ...] = ()

    @property
    def end(self) -> int:
        return self.offset + self.length

    def overlaps(self, other: Issue) -> bool:
        if self.length == 0 or other.length == 0:  # an insertion point collides only with the same point
            return self.offset == other.offset and self.length == other.length
        return self.offset < other.end and other.offset < self.end

    def shifted(self, by: int) -> Issue:
        return dataclasses.replace(self, offset=self.offset + by)


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rule of the catalogue.

    Attributes:
        id: stable across engines and releases (``REPEATED_WORD``, ``EN_HARPER_AN_A``...).
        type, severity: what its issues are (severity may be raised by the domain).
        languages: API codes it checks; empty means every grammar language.
        description: one sentence.
        engine: which engine runs it.
        default_on: whether it runs unless disabled.
        category: the engine's own category of the rule (LanguageTool's ``TYPOS``, ``GRAMMAR``…), when it has one.
    """

    id: str
    type: IssueType
    severity: Severity
    description: str
    engine: str
    languages: tuple[str, ...] = ()
    default_on: bool = True
    category: str = ""

    def serves(self, lang: str) -> bool:
        """Whether the rule checks ``lang``. A variant (``pt-BR``) has its language's rules unless a rule names
        variants of that language, then only those (``POSSESSIVE_WITHOUT_ARTICLE``: ``pt``, ``pt-PT``); a language
        (``pt``) has the rules of each of its variants."""
        if not self.languages or lang in self.languages:
            return True
        base = lang.split("-")[0]
        if base == lang:
            return any(code.split("-")[0] == lang for code in self.languages)
        return base in self.languages and not any(code.startswith(f"{base}-") for code in self.languages)


@dataclasses.dataclass(frozen=True)
class CheckOptions:
    """What the caller asked for (already validated)."""

    lang: str
    check_types: frozenset[str] = frozenset(ISSUE_TYPES)
    domain: Domain = "general"
    disabled_rules: frozenset[str] = frozenset()
