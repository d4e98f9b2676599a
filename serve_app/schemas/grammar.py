"""Schemas of ``POST /v1/grammar`` (contract 2.5, 4.10) and ``GET /v1/grammar/rules`` (extension)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.specs.languages import LanguageCode
from engines.grammar.checker import Catalogue, GrammarRequest, GrammarResult
from engines.grammar.types import ISSUE_TYPES

MAX_TEXT_CHARS = 50_000
IssueTypeName = Literal["spelling", "grammar", "punctuation", "style", "wordiness"]
SeverityName = Literal["info", "warning", "error"]


class GrammarCheckRequest(BaseModel):
    # A JSON body: booleans must be booleans (no `"yes"` or `1` for auto_correct).
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(description="At most 50,000 characters (413 3001 beyond).")
    lang: LanguageCode | None = Field(
        None, description="Omitted or auto: detected among the grammar languages (less accurate under 10 characters)."
    )
    auto_correct: bool = Field(False, description="Return `corrected`: every suggested replacement applied.")
    check_types: list[IssueTypeName] | None = Field(None, description="Default: all five types (another value: 400 1003).")
    severity: SeverityName = Field("warning", description="Lowest severity returned.")
    disable_rules: list[str] = Field(
        default_factory=list, max_length=500, description="Rule ids (GET /v1/grammar/rules; unknown: 400 1006)."
    )
    domain: Literal["general", "academic", "business", "casual"] = "general"

    def to_engine_request(self, lang: str | None) -> GrammarRequest:
        """The engines' request; ``lang`` is the grammar language resolved by the edge (None: detect)."""
        return GrammarRequest(
            text=self.text,
            lang=lang,
            auto_correct=self.auto_correct,
            check_types=frozenset(self.check_types or ISSUE_TYPES),
            min_severity=self.severity,
            disabled_rules=frozenset(self.disable_rules),
            domain=self.domain,
        )


class GrammarIssue(BaseModel):
    type: IssueTypeName
    offset: int = Field(description="Code points from the start of the original text.")
    length: int = Field(description="In code points.")
    wrong: str = Field(description="Exactly text[offset:offset+length].")
    correct: str | None
    severity: SeverityName
    message: str
    rule_id: str


class GrammarCheckResponse(BaseModel):
    original: str
    corrected: str | None
    issues: list[GrammarIssue]
    issues_count: int
    lang: str
    quality_score: float = Field(description="0-100: 100·e^(−10·W/N), W = severity-weighted issues, N = words.")

    @classmethod
    def from_result(cls, text: str, result: GrammarResult) -> GrammarCheckResponse:
        """The answer for ``text``: each issue with its wrong span; ``corrected`` only when something was found."""
        issues = [
            {
                "type": i.type,
                "offset": i.offset,
                "length": i.length,
                "wrong": text[i.offset : i.end],
                "correct": i.replacements[0] if i.replacements else None,
                "severity": i.severity,
                "message": i.message,
                "rule_id": i.rule_id,
            }
            for i in result.issues
        ]
        return cls.model_validate(
            {
                "original": text,
                "corrected": result.corrected if issues else None,
                "issues": issues,
                "issues_count": len(issues),
                "lang": result.lang,
                "quality_score": result.quality_score,
            }
        )


class RulesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lang: LanguageCode | None = Field(None, description="Only rules that check this language.")
    type: IssueTypeName | None = Field(None, description="Only rules of this issue type.")


class RuleRecord(BaseModel):
    id: str
    type: IssueTypeName
    severity: SeverityName
    description: str
    engine: str
    languages: list[str] = Field(description="Languages it checks; empty: every grammar language.")
    default_on: bool
    category: str | None = Field(None, description="The engine's category of the rule (LanguageTool's TYPOS, GRAMMAR…).")


class GrammarLanguage(BaseModel):
    code: str
    spelling: bool
    grammar: bool
    style: bool = Field(description="Style and wordiness rules (LanguageTool's, or a domain-aware pack).")
    engines: list[str]
    types: list[IssueTypeName] = Field(description="Issue types some rule checks in this language.")


class RulesResponse(BaseModel):
    rules: list[RuleRecord]
    total: int
    languages: list[GrammarLanguage] = Field(description="Every language POST /v1/grammar checks.")

    @classmethod
    def from_catalogue(cls, catalogue: Catalogue, lang: str | None, issue_type: str | None) -> RulesResponse:
        """The rules checking ``lang`` (None: any) of ``issue_type`` (None: any), and every language.

        A variant (``pt-BR``) has its language's rules and its own, not another variant's; a language (``pt``)
        has the rules of every variant it may be checked in."""
        rules = [r for r in catalogue.rules if (lang is None or r.serves(lang)) and (issue_type is None or r.type == issue_type)]
        return cls.model_validate(
            {
                "rules": [{**r.__dict__, "languages": list(r.languages), "category": r.category or None} for r in rules],
                "total": len(rules),
                "languages": [{**s.__dict__, "engines": list(s.engines), "types": list(s.types)} for s in catalogue.languages],
            }
        )
