"""French grammar and spelling with Grammalecte (Debian ``python3-grammalecte``).

Grammalecte is packaged for the system Python, not the virtualenv, so it runs
in a long-lived worker process (``grammalecte_worker.py`` under ``python``,
default ``/usr/bin/python3``) that answers JSON lines. Requests are serialised
on one worker (it checks a paragraph in milliseconds); a worker that died is
restarted on the next request. Rule names map to ``FR_GRAMMALECTE_<NAME>``
(see ``equivalents.yaml``); Grammalecte's option groups map to issue types.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable
from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import rule_id
from engines.grammar.line_worker import LineWorker
from engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from engines.options import EngineOptions

WORKER = Path(__file__).with_name("grammalecte_worker.py")
PREFIX = "FR_GRAMMALECTE"

#: Grammalecte option group (error ``sType``) → (issue type, severity). Unlisted: grammar warning.
GROUPS: dict[str, tuple[IssueType, Severity]] = {
    "spell": ("spelling", "error"),
    "typo": ("punctuation", "warning"),
    "esp": ("punctuation", "warning"),
    "nbsp": ("punctuation", "info"),
    "apos": ("punctuation", "info"),
    "tab": ("punctuation", "info"),
    "virg": ("punctuation", "warning"),
    "tu": ("punctuation", "warning"),
    "maj": ("grammar", "warning"),
    "num": ("punctuation", "info"),
    "gn": ("grammar", "error"),
    "conj": ("grammar", "error"),
    "infi": ("grammar", "error"),
    "ppas": ("grammar", "error"),
    "imp": ("grammar", "error"),
    "inte": ("grammar", "error"),
    "vmode": ("grammar", "error"),
    "sgpl": ("grammar", "error"),
    "conf": ("grammar", "error"),
    "ocr": ("spelling", "warning"),
    "bs": ("style", "info"),
    "pleo": ("wordiness", "info"),
    "redon1": ("wordiness", "info"),
    "redon2": ("wordiness", "info"),
    "mc": ("style", "info"),
    "liga": ("punctuation", "info"),
    "date": ("grammar", "warning"),
}


def rule_name(grammalecte_id: str) -> str:
    """``g3__gn_les_1m__b3_a1_1`` → ``gn_les_1m``; regex rule ids are already names."""
    parts = grammalecte_id.split("__")
    return parts[1] if len(parts) >= 2 else parts[0]


class GrammalecteOptions(EngineOptions):
    """Where the worker's interpreter is and how long it may take."""

    python: str = Field("/usr/bin/python3", min_length=1, description="Interpreter that can import grammalecte.")
    timeout_s: float = Field(30.0, gt=0, description="Longest wait for one answer of the worker; then it is restarted.")


class GrammalecteEngine(GrammarEngine):
    """Grammalecte in a worker process of the system Python."""

    name = "grammalecte"
    priority = 30
    Options = GrammalecteOptions
    options: GrammalecteOptions

    def __init__(self, options: GrammalecteOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._worker: LineWorker | None = None
        self._lock = threading.Lock()
        self._rules: list[Rule] = []

    def start(self) -> None:
        with self._lock:
            self._spawn()
            reply = self._call({"rules": True})
        seen: dict[str, Rule] = {}
        for group, name in reply["rules"]:
            catalogue_id = rule_id("grammalecte", name, PREFIX)
            kind, severity = GROUPS.get(group, ("grammar", "warning"))
            seen.setdefault(
                catalogue_id, Rule(catalogue_id, kind, severity, f"Grammalecte rule {name} ({group}).", self.name, ("fr",))
            )
        seen.setdefault("SPELLING", Rule("SPELLING", "spelling", "error", "A word not in the dictionary.", self.name, ("fr",)))
        self._rules = list(seen.values())

    def languages(self) -> frozenset[str]:
        return frozenset({"fr", "fr-CA"})

    def rules(self) -> list[Rule]:
        return list(self._rules)

    def health(self) -> None:
        if self._worker is None or not self._worker.alive:
            raise EngineUnavailable("the Grammalecte worker is not running")

    def shutdown(self) -> None:
        if self._worker is not None:
            self._worker.stop()

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        with self._lock:
            if self._worker is None or not self._worker.alive:
                self._spawn()
            reply = self._call({"text": text})
        issues = []
        for e in reply["issues"]:
            kind, severity = GROUPS.get(e["kind"], ("grammar", "warning"))
            catalogue_id = rule_id("grammalecte", rule_name(e["rule"]), PREFIX)
            message = e["message"].replace("\u00a0", " ")
            issues.append(
                Issue(
                    e["start"], e["end"] - e["start"], kind, severity, catalogue_id, message, tuple(e["suggestions"]), self.name
                )
            )
        return issues

    def _spawn(self) -> None:
        # -I: the worker's folder (types.py) must not shadow the stdlib
        self._worker = LineWorker(
            [self.options.python, "-I", str(WORKER)], label="the Grammalecte worker", timeout_s=self.options.timeout_s
        )
        if not self._worker.ready.get("ready"):
            self._worker.stop()
            raise EngineUnavailable("the Grammalecte worker did not start (is python3-grammalecte installed?)")

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._worker is not None
        reply = self._worker.call(request)
        if "error" in reply:
            raise EngineFailure(f"Grammalecte failed: {reply['error']}")
        return reply
