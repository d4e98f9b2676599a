"""JSON request bodies: numbers are numbers and booleans booleans; form fields still arrive as strings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pydantic
import pytest
from redis.asyncio import Redis
from starlette.applications import Starlette

from core.accounts import AccountStore
from core.settings import AppArgs
from serve_app.asgi import create_app
from serve_app.schemas.game import LocalizationRequest
from serve_app.schemas.glossary import GlossaryCreate, GlossaryUpdate
from serve_app.schemas.grammar import GrammarCheckRequest
from serve_app.schemas.tts import TtsRequest
from serve_app.schemas.video import VideoTranslateParams
from serve_app.schemas.voice import VoiceCloneParams
from serve_app.services import Services

TTS = {"text": "Hello.", "lang": "en"}
GAME = {"text": "Start", "content_type": "ui", "source_lang": "en", "target_langs": ["fr"]}
GLOSSARY = {"name": "g", "source_lang": "en", "target_lang": "fr"}

REFUSED: list[tuple[type[pydantic.BaseModel], dict[str, Any]]] = [
    (TtsRequest, {**TTS, "speed": True}),
    (TtsRequest, {**TTS, "speed": "1.0"}),
    (TtsRequest, {**TTS, "emotion_intensity": False}),
    (TtsRequest, {**TTS, "emotion_intensity": "0.5"}),
    (LocalizationRequest, {**GAME, "max_length": "80"}),
    (LocalizationRequest, {**GAME, "max_length": True}),
    (GrammarCheckRequest, {"text": "x", "auto_correct": "true"}),
    (GrammarCheckRequest, {"text": "x", "auto_correct": 1}),
    (GlossaryCreate, {**GLOSSARY, "case_sensitive": "false"}),
    (GlossaryUpdate, {"case_sensitive": 0}),
]

ACCEPTED: list[tuple[type[pydantic.BaseModel], dict[str, Any]]] = [
    (TtsRequest, {**TTS, "speed": 1}),  # an integer is a number
    (TtsRequest, {**TTS, "speed": 1.5, "emotion_intensity": 0}),
    (LocalizationRequest, {**GAME, "max_length": 80}),
    (GrammarCheckRequest, {"text": "x", "auto_correct": True}),
    (GlossaryCreate, {**GLOSSARY, "case_sensitive": True, "entries": [{"source": "a", "target": "b"}]}),
]


@pytest.mark.parametrize(("model", "body"), REFUSED, ids=lambda v: str(v)[:40])
def test_json_bodies_refuse_look_alike_values(model: type[pydantic.BaseModel], body: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError):
        model.model_validate(body)


@pytest.mark.parametrize(("model", "body"), ACCEPTED, ids=lambda v: str(v)[:40])
def test_json_bodies_take_real_numbers_and_booleans(model: type[pydantic.BaseModel], body: dict[str, Any]) -> None:
    model.model_validate(body)


def test_form_fields_still_parse_from_strings() -> None:
    clone = VoiceCloneParams.model_validate({"voice_name": "v", "lang": "en", "enhance_quality": "true"})
    assert clone.enhance_quality is True
    video = VideoTranslateParams.model_validate({"target_lang": "fr", "bilingual": "true"})
    assert video.bilingual is True


@pytest.fixture
async def app(redis_client: Redis, redis_url: str, tmp_path: Path) -> AsyncIterator[Starlette]:
    args = AppArgs.model_validate({"redis_url": redis_url, "storage": {"root_dir": str(tmp_path / "files")}})
    services = Services.create(args, handles={}, probes={})
    yield create_app(services)
    await services.redis.aclose()


@pytest.mark.parametrize("speed", [True, "1.0"])
async def test_tts_speed_that_is_not_a_number_is_400_1001(app: Starlette, redis_client: Redis, speed: Any) -> None:
    store = AccountStore(redis_client)
    token = (await store.issue_token(await store.create("speaker"))).token
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post("/v1/tts", json={**TTS, "speed": speed}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 400
    assert response.json()["code"] == 1001
    assert "speed" in response.json()["message"]
