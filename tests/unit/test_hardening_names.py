"""Glossary and voice names (and descriptions) refuse control characters with 400 INVALID_PARAMETER."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from core.errors import ApiError, ErrorKind
from serve_app.bodies import parse_model
from serve_app.schemas.glossary import GlossaryCreate, GlossaryUpdate
from serve_app.schemas.voice import VoiceCloneParams, VoiceUpdate

#: Category Cc (C0, DEL, C1) and the Unicode line/paragraph separators.
CONTROLS = ["\x00", "\x1b", "\n", "\r", "\t", "\x07", "\x7f", "\x85", "\x9b", "\u2028", "\u2029"]
#: What a free-text description may still hold.
TEXT_WHITESPACE = ["\t", "\n", "\r"]

GLOSSARY = {"name": "ui-terms", "source_lang": "en", "target_lang": "es"}
CLONE = {"voice_name": "Narrator", "lang": "en"}

#: (model, valid body, name field): every model that sets a glossary or voice name.
NAMED: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    (GlossaryCreate, GLOSSARY, "name"),
    (GlossaryUpdate, {}, "name"),
    (VoiceCloneParams, CLONE, "voice_name"),
    (VoiceUpdate, {}, "voice_name"),
]
MODELS = pytest.mark.parametrize("model,body,field", NAMED, ids=[m.__name__ for m, _, _ in NAMED])


def refused(model: type[BaseModel], body: dict[str, Any]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        parse_model(model, body)
    return caught.value


@MODELS
@pytest.mark.parametrize("char", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_a_name_with_a_control_character_is_400_invalid_parameter(
    model: type[BaseModel], body: dict[str, Any], field: str, char: str
) -> None:
    error = refused(model, {**body, field: f"evil{char}name"})
    assert error.kind is ErrorKind.INVALID_PARAMETER
    assert error.details and error.details[0]["field"] == field
    assert "control characters" in error.details[0]["message"]
    assert char not in str(error), "the refused character is not echoed back"


@MODELS
@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x9b"], ids=["NUL", "ESC", "CSI"])
def test_a_description_with_a_control_character_is_refused(
    model: type[BaseModel], body: dict[str, Any], field: str, char: str
) -> None:
    error = refused(model, {**body, "description": f"line{char}[31m"})
    assert error.kind is ErrorKind.INVALID_PARAMETER
    assert error.details and error.details[0]["field"] == "description"


@MODELS
def test_ordinary_names_and_multiline_descriptions_still_pass(model: type[BaseModel], body: dict[str, Any], field: str) -> None:
    for name in ("Narrator (warm)", "Ñandú – voz", "日本語の声", "emoji 👩\u200d💻", "a b"):
        assert getattr(parse_model(model, {**body, field: name}), field) == name
    description = "first line\nsecond\tcolumn\r\n"
    assert parse_model(model, {**body, "description": description}).description == description  # type: ignore[attr-defined]
    assert parse_model(model, {**body, "description": None}).description is None  # type: ignore[attr-defined]


def test_multipart_clone_fields_are_checked_too() -> None:
    """The clone's multipart form goes through the same model as its JSON form."""
    from serve_app.voice_clone import _parse

    with pytest.raises(ApiError) as caught:
        _parse({"voice_name": "a\x1b]0;pwned\x07", "lang": "en"})
    assert caught.value.kind is ErrorKind.INVALID_PARAMETER
