"""English grammar and spelling with Harper (PyPI ``harper-py``: Rust, dictionary compiled in, no server).

A ``harper.Linter`` is not thread-safe, so each thread gets its own (built
once, about a second). Lints carry their rule name (``organized_lints``) and
a kind (``Agreement``, ``Spelling``...), mapped here to the API's issue type
and severity; rule names map to catalogue ids through ``equivalents.yaml``.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import Field

from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import rule_id
from engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from engines.options import EngineOptions

#: Harper lint kind → (issue type, severity). Unlisted kinds are grammar warnings.
KINDS: dict[str, tuple[IssueType, Severity]] = {
    "Spelling": ("spelling", "error"),
    "Typo": ("spelling", "error"),
    "Agreement": ("grammar", "error"),
    "Grammar": ("grammar", "error"),
    "BoundaryError": ("grammar", "error"),
    "Repetition": ("grammar", "warning"),
    "Capitalization": ("grammar", "warning"),
    "WordChoice": ("grammar", "warning"),
    "Usage": ("grammar", "warning"),
    "Eggcorn": ("grammar", "warning"),
    "Malapropism": ("grammar", "warning"),
    "Miscellaneous": ("grammar", "warning"),
    "Nonstandard": ("grammar", "warning"),
    "Punctuation": ("punctuation", "warning"),
    "Formatting": ("punctuation", "info"),
    "Style": ("style", "info"),
    "Readability": ("style", "info"),
    "Enhancement": ("style", "info"),
    "Regionalism": ("style", "info"),
    "Redundancy": ("wordiness", "info"),
}
PREFIX = "EN_HARPER"


class HarperOptions(EngineOptions):
    """Which of Harper's rules run."""

    disabled: tuple[str, ...] = Field((), description="Harper rule names to switch off (e.g. SpellCheck).")


class HarperEngine(GrammarEngine):
    """Harper in process, one linter per thread and dialect."""

    name = "harper"
    priority = 30
    Options = HarperOptions
    options: HarperOptions

    def __init__(self, options: HarperOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._local = threading.local()
        self._defaults: dict[str, bool] = {}

    def start(self) -> None:
        import harper

        self._defaults = harper.get_default_lint_config()
        self._linter("en")  # build the first one now, not on the first request

    def languages(self) -> frozenset[str]:
        return frozenset({"en", "en-US", "en-GB"})

    def rules(self) -> list[Rule]:
        out: dict[str, Rule] = {}
        for name, on in sorted(self._defaults.items()):
            catalogue_id = rule_id("harper", name, PREFIX)
            kind: IssueType = "spelling" if name == "SpellCheck" else "grammar"
            out.setdefault(catalogue_id, Rule(catalogue_id, kind, "warning", f"Harper rule {name}.", self.name, ("en",), on))
        return list(out.values())

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        linter = self._linter(options.lang)
        issues = []
        for name, lints in linter.organized_lints(text, language="plaintext").items():
            if name in self.options.disabled:
                continue
            catalogue_id = rule_id("harper", name, PREFIX)
            for lint in lints:
                kind, severity = KINDS.get(lint.lint_kind, ("grammar", "warning"))
                fixes = tuple(s.replacement_text for s in lint.suggestions[:3] if int(s.kind) in (0, 1))
                span = lint.span
                issues.append(
                    Issue(span.start, span.end - span.start, kind, severity, catalogue_id, lint.message, fixes, self.name)
                )
        return issues

    def _linter(self, lang: str) -> Any:
        import harper

        dialect = harper.Dialect.BRITISH if lang == "en-GB" else harper.Dialect.AMERICAN
        linters: dict[int, Any] = self._local.__dict__.setdefault("linters", {})
        if dialect not in linters:
            linter = harper.Linter(dialect)
            config: dict[str, bool | None] = dict(self._defaults)
            config.update({name: False for name in self.options.disabled if name in config})
            linter.set_lint_config(config)
            linters[dialect] = linter
        return linters[dialect]
