"""Precision first: rules that fire on correct text are demoted below the default severity.

``configs/grammar/precision.yaml`` lists, per language, the rules of any engine
that flagged a sentence of the project's calibration corpus of correct text
(``tests/data/grammar/clean_calibration.yaml``; written by
``calibration/score_grammar.py --calibrate``). Their issues are reported as
``info``: hidden at the default ``severity: warning``, still there for
``severity: info``. The held-out corpus (``clean_scoring.yaml``) measures the
result. A spelling issue on a capitalised word inside a sentence (a name, a
brand, a place) is demoted the same way in every language but German (which
capitalises every noun): dictionaries miss
most names, and a wrong name is rarely what a grammar check is asked for.
Where two or more engines check a language's spelling (English: Harper and
LanguageTool; French: Grammalecte and LanguageTool; most others: Hunspell and
LanguageTool), a word only one of them rejects is demoted too: dictionaries
disagree on rare, new and borrowed words, and agree on typos.
A speller whose dictionary misses ordinary words of a language (it flagged
more than one calibration sentence in five there: Debian's Hindi and Swahili
dictionaries, for instance) has its spelling issues demoted in that language
(``spelling_info`` in the same file).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from pathlib import Path

import yaml

from engines.grammar.types import Issue

#: Languages that capitalise every noun: a capital says nothing about a name there.
CAPITALISED_NOUNS = frozenset({"de", "lb"})
PATH = Path(__file__).resolve().parents[2] / "configs" / "grammar" / "precision.yaml"


#: A speller that flags more than this share of a language's calibration sentences is demoted there.
NOISY_SPELLER_SHARE = 0.2


@functools.cache
def _table(key: str) -> dict[str, frozenset[str]]:
    if not PATH.is_file():
        return {}
    data = yaml.safe_load(PATH.read_text(encoding="utf-8")) or {}
    return {str(lang): frozenset(names or ()) for lang, names in (data.get(key) or {}).items()}


def demoted_rules() -> dict[str, frozenset[str]]:
    """Language → rule ids demoted to ``info`` there ("*" for every language)."""
    return _table("demote")


def noisy_spellers() -> dict[str, frozenset[str]]:
    """Language → engines whose spelling issues are demoted to ``info`` there."""
    return _table("spelling_info")


def _for(table: dict[str, frozenset[str]], lang: str) -> frozenset[str]:
    return table.get(lang.split("-")[0], frozenset()) | table.get(lang, frozenset()) | table.get("*", frozenset())


def apply(
    issues: Iterable[Issue], text: str, lang: str, spellers: frozenset[str] = frozenset(), *, calibrated: bool = True
) -> list[Issue]:
    """Issues with the demotions applied; ``spellers``: the engines checking spelling in ``lang``.

    ``calibrated=False`` leaves out what calibration wrote (the rule and speller tables), for calibrating anew.
    """
    issues = list(issues)
    demoted = _for(demoted_rules(), lang) if calibrated else frozenset()
    noisy = _for(noisy_spellers(), lang) if calibrated else frozenset()
    names = lang.split("-")[0] not in CAPITALISED_NOUNS
    out = []
    for issue in issues:
        alone = len(spellers) >= 2 and _unconfirmed_spelling(issue, issues)
        unreliable = issue.type == "spelling" and issue.engine in noisy
        if issue.severity != "info" and (
            issue.rule_id in demoted or alone or unreliable or (names and _name_spelling(issue, text))
        ):
            issue = dataclasses.replace(issue, severity="info")
        out.append(issue)
    return out


def _unconfirmed_spelling(issue: Issue, issues: list[Issue]) -> bool:
    """A spelling issue no other speller raised on an overlapping span."""
    if issue.type != "spelling":
        return False
    return not any(o.type == "spelling" and o.engine != issue.engine and o.overlaps(issue) for o in issues)


def _name_spelling(issue: Issue, text: str) -> bool:
    """A spelling issue on a word that starts with a capital and does not start a sentence."""
    if issue.type != "spelling" or issue.length == 0:
        return False
    word = text[issue.offset : issue.end]
    if not word[:1].isupper() or word.isupper():
        return False
    before = text[: issue.offset].rstrip()
    return bool(before) and before[-1] not in ".!?:;\"'«»„“”‘’¿¡()[]—–-…。！？\n"
