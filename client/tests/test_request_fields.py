"""Every request field of the contract is a typed keyword argument of its method, and reaches the body under its name."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import pytest

from conftest import SERVICE_ROOT, LoopbackServer, Recorded, Reply
from mediatrans_client import AsyncClient, Client
from mediatrans_client import _async_resources as async_groups
from mediatrans_client import _sync_resources as sync_groups

CONTRACT = SERVICE_ROOT / "docs" / "api-contract.md"

#: Parameters that steer the client, not the request body.
CONTROL = {"self", "extra", "wait", "on_progress", "poll_interval", "timeout", "chunk_size", "output_path"}
#: Parameters that carry a body field under another name (a file part, or a URL in its place).
CARRIERS = {"path_or_url": ("file", "video_url"), "sample_path": ("sample",), "subtitle_file": ("subtitle_file",)}
#: The file parts, outside the service's form models.
FILE_PARTS = {"file", "subtitle_file"}
#: Fields the service accepts beyond the contract's tables (extensions), each still a keyword argument.
STEERING = {"context", "instructions", "glossary_ids", "memory_id"}  # steering a translation (docs/translation-memories.md)
EXTENSIONS = {
    "4.1": {"subtitle_preset", "additional_target_langs", "subtitle_file", *STEERING},
    "4.7": {"lang", "gender"},
    "4.9": {"glossary_id", *STEERING},
}

#: (endpoint group class, method name, contract section, the service's request model), sync and async.
METHODS: list[tuple[type, str, str, str]] = []
for sync_cls, async_cls, name, section, model in (
    (sync_groups.Video, async_groups.AsyncVideo, "translate", "4.1", "serve_app.schemas.video:VideoTranslateParams"),
    (sync_groups.Voices, async_groups.AsyncVoices, "clone", "4.3", "serve_app.schemas.voice:VoiceCloneParams"),
    (sync_groups.Speech, async_groups.AsyncSpeech, "stream", "4.7", "serve_app.schemas.tts:TtsRequest"),
    (sync_groups.Speech, async_groups.AsyncSpeech, "synthesize", "4.7", "serve_app.schemas.tts:TtsRequest"),
    (sync_groups.Grammar, async_groups.AsyncGrammar, "check", "4.10", "serve_app.schemas.grammar:GrammarCheckRequest"),
    (sync_groups.Game, async_groups.AsyncGame, "localize", "4.9", "serve_app.schemas.game:LocalizationRequest"),
):
    METHODS += [(sync_cls, name, section, model), (async_cls, name, section, model)]

IDS = [f"{cls.__name__}.{name}" for cls, name, _, _ in METHODS]


def body_fields(method: Callable[..., Any]) -> set[str]:
    """The body fields a method's parameters stand for."""
    fields: set[str] = set()
    for name in inspect.signature(method).parameters:
        if name not in CONTROL:
            fields.update(CARRIERS.get(name, (name,)))
    return fields


def contract_fields(section: str) -> set[str]:
    """The request fields section ``section`` of docs/api-contract.md lists (its tables, or 4.7's sentence)."""
    text = CONTRACT.read_text(encoding="utf-8")
    start = text.index(f"\n### {section} ")
    following = re.compile(r"\n#{2,3} ").search(text, start + 1)
    body = text[start : following.start() if following else len(text)]
    names = set(re.findall(r"^\| ([a-z_]+) \| ", body, flags=re.MULTILINE))
    if section == "4.7":  # no table: "passed as the voice field of POST /v1/tts ..., together with fields a, b and c."
        names |= set(re.findall(r"passed as the (\w+) field of POST /v1/tts", body))
        listed = re.search(r"together with fields ([\w, ]+?)\.", body)
        assert listed is not None
        names |= {name.strip() for name in re.split(r",| and ", listed.group(1)) if name.strip()}
    assert names, f"no fields found in contract section {section}"
    return names


def service_model(path: str) -> Any:
    """The service's pydantic request model (the client itself never imports the service)."""
    if str(SERVICE_ROOT) not in sys.path:
        sys.path.insert(0, str(SERVICE_ROOT))
    module_name, _, attribute = path.partition(":")
    module = pytest.importorskip(module_name)
    return getattr(module, attribute)


@pytest.mark.parametrize(("cls", "name", "section", "model"), METHODS, ids=IDS)
def test_every_contract_field_is_a_keyword_argument(cls: type, name: str, section: str, model: str) -> None:
    method = getattr(cls, name)
    missing = contract_fields(section) - body_fields(method)
    assert not missing, f"{cls.__name__}.{name} lacks contract fields {sorted(missing)}"
    unknown = body_fields(method) - contract_fields(section) - EXTENSIONS.get(section, set())
    assert not unknown, f"{cls.__name__}.{name} has parameters the contract does not name: {sorted(unknown)}"


@pytest.mark.parametrize(("cls", "name", "section", "model"), METHODS, ids=IDS)
def test_the_keyword_arguments_match_the_service_request_model(cls: type, name: str, section: str, model: str) -> None:
    accepted = set(service_model(model).model_fields)
    offered = body_fields(getattr(cls, name)) - FILE_PARTS  # the uploads are file parts, outside the form model
    assert offered == accepted, f"client only: {sorted(offered - accepted)}; service only: {sorted(accepted - offered)}"


@pytest.mark.parametrize(("cls", "name", "section", "model"), METHODS, ids=IDS)
def test_optional_fields_are_typed_keyword_only_and_default_to_none(cls: type, name: str, section: str, model: str) -> None:
    parameters = inspect.signature(getattr(cls, name)).parameters
    keyword_only = [p for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in CONTROL]
    assert keyword_only, "the optional fields are keyword-only"
    assert not [p for p in parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD], "no untyped **fields"
    for parameter in keyword_only:
        assert parameter.annotation is not inspect.Parameter.empty, parameter.name
        required = parameter.default is inspect.Parameter.empty
        if parameter.name in ("target_lang", "content_type"):  # required by the contract (content_type defaults to ui)
            continue
        assert not required and parameter.default is None, f"{parameter.name} defaults to {parameter.default!r}"
    extra = parameters.get("extra")
    assert extra is not None and extra.default is None, "an extra= escape hatch for extension fields"


def _sent_body(request: Recorded) -> dict[str, Any]:
    if request.headers.get("content-type", "").startswith("application/json"):
        return dict(json.loads(request.body))
    return {name: values[0] for name, values in parse_qs(request.body.decode(), keep_blank_values=True).items()}


def _serve_every_endpoint(server: LoopbackServer) -> None:
    server.route("POST", "/v1/video/translate")(lambda r: Reply(200, {"task_id": "t1", "status": "queued"}))
    server.route("POST", "/v1/voice/clone")(lambda r: Reply(200, {"voice_id": "v1", "status": "ready"}))
    server.route("POST", "/v1/tts")(lambda r: Reply(200, b"RIFF....", {"Content-Type": "audio/wav"}))
    server.route("POST", "/v1/grammar")(lambda r: Reply(200, {"original": "x", "issues": [], "issues_count": 0}))
    server.route("POST", "/v1/game/localization")(lambda r: Reply(200, {"original": "x", "translations": {}}))


def test_every_keyword_argument_reaches_the_body_under_its_name(server: LoopbackServer, client: Client) -> None:
    _serve_every_endpoint(server)
    calls: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
        ("/v1/video/translate", client.video.translate, {"path_or_url": "https://cdn.example.com/v.mp4"}),
        ("/v1/voice/clone", client.voice.clone, {"sample_path": "https://cdn.example.com/s.wav"}),
        ("/v1/tts", lambda **kw: b"".join(client.tts.stream(**kw)), {}),
        ("/v1/grammar", client.grammar.check, {}),
        ("/v1/game/localization", client.game.localize, {}),
    ]
    signatures = {
        "/v1/video/translate": client.video.translate,
        "/v1/voice/clone": client.voice.clone,
        "/v1/tts": client.tts.stream,
        "/v1/grammar": client.grammar.check,
        "/v1/game/localization": client.game.localize,
    }
    for path, call, carried in calls:
        names = [n for n in inspect.signature(signatures[path]).parameters if n not in CONTROL and n not in CARRIERS]
        call(**carried, **{n: f"v:{n}" for n in names}, extra={"x_extension": "on"})
        sent = _sent_body(server.requests_to("POST", path)[-1])
        expected = {n: f"v:{n}" for n in names} | {"x_extension": "on"}
        assert {k: v for k, v in sent.items() if k in expected} == expected, path
        assert set(sent) - set(expected) <= {"video_url", "sample"}, path


def test_unset_fields_are_left_out_and_extra_goes_over_them(server: LoopbackServer, client: Client) -> None:
    _serve_every_endpoint(server)
    client.video.translate("https://cdn.example.com/v.mp4", target_lang="es")
    assert _sent_body(server.requests_to("POST", "/v1/video/translate")[-1]) == {
        "target_lang": "es",
        "video_url": "https://cdn.example.com/v.mp4",
    }
    client.grammar.check("Text.", check_types=("spelling", "grammar"), auto_correct=False, extra={"auto_correct": True})
    assert json.loads(server.requests_to("POST", "/v1/grammar")[-1].body) == {
        "text": "Text.",
        "check_types": ["spelling", "grammar"],
        "auto_correct": True,
    }
    with pytest.raises(TypeError):
        client.game.localize("Start", "en", ["fr"], tone_of_voice="epic")  # type: ignore[call-arg]


def test_the_async_methods_send_the_same_bodies(server: LoopbackServer) -> None:
    _serve_every_endpoint(server)

    async def run() -> None:
        async with AsyncClient(server.base_url, "tok") as client:
            await client.game.localize("Start", "en", ("fr", "ja"), genre="rpg", max_length=12, extra={"x": 1})
            chunks = [chunk async for chunk in client.tts.stream("Hi.", "v1", speed=1.5, output_format="wav")]
            assert b"".join(chunks) == b"RIFF...."

    asyncio.run(run())
    assert json.loads(server.requests_to("POST", "/v1/game/localization")[-1].body) == {
        "text": "Start",
        "content_type": "ui",
        "source_lang": "en",
        "target_langs": ["fr", "ja"],
        "genre": "rpg",
        "max_length": 12,
        "x": 1,
    }
    assert json.loads(server.requests_to("POST", "/v1/tts")[-1].body) == {
        "text": "Hi.",
        "voice": "v1",
        "speed": 1.5,
        "output_format": "wav",
    }
