"""Translation memory retrieval: exact matches used verbatim, similar pairs shown to the LLM as examples.

A memory is a client's list of (source, target) pairs for one language
pair. ``MemoryIndex`` answers two questions about a segment:

* ``exact``: a pair whose source equals the segment once both are
  normalised (whitespace runs to one space, stripped, case-folded, NFC);
  its target is used as the translation without calling any engine;
* ``similar``: the pairs whose sources are closest to the segment by the
  cosine of character n-gram TF-IDF vectors (scikit-learn's
  ``TfidfVectorizer`` over word-bounded 3- to 5-grams, sublinear term
  frequency). The memory is kept inverted (per n-gram, the pairs holding
  it), so a query touches only the postings of its own n-grams: a
  10,000-pair memory answers in about a millisecond
  (``loadtests/bench_memory_retrieval.py``).

An index is immutable once built, so concurrent reads need no lock;
``cached_index`` keeps the few most recently used ones per process, keyed by
the memory's id and revision (a change makes a new revision, hence a new
index). ``plan_memory`` turns a request's texts into what the memory
settles (``memory_plan.MemoryPlan``).
"""

from __future__ import annotations

import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engines.translation.markup import find_spans, markup_counts
from engines.translation.memory_plan import MemoryPlan

__all__ = [
    "MemoryIndex",
    "MemoryMatch",
    "MemoryPlan",
    "cached_index",
    "has_words",
    "normalise",
    "plan_memory",
]

#: Indexes kept per process by ``cached_index``.
CACHE_SIZE = 8

#: The n-grams compared: word-bounded character 3- to 5-grams.
NGRAM_RANGE = (3, 5)


def normalise(text: str) -> str:
    """The form two sources are compared in: NFC, whitespace runs as one space, stripped, case-folded."""
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def has_words(text: str) -> bool:
    """False for a segment of placeholders, tags and punctuation only (it gets no examples)."""
    spans = find_spans(text)
    pos, rest = 0, []
    for span in spans:
        rest.append(text[pos : span.start])
        pos = span.end
    rest.append(text[pos:])
    return any(ch.isalnum() for ch in "".join(rest))


@dataclass(frozen=True)
class MemoryMatch:
    """A memory pair and how close its source is to the query (cosine, 0 to 1)."""

    source: str
    target: str
    score: float


@dataclass(frozen=True)
class _Vectors:
    """The fitted n-gram space and the memory in it, inverted: per n-gram, the pairs holding it and their weights."""

    analyze: Callable[[str], list[str]]  # text -> its n-grams (normalised first)
    vocabulary: dict[str, int]
    idf: np.ndarray
    indptr: np.ndarray  # postings of n-gram j: indices/data[indptr[j]:indptr[j + 1]]
    indices: np.ndarray  # pair numbers
    data: np.ndarray  # the pair's L2-normalised TF-IDF weight of the n-gram


class MemoryIndex:
    """The pairs of one memory revision, searchable by exact match and by similarity; read-only once built."""

    def __init__(self, sources: list[str], targets: list[str], vectors: _Vectors | None) -> None:
        self._sources = sources
        self._targets = targets
        self._exact = {normalise(source): i for i, source in enumerate(sources)}  # the last pair wins
        self._vectors = vectors  # None when no source has an n-gram

    @classmethod
    def build(cls, pairs: Sequence[tuple[str, str]]) -> MemoryIndex:
        """Index ``pairs`` (source, target); a later pair with the same normalised source replaces an earlier one."""
        sources = [source for source, _ in pairs]
        targets = [target for _, target in pairs]
        vectors = None
        if sources:
            from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: imported on the first build only

            vectorizer = TfidfVectorizer(
                analyzer="char_wb", ngram_range=NGRAM_RANGE, sublinear_tf=True, preprocessor=normalise, dtype=np.float64
            )
            try:
                matrix = vectorizer.fit_transform(sources)
            except ValueError:  # no source has a single n-gram (all empty or whitespace)
                pass
            else:
                postings = matrix.T.tocsr()
                vectors = _Vectors(
                    vectorizer.build_analyzer(),
                    dict(vectorizer.vocabulary_),
                    np.asarray(vectorizer.idf_, dtype=np.float64),
                    postings.indptr,
                    postings.indices,
                    postings.data,
                )
        return cls(sources, targets, vectors)

    def __len__(self) -> int:
        return len(self._sources)

    def exact(self, text: str) -> str | None:
        """The target of the pair whose source equals ``text`` after ``normalise``, or None."""
        match = self.exact_pair(text)
        return match[1] if match else None

    def exact_pair(self, text: str) -> tuple[str, str] | None:
        """The (source, target) pair ``exact`` answers from, or None."""
        i = self._exact.get(normalise(text))
        return None if i is None else (self._sources[i], self._targets[i])

    def similar(self, text: str, k: int = 5, min_score: float = 0.2) -> list[MemoryMatch]:
        """Up to ``k`` pairs whose sources score at least ``min_score`` against ``text``, best first.

        An exact match is included (as the best); a text of placeholders and punctuation only gets none.
        """
        if self._vectors is None or k <= 0 or not has_words(text):
            return []
        scores = self._scores(self._vectors, text)
        if scores is None:
            return []
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        top = top[np.lexsort((top, -scores[top]))]  # best first; ties in memory order
        return [
            MemoryMatch(self._sources[i], self._targets[i], round(float(scores[i]), 6))
            for i in top
            if scores[i] >= min_score and scores[i] > 0
        ]

    def similar_many(self, texts: Sequence[str], k: int = 5, min_score: float = 0.2) -> list[list[MemoryMatch]]:
        """``similar`` for each of ``texts``; texts equal once normalised are looked up once."""
        done: dict[str, list[MemoryMatch]] = {}
        for text in texts:
            key = normalise(text)
            if key not in done:
                done[key] = self.similar(text, k, min_score)
        return [list(done[normalise(text)]) for text in texts]

    def _scores(self, vectors: _Vectors, text: str) -> np.ndarray | None:
        """Cosine of ``text`` with every source: the query's n-gram weights summed over those n-grams' postings.

        The query vector is the one ``TfidfVectorizer.transform`` would make
        (sublinear TF times IDF, L2-normalised over known n-grams), built
        here without its per-call overhead; only the postings of the query's
        n-grams are touched.
        """
        counts = Counter(vectors.analyze(text))
        known = [(vectors.vocabulary[g], c) for g, c in counts.items() if g in vectors.vocabulary]
        if not known:
            return None
        ids = np.fromiter((j for j, _ in known), dtype=np.int64, count=len(known))
        weights = (1.0 + np.log(np.fromiter((c for _, c in known), dtype=np.float64, count=len(known)))) * vectors.idf[ids]
        weights /= np.linalg.norm(weights)
        starts, ends = vectors.indptr[ids], vectors.indptr[ids + 1]
        pairs = np.concatenate([vectors.indices[a:b] for a, b in zip(starts, ends, strict=True)])
        values = np.concatenate([vectors.data[a:b] for a, b in zip(starts, ends, strict=True)])
        return np.bincount(pairs, weights=values * np.repeat(weights, ends - starts), minlength=len(self._sources))


def warm_up() -> None:
    """Import what building an index needs (scikit-learn: seconds), so the first memory a process reads does not
    wait for it. Replicas that read memories run it in a thread at start."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: F401


_cache: OrderedDict[tuple[str, int], MemoryIndex] = OrderedDict()
_cache_lock = threading.Lock()
_building: dict[tuple[str, int], threading.Lock] = {}


def cached(key: tuple[str, int]) -> MemoryIndex | None:
    """The index of memory revision ``key`` if this process keeps it (nothing is loaded)."""
    with _cache_lock:
        index = _cache.get(key)
        if index is not None:
            _cache.move_to_end(key)
        return index


def cached_index(key: tuple[str, int], load: Callable[[], Sequence[tuple[str, str]]]) -> MemoryIndex:
    """The index of memory revision ``key`` (memory id, revision), built from ``load()`` on first use.

    The process keeps the ``CACHE_SIZE`` most recently used; concurrent
    callers of one key wait for a single build.
    """
    with _cache_lock:
        index = _cache.get(key)
        if index is not None:
            _cache.move_to_end(key)
            return index
        building = _building.setdefault(key, threading.Lock())
    with building:
        try:
            with _cache_lock:
                index = _cache.get(key)
            if index is None:
                index = MemoryIndex.build(load())
                with _cache_lock:
                    _cache[key] = index
                    while len(_cache) > CACHE_SIZE:
                        _cache.popitem(last=False)
        finally:
            with _cache_lock:
                _building.pop(key, None)
    return index


def plan_memory(texts: Sequence[str], index: MemoryIndex | None, k: int = 5) -> MemoryPlan:
    """What ``index`` settles for ``texts``: exact matches, and up to ``k`` example pairs for each other text.

    An exact match counts only when it carries the text's placeholders,
    tags and line breaks exactly (``{Name}`` is not ``{name}``).
    """
    empty: tuple[tuple[str, str], ...] = ()
    if index is None or len(index) == 0:
        return MemoryPlan({}, tuple(empty for _ in texts))
    exact: dict[int, str] = {}
    for i, text in enumerate(texts):
        pair = index.exact_pair(text) if text.strip() else None
        if pair is not None and markup_counts(pair[0].strip()) == markup_counts(text.strip()):
            exact[i] = pair[1]
    rest = [i for i in range(len(texts)) if i not in exact]
    found = index.similar_many([texts[i] for i in rest], k)
    examples = [empty] * len(texts)
    for i, matches in zip(rest, found, strict=True):
        examples[i] = tuple((m.source, m.target) for m in matches)
    return MemoryPlan(exact, tuple(examples))
