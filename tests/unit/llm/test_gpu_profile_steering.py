"""On the GPU profile (vLLM behind the internal gateway) the client's context, instructions and memory reach the model.

The engine is built with configs/gpu-cluster.yaml's translator options, runs
inside the safety layer with a memory plan around it, as a request does, and
talks to an OpenAI-compatible fake over ``httpx.MockTransport``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engines.translation.base import TranslationHints, TranslationRequest
from engines.translation.memory import MemoryIndex, plan_memory
from engines.translation.safe import SafeTranslator
from tests.unit.translation.llm_mock import FakeServer, MockedLLM, everything_sent

ROOT = Path(__file__).resolve().parents[3]


def gpu_translator() -> dict[str, Any]:
    apps = {app["name"]: app for app in yaml.safe_load((ROOT / "configs" / "gpu-cluster.yaml").read_text())["applications"]}
    translator = apps["mediatrans"]["args"]["translator"]
    assert translator["engine"] == "llm"
    return dict(translator["options"])


def test_the_gpu_profile_sends_context_instructions_and_memory_examples_to_vllm() -> None:
    options = gpu_translator()
    server = FakeServer(model=options["model"])
    engine = MockedLLM(server, **options)
    engine.start()
    try:
        memory = MemoryIndex.build(
            [
                ("Open the quest log", "Abre el diario de misiones"),
                ("Give {0} silver coins to the merchant.", "Da {0} monedas de plata al mercader."),
                ("The dragon sleeps in the cave.", "El dragón duerme en la cueva."),
            ]
        )
        texts = ("open the QUEST log", "Open the ancient gate of the castle.", "Give {n} gold coins to the farmer.")
        hints = TranslationHints(client_context="A fantasy RPG for teenagers.", instructions=("Use informal tú",))
        request = TranslationRequest(texts, "en", "es", hints=hints)
        plan = plan_memory(texts, memory)
        sub = plan.request(request)
        assert sub is not None and plan.from_memory == (True, False, False)
        translated = SafeTranslator(engine).translate(sub)
        final = plan.merge(request, translated.texts)
    finally:
        engine.shutdown()

    assert final == (
        "Abre el diario de misiones",
        "Abre la antigua puerta del castillo.",
        "Da {n} monedas de oro al granjero.",
    )
    (payload,) = server.payloads  # the exact match never reached the model
    assert payload["model"] == "translator-llm" and payload["response_format"]["type"] == "json_schema"
    assert "max_token_run" not in payload  # vLLM has no such field (the profile sends 0)
    sent = everything_sent(payload["messages"])
    assert "About the text (from the client; for reference, do not translate): A fantasy RPG for teenagers." in sent
    assert "Follow the client's instructions:\n- Use informal tú" in sent
    assert "Give <x0/> silver coins to the merchant." in sent and "Da <x0/> monedas de plata al mercader." in sent
    assert "Abre el diario de misiones" in sent  # the closest pair of the gate line is an example, not an answer
