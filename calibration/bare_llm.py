"""The bare-model reference for ``score_engines.py``: the same weights, none of the service's path.

One segment per call, a plain prompt, greedy decoding, the first line of the
answer taken as is: no batching, no JSON, no context lines, no output checks,
no re-asks, no placeholder protection. What the service scores against this
tells how much its own path adds or loses on a pair (docs/translation-scores.md).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from engines.llm.service_key import bearer_header, configured_key
from engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.languages import language_name

#: Engine name in the routing table; never a serving engine (the Translator does not know it).
NAME = "bare-llm"


def plain_prompt(text: str, source: str, target: str) -> list[dict[str, str]]:
    """The prompt anyone would write first."""
    ask = (
        f"Translate the following {language_name(source)} text into {language_name(target)}. "
        f"Reply with the translation only.\n\n{text}"
    )
    return [{"role": "user", "content": ask}]


class BareLLM(TranslatorEngine):
    """Translate each segment with ``plain_prompt`` on an OpenAI-compatible server."""

    name = NAME  # type: ignore[assignment]

    def __init__(self, base_url: str, pairs: frozenset[tuple[str, str]], model: str | None = None, parallel: int = 4) -> None:
        super().__init__()
        self._pairs = pairs
        self._model = model
        self._parallel = parallel
        headers = bearer_header(configured_key(None))
        self._http = httpx.Client(base_url=base_url.rstrip("/").removesuffix("/v1"), headers=headers, timeout=120)

    def start(self) -> None:
        if self._model is None:
            self._model = self._http.get("/v1/models").json()["data"][0]["id"]

    def shutdown(self) -> None:
        self._http.close()

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._pairs

    def translate(self, request: TranslationRequest) -> TranslationResult:
        with ThreadPoolExecutor(self._parallel) as pool:
            texts = tuple(pool.map(lambda t: self._one(t, request.source_lang, request.target_lang), request.texts))
        return TranslationResult(texts=texts, engine=self.name, route=(request.source_lang, request.target_lang))

    def _one(self, text: str, source: str, target: str) -> str:
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": plain_prompt(text, source, target),
            "temperature": 0.0,
            "max_tokens": 256,
        }
        response = self._http.post("/v1/chat/completions", json=payload)
        response.raise_for_status()
        answer = str(response.json()["choices"][0]["message"]["content"]).strip()
        return answer.splitlines()[0].strip() if answer else ""
