"""Language identification restricted to the languages the grammar engines check.

langid.py (PyPI ``langid``: a small naive-Bayes model compiled in, fast and
light) is limited to the supported languages, so it never answers a language
the service cannot check. Texts under about ten letters carry little signal;
the answer is the likeliest supported language all the same (the contract says
detection is less accurate there).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any


class LanguageDetector:
    def __init__(self, languages: Iterable[str]) -> None:
        from langid.langid import LanguageIdentifier, model

        self._identifier: Any = LanguageIdentifier.from_modelstring(model, norm_probs=True)
        known = set(self._identifier.nb_classes)
        self.languages = sorted({code.split("-")[0] for code in languages} & known)
        if not self.languages:
            raise ValueError("no supported language is known to the language identifier")
        self._identifier.set_languages(self.languages)
        self._lock = threading.Lock()

    def detect(self, text: str) -> tuple[str, float]:
        """The likeliest supported language of ``text`` and its probability."""
        with self._lock:
            code, probability = self._identifier.classify(text)
        return str(code), float(probability)
