"""English grammar and style with Quire (PyPI ``quire-grammar``: rules plus an ONNX edit tagger).

Slower than Harper (about 115 ms per 1,000 characters after warm-up) and
without spelling, so the CPU profile keeps it off by default; it catches
confusables and agreement Harper misses (then/than, there/they're). Its time
goes to the ONNX tagger, one 60-word window after another. Small matrices gain
little from a second intra-op thread, so the tagger gets a session with
``intra_op_threads`` (1) and texts reach it in chunks of about 500 characters
that the checker runs on both cores at once (Quire's rules are pure functions;
an ONNX Runtime session may be run from several threads): 95 ms instead of
116 ms for 1,000 characters on 2 cores. quire-grammar 0.3.4 has no session
options, so the session is built here from quire-grammar-model's files and put
in quire's model cache; should that internal change, Quire's own session is kept.
"""

from __future__ import annotations

import dataclasses
import logging

from pydantic import Field

from engines.grammar.base import GrammarEngine
from engines.grammar.equivalents import rule_id
from engines.grammar.types import CheckOptions, Issue, IssueType, Rule, Severity
from engines.options import EngineOptions

#: Quire category → (issue type, severity).
CATEGORIES: dict[str, tuple[IssueType, Severity]] = {
    "agreement": ("grammar", "error"),
    "confusable": ("grammar", "error"),
    "mechanics": ("grammar", "warning"),
    "punctuation": ("punctuation", "warning"),
    "style": ("style", "info"),
}
PREFIX = "EN_QUIRE"
log = logging.getLogger("mediatrans.grammar")


class QuireOptions(EngineOptions):
    """How sure Quire's tagger must be, and the threads it gets."""

    min_confidence: float = Field(0.6, ge=0, le=1, description="Model edits less confident than this are dropped.")
    intra_op_threads: int = Field(1, ge=1, description="ONNX Runtime intra-op threads of the edit tagger.")


class QuireEngine(GrammarEngine):
    """Quire in process: its rules, and its tagger on a session of our own."""

    name = "quire"
    priority = 20
    chunk_chars = 500
    Options = QuireOptions
    options: QuireOptions

    def start(self) -> None:
        import quire_grammar

        _tagger_threads(self.options.intra_op_threads)
        quire_grammar.check("A warm up sentence, so the model is loaded now.")

    def languages(self) -> frozenset[str]:
        return frozenset({"en", "en-US", "en-GB"})

    def rules(self) -> list[Rule]:
        from quire_grammar.registry import all_rules

        out: dict[str, Rule] = {}
        for rule in all_rules():
            catalogue_id = rule_id("quire", rule.id, PREFIX)
            kind, severity = CATEGORIES.get(rule.category, ("grammar", "warning"))
            description = f"Quire rule {rule.id} ({rule.category})."
            out.setdefault(
                catalogue_id, Rule(catalogue_id, kind, severity, description, self.name, ("en",), rule.enabled_by_default)
            )
        return list(out.values())

    def check(self, text: str, options: CheckOptions) -> list[Issue]:
        import quire_grammar

        found = quire_grammar.check(text, min_confidence=self.options.min_confidence)
        issues = []
        for c in found:
            kind, severity = CATEGORIES.get(c.category, ("grammar", "warning"))
            issues.append(
                Issue(
                    c.start,
                    c.end - c.start,
                    kind,
                    severity,
                    rule_id("quire", c.rule_id, PREFIX),
                    c.message,
                    tuple(c.suggestions[:3]),
                    self.name,
                )
            )
        return issues


def _tagger_threads(threads: int) -> None:
    """Give Quire's tagger an ONNX Runtime session with ``threads`` intra-op threads."""
    from quire_grammar import model

    loaded = model._model()
    if loaded is None or not dataclasses.is_dataclass(loaded) or not hasattr(loaded, "session"):
        log.warning("quire's tagger is not loaded the expected way; keeping its own session")
        return
    import onnxruntime
    import quire_grammar_model

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    path = str(quire_grammar_model.path() / "tagger.onnx")
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    model._cache = dataclasses.replace(loaded, session=session)
