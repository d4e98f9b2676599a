"""How likely langid finds an output to be in its source language, among the source, the target and the target's kin.

langid's identifier is built once per process, on first need (about two
seconds), and guarded by a lock. It is never narrowed with
``set_languages``, which would mutate shared state and cost most of a
millisecond per call; the candidate columns of its model are sliced once per
language pair and cached, and the restricted probabilities are computed from
them exactly as ``set_languages`` plus ``norm_probs`` would.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

from engines.translation.language_tables import KIN, LANGID_ALIASES

_identifier: Any = None
_identifier_lock = threading.Lock()
_columns: dict[tuple[str, str], tuple[Any, Any, int] | None] = {}


def source_probability(text: str, source: str, target: str) -> float:
    """langid's probability of the source language among source, target and the target's kin (0 when not comparable)."""
    columns = _candidates(source, target)
    if columns is None:
        return 0.0
    ptc, pc, n_source = columns
    identifier = _langid()
    with _identifier_lock:
        fv = identifier.instance2fv(text)
    log_probs = fv @ ptc + pc
    top = float(log_probs.max())
    weights = [math.exp(float(v) - top) for v in log_probs]
    return sum(weights[:n_source]) / sum(weights)


def langid_identifier() -> Any:
    """langid's identifier with normalised probabilities, built once per process (shared; see the module docstring)."""
    return _langid()


def features(text: str) -> Any:
    """langid's feature vector of ``text`` (under the identifier's lock)."""
    identifier = _langid()
    with _identifier_lock:
        return identifier.instance2fv(text)


def _langid() -> Any:
    global _identifier
    if _identifier is None:
        with _identifier_lock:
            if _identifier is None:
                from langid.langid import LanguageIdentifier, model

                _identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    return _identifier


def _langid_codes(code: str, known: Sequence[str]) -> tuple[str, ...]:
    return tuple(c for c in LANGID_ALIASES.get(code, (code,)) if c in known)


def _candidates(source: str, target: str) -> tuple[Any, Any, int] | None:
    """Model columns for (source codes first, then target and its kin), or None when not comparable."""
    key = (source, target)
    if key in _columns:
        return _columns[key]
    result = None
    identifier = _langid()
    classes = list(identifier.nb_classes)
    source_codes = _langid_codes(source, classes)
    target_codes = _langid_codes(target, classes)
    if source_codes and target_codes:
        kin = sorted(KIN.get(target, frozenset()) - {source, target})
        others = [c for k in (target, *kin) for c in _langid_codes(k, classes)]
        others = [c for c in dict.fromkeys(others) if c not in source_codes]
        index = [classes.index(c) for c in (*source_codes, *others)]
        import numpy as np

        result = (np.ascontiguousarray(identifier.nb_ptc[:, index]), identifier.nb_pc[index].copy(), len(source_codes))
    with _identifier_lock:
        _columns[key] = result
    return result
