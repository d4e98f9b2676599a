"""An LLMEngine over ``httpx.MockTransport``: an OpenAI-compatible fake that answers known Spanish and records payloads."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import httpx

from engines.translation.llm.engine import LLMEngine

#: What the fake answers for each source segment it recognises.
SPANISH = {
    "Open the ancient gate of the castle.": "Abre la antigua puerta del castillo.",
    "Bring the golden key to the old blacksmith.": "Lleva la llave dorada al viejo herrero.",
    "The dragon sleeps in the frozen cave.": "El dragón duerme en la cueva helada.",
    "Collect ten healing potions before the battle.": "Reúne diez pociones de curación antes de la batalla.",
    "Give <x0/> gold coins to the farmer.": "Da <x0/> monedas de oro al granjero.",
}

_SEGMENTS = re.compile(r"^Segments \((\d+)\):$", re.MULTILINE)


class FakeServer:
    """Answers ``/v1/models`` and chat completions; ``wrong_count_for`` batch sizes are answered one short."""

    def __init__(self, model: str = "stub", wrong_count_for: tuple[int, ...] = ()) -> None:
        self.model = model
        self.wrong_count_for = wrong_count_for
        self.payloads: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [{"id": self.model, "object": "model"}]})
        payload = json.loads(request.content)
        with self._lock:
            self.payloads.append(payload)
        asked = [m["content"] for m in payload["messages"] if m["role"] == "user"]
        ask = next(a for a in reversed(asked) if not a.startswith("Your answer could not be used"))  # a re-ask
        header = _SEGMENTS.search(ask)
        if header:
            count = int(header.group(1))
            lines = ask[header.end() :].strip("\n").splitlines()[:count]
            answers = [SPANISH[line.split(". ", 1)[1]] for line in lines]
            content = json.dumps({"translations": answers[: count - 1 if count in self.wrong_count_for else count]})
        elif "Text:\n" in ask:
            content = SPANISH[ask.split("Text:\n", 1)[1].split("\n", 1)[0]]
        else:
            content = SPANISH[ask.rsplit("\n\n", 1)[1]]
        body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}
        return httpx.Response(200, json=body)

    def asks(self) -> list[list[dict[str, str]]]:
        """The messages of every chat completion, in arrival order."""
        return [p["messages"] for p in self.payloads]


class MockedLLM(LLMEngine):
    """The real engine whose HTTP client talks to a ``FakeServer``."""

    def __init__(self, server: FakeServer, **options: Any) -> None:
        super().__init__(**{"model": server.model, "max_retries": 0, **options})
        self.server = server

    def _new_http_client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, transport=httpx.MockTransport(self.server))


def started(server: FakeServer, **options: Any) -> MockedLLM:
    engine = MockedLLM(server, **options)
    engine.start()
    return engine


def everything_sent(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)
