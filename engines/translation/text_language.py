"""The language of a text among given candidates, with langid (for subtitle files sent with ``source_lang=auto``).

langid's naive-Bayes model scores every language it knows; only the candidates (the languages the service
can translate from) are compared, and their scores are normalised among themselves, so a text is never
put in a language the service could not use. The identifier is the one ``engines.translation.langid_source``
builds once per process.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from engines.translation.langid_source import features, langid_identifier
from engines.translation.language_tables import LANGID_ALIASES

#: Characters of text scored: enough for a reliable guess, bounded cost on long files.
MAX_CHARS = 20_000


def detect_text_language(text: str, candidates: Iterable[str]) -> tuple[str, float] | None:
    """The most likely of ``candidates`` (service codes) for ``text`` and its probability among them, or None
    when the text has no letters or langid knows none of the candidates."""
    if not any(ch.isalpha() for ch in text):
        return None
    identifier = langid_identifier()
    classes = list(identifier.nb_classes)
    columns: dict[str, list[int]] = {}
    for code in dict.fromkeys(candidates):
        known = [classes.index(c) for c in LANGID_ALIASES.get(code, (code.split("-")[0],)) if c in classes]
        if known:
            columns[code] = known
    if not columns:
        return None
    scores = features(text[:MAX_CHARS]) @ identifier.nb_ptc + identifier.nb_pc
    best = {code: max(float(scores[i]) for i in index) for code, index in columns.items()}
    top = max(best.values())
    weights = {code: math.exp(score - top) for code, score in best.items()}
    code = max(weights, key=lambda c: weights[c])
    return code, weights[code] / sum(weights.values())
