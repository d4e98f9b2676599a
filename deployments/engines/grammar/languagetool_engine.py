"""LanguageTool through a LanguageTool HTTP server (the GPU cluster image runs one).

The client is ``language-tool-python`` in remote mode (``remote_server=``): it
speaks LanguageTool's ``/v2`` API and turns its UTF-16 offsets into code
points. No jar is fetched: the server is configuration (``url``). Matches map to
the API's issue types by LanguageTool's issue type and category; rule ids map
through ``equivalents.yaml`` or become ``LT_<RULE_ID>``. LanguageTool's rule
set is open-ended, so any ``LT_*`` id is a valid ``disable_rules`` entry when
this engine is configured.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import Field, field_validator

from deployments.engines.errors import EngineUnavailable
from deployments.engines.grammar.base import GrammarEngine
from deployments.engines.grammar.equivalents import rule_id
from deployments.engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from deployments.engines.options import EngineOptions

PREFIX = "LT"
#: LanguageTool issue type → (issue type, severity).
ISSUE_TYPES: dict[str, tuple[IssueType, Severity]] = {
    "misspelling": ("spelling", "error"),
    "grammar": ("grammar", "error"),
    "typographical": ("punctuation", "warning"),
    "whitespace": ("punctuation", "info"),
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
    "PUNCTUATION": "punctuation",
    "TYPOGRAPHY": "punctuation",
    "REDUNDANCY": "wordiness",
    "PLAIN_ENGLISH": "wordiness",
    "STYLE": "style",
}
#: API code → LanguageTool language code.
LT_CODES = {"en": "en-US", "en-GB": "en-GB", "de": "de-DE", "pt": "pt-PT", "pt-BR": "pt-BR", "fr-CA": "fr", "es-MX": "es"}
DEFAULT_LANGUAGES = (
    "en",
    "en-GB",
    "fr",
    "de",
    "es",
    "it",
    "pt",
    "pt-BR",
    "nl",
    "pl",
    "ru",
    "uk",
    "ca",
    "sv",
    "da",
    "el",
    "ro",
    "sk",
    "sl",
)


class LanguageToolOptions(EngineOptions):
    """Which LanguageTool server to ask, for which languages."""

    url: str = Field(pattern=r"^https?://\S+$", description="The LanguageTool server, e.g. http://languagetool:8010 (required).")
    languages: tuple[str, ...] = Field(DEFAULT_LANGUAGES, min_length=1, description="API codes sent to the server.")

    @field_validator("url")
    @classmethod
    def _one_trailing_slash(cls, url: str) -> str:
        return url.rstrip("/") + "/"


class LanguageToolEngine(GrammarEngine):
    """A LanguageTool server through language-tool-python's remote mode."""

    name = "languagetool"
    priority = 25
    Options = LanguageToolOptions
    options: LanguageToolOptions

    def __init__(self, options: LanguageToolOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._languages = frozenset(self.options.languages)
        self._tools: dict[str, Any] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        self._tool("en" if "en" in self._languages else next(iter(self._languages)))

    def languages(self) -> frozenset[str]:
        return self._languages

    def rules(self) -> list[Rule]:
        description = "Any LanguageTool rule, as LT_<RULE_ID> (the server's rule set is open-ended)."
        return [Rule("LT_*", "grammar", "warning", description, self.name, tuple(sorted(self._languages)))]

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        with self._lock:  # the client keeps per-text offset state in class attributes
            try:
                matches = self._tool(options.lang).check(text)
            except Exception as exc:  # requests' and the client's errors: the server is down or refused
                raise EngineUnavailable(f"LanguageTool server at {self.options.url} failed: {type(exc).__name__}: {exc}") from exc
        return [self._issue(m) for m in matches]

    def _issue(self, match: Any) -> Issue:
        kind, severity = ISSUE_TYPES.get(match.rule_issue_type, ("grammar", "warning"))
        kind = CATEGORIES.get(match.category, kind)
        catalogue_id = rule_id("languagetool", match.rule_id, PREFIX)
        fixes = tuple(match.replacements[:3])
        return Issue(match.offset, match.error_length, kind, severity, catalogue_id, match.message, fixes, self.name)

    def _tool(self, lang: str) -> Any:
        code = LT_CODES.get(lang, lang.split("-")[0])
        if code not in self._tools:
            import language_tool_python

            try:
                self._tools[code] = language_tool_python.LanguageTool(code, remote_server=self.options.url)
            except Exception as exc:
                raise EngineUnavailable(
                    f"LanguageTool server at {self.options.url} unavailable: {type(exc).__name__}: {exc}"
                ) from exc
        return self._tools[code]
