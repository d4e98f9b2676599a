"""LanguageTool through a LanguageTool HTTP server (engine ``languagetool-server``; optional).

Both profiles check with LanguageTool's rules in-process (``lingotweaker_engine.py``,
engine ``languagetool``); this client is for a site that already runs a
LanguageTool server and wants its Java-only rules. The client is
``language-tool-python`` in remote mode (``remote_server=``): it speaks
LanguageTool's ``/v2`` API and turns its UTF-16 offsets into code points. No jar
is fetched: the server is configuration (``url``). Matches map to the API's
issue types as the in-process engine's do (``languagetool_types.py``); rule ids
are LanguageTool's own. The server's rule set is open-ended, so any
upper-case LanguageTool id is a valid ``disable_rules`` entry when this engine
is configured.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import Field, field_validator

from engines.errors import EngineUnavailable
from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import shared_ids
from engines.grammar.languagetool_types import classify, lt_code
from engines.grammar.types import CheckOptions, Issue, Rule
from engines.options import EngineOptions

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

    name = "languagetool-server"
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
        description = "Any rule of the LanguageTool server, by its LanguageTool id (the server's rule set is open-ended)."
        return [Rule("*", "grammar", "warning", description, self.name, tuple(sorted(self._languages)))]

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        with self._lock:  # the client keeps per-text offset state in class attributes
            try:
                matches = self._tool(options.lang).check(text)
            except Exception as exc:  # requests' and the client's errors: the server is down or refused
                raise EngineUnavailable(f"LanguageTool server at {self.options.url} failed: {type(exc).__name__}: {exc}") from exc
        return [self._issue(m) for m in matches]

    def _issue(self, match: Any) -> Issue:
        kind, severity = classify(match.rule_issue_type, match.category)
        fixes = tuple(match.replacements[:5])
        also = shared_ids("languagetool", match.rule_id)
        return Issue(match.offset, match.error_length, kind, severity, match.rule_id, match.message, fixes, self.name, also)

    def _tool(self, lang: str) -> Any:
        code = lt_code(lang)
        if code not in self._tools:
            import language_tool_python

            try:
                self._tools[code] = language_tool_python.LanguageTool(code, remote_server=self.options.url)
            except Exception as exc:
                raise EngineUnavailable(
                    f"LanguageTool server at {self.options.url} unavailable: {type(exc).__name__}: {exc}"
                ) from exc
        return self._tools[code]
