"""From every engine's issues to the answer: filter, resolve overlaps, correct, score.

Overlaps (documented in docs/grammar.md): no two issues cover one character.
Candidates are ranked by severity (error first), then engine priority
(Grammalecte and Harper 30, LanguageTool 25, Quire 20, Hunspell 10, our rules
0), then length (the longer span), then position and rule id; each is kept
unless it overlaps one kept before it. The result is sorted by offset. An issue
that other engines also flagged on exactly its span takes their suggestions
too, the ones most engines agree on first.
Filtering (check types, disabled rules, severity floor) happens first, so a
hidden issue never hides a visible one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping

from engines.grammar.types import Issue, severity_rank

#: Suggestions of each engine that count as its vote, and suggestions kept per issue.
SUGGESTION_VOTES = 3
MAX_SUGGESTIONS = 5
#: Severity weights of the quality score.
WEIGHTS = {"error": 1.0, "warning": 0.5, "info": 0.1}
#: How steeply the score falls with weighted issues per word (one error in 20 words: 61).
SCORE_STEEPNESS = 10.0


def select(
    issues: Iterable[Issue],
    *,
    check_types: frozenset[str],
    disabled: frozenset[str],
    min_severity: str,
    priorities: Mapping[str, int],
) -> list[Issue]:
    """The issues to report: filtered, without overlaps, in text order."""
    floor = severity_rank(min_severity)
    candidates = [
        _deduplicated(i)
        for i in issues
        if i.type in check_types
        and i.rule_id not in disabled
        and not disabled.intersection(i.also)
        and severity_rank(i.severity) >= floor
    ]
    candidates.sort(key=lambda i: (-severity_rank(i.severity), -priorities.get(i.engine, 0), -i.length, i.offset, i.rule_id))
    kept: list[Issue] = []
    for issue in candidates:
        if not any(issue.overlaps(k) for k in kept):
            kept.append(issue)
    return sorted((_best_suggestions(k, candidates) for k in kept), key=lambda i: (i.offset, i.length, i.rule_id))


def _best_suggestions(kept: Issue, candidates: list[Issue]) -> Issue:
    """The kept issue's suggestions, joined by those of other engines on the same span, the ones
    most engines agree on first (ties keep the kept engine's order)."""
    same = [c for c in candidates if c.offset == kept.offset and c.length == kept.length and c is not kept]
    if not same:
        return kept
    votes: dict[str, int] = {}
    for issue in [kept, *same]:
        for fix in issue.replacements[:SUGGESTION_VOTES]:
            votes[fix] = votes.get(fix, 0) + 1
    pool = list(dict.fromkeys([*kept.replacements, *(f for c in same for f in c.replacements)]))
    ranked = sorted(pool, key=lambda f: (-votes.get(f, 0), pool.index(f)))[:MAX_SUGGESTIONS]
    return kept if tuple(ranked) == kept.replacements else dataclasses.replace(kept, replacements=tuple(ranked))


def _deduplicated(issue: Issue) -> Issue:
    unique = tuple(dict.fromkeys(issue.replacements))
    return issue if unique == issue.replacements else dataclasses.replace(issue, replacements=unique)


def corrected(text: str, issues: list[Issue]) -> str:
    """``text`` with the first replacement of every issue applied, left to right (issues do not overlap)."""
    out: list[str] = []
    position = 0
    for issue in sorted(issues, key=lambda i: i.offset):
        if not issue.replacements or issue.offset < position:
            continue
        out.append(text[position : issue.offset])
        out.append(issue.replacements[0])
        position = issue.end
    out.append(text[position:])
    return "".join(out)


def quality_score(issues: list[Issue], word_count: int) -> float:
    """100 × e^(−10 × W / N): W the severity-weighted issue count, N the words (at least 1); 100 with no issue."""
    weighted = sum(WEIGHTS[i.severity] for i in issues)
    if weighted == 0:
        return 100.0
    return round(100.0 * math.exp(-SCORE_STEEPNESS * weighted / max(word_count, 1)), 1)
