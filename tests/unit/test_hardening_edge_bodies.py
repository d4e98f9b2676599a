"""Malformed bodies at the edge: a 400 in the service's own words, never a 500 or a library's wording."""

from __future__ import annotations

from pathlib import Path

import httpx
import pydantic
import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from serve_app.bodies import read_json
from serve_app.middleware import RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception, validation_error
from serve_app.uploads import read_form

#: Library wording that must never reach a client.
LEAKS = ("codec", "can't decode", "set_int_max_str_digits", "integer string conversion", "Boundary length", "Expecting")


def make_app(upload_dir: Path) -> Starlette:
    async def form(request: Request) -> JSONResponse:
        body = await read_form(request, upload_dir)
        return JSONResponse({"fields": body.fields})

    async def json_body(request: Request) -> JSONResponse:
        return JSONResponse({"body": await read_json(request)})

    app = Starlette(
        routes=[
            Route("/v1/video/translate", form, methods=["POST"]),
            Route("/v1/voice/clone", form, methods=["POST"]),
            Route("/v1/game/localization", json_body, methods=["POST"]),
            Route("/v1/video/task/t1/revise", json_body, methods=["POST"]),
        ],
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(RequestContextMiddleware)
    return app


def client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False), base_url="http://t")


def assert_clean(message: str) -> None:
    assert not any(leak in message for leak in LEAKS), message


def multipart(boundary: str, name: str = "target_lang", value: str = "es") -> bytes:
    return f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n--{boundary}--\r\n'.encode()


@pytest.mark.parametrize(("path", "code"), [("/v1/video/translate", "INVALID_PARAMETER"), ("/v1/voice/clone", 1001)])
async def test_a_boundary_over_256_characters_is_a_400_not_a_500(tmp_path: Path, path: str, code: object) -> None:
    boundary = "b" * 300
    async with client(make_app(tmp_path)) as c:
        response = await c.post(
            path, content=multipart(boundary), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["message"] == "The multipart body is malformed."


async def test_a_well_formed_multipart_body_still_parses(tmp_path: Path) -> None:
    boundary = "b" * 256  # the longest the parser takes
    async with client(make_app(tmp_path)) as c:
        response = await c.post(
            "/v1/video/translate",
            content=multipart(boundary),
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
    assert response.status_code == 200 and response.json() == {"fields": {"target_lang": "es"}}


@pytest.mark.parametrize(
    "body",
    [b"garbage--xyz", b"--xyz\r\nno colon here\r\n\r\nv\r\n--xyz--\r\n", b"--xyzQ"],
    ids=["preamble", "header", "boundary"],
)
async def test_a_multipart_parse_error_is_said_in_the_services_words(tmp_path: Path, body: bytes) -> None:
    async with client(make_app(tmp_path)) as c:
        response = await c.post(
            "/v1/video/translate", content=body, headers={"Content-Type": "multipart/form-data; boundary=xyz"}
        )
    assert response.status_code == 400 and response.json()["code"] == "INVALID_PARAMETER"
    assert response.json()["message"] == "The multipart body is malformed."  # not "Found invalid character 32 …"


async def test_a_urlencoded_body_that_is_not_utf8(tmp_path: Path) -> None:
    async with client(make_app(tmp_path)) as c:
        response = await c.post(
            "/v1/video/translate", content=b"target_lang=\xff\xfe", headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
    assert response.status_code == 400 and response.json()["code"] == "INVALID_PARAMETER"
    assert response.json()["message"] == "The form body is not valid UTF-8."


async def test_a_urlencoded_body_with_too_many_fields(tmp_path: Path) -> None:
    body = "&".join(f"f{i}=v" for i in range(100)).encode()
    async with client(make_app(tmp_path)) as c:
        response = await c.post(
            "/v1/video/translate", content=body, headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
    assert response.status_code == 400
    assert response.json()["message"] == "A form may have at most 64 fields."


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"text": "\xff"}', "The body is not valid UTF-8."),
        (b'{"max_length": ' + b"9" * 5000 + b"}", "The body is not valid JSON: a number has too many digits."),
        (b'{"text": ', "The body is not valid JSON (line 1, column 10)."),
        (b"[" * 200_000, "The body is not valid JSON: it is nested too deeply."),
    ],
    ids=["utf8", "digits", "truncated", "nested"],
)
@pytest.mark.parametrize(("path", "code"), [("/v1/game/localization", 1001), ("/v1/video/task/t1/revise", "INVALID_PARAMETER")])
async def test_json_bodies_are_refused_in_the_services_words(
    tmp_path: Path, body: bytes, message: str, path: str, code: object
) -> None:
    async with client(make_app(tmp_path)) as c:
        response = await c.post(path, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["message"] == message


class Decoding(pydantic.BaseModel):
    """A model whose validators call a codec and ``int()``: their errors' text is the interpreter's."""

    raw: int = 0
    label: str = ""

    @pydantic.field_validator("raw", mode="before")
    @classmethod
    def _digits(cls, value: object) -> int:
        return int(str(value))

    @pydantic.field_validator("label", mode="before")
    @classmethod
    def _text(cls, value: object) -> str:
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"raw": "9" * 5000}, "Value is a number with too many digits."),
        ({"label": b"\xff\xfe"}, "Value is not valid UTF-8 text."),
    ],
    ids=["digits", "utf8"],
)
def test_validation_errors_do_not_carry_codec_or_digit_limit_wording(data: dict[str, object], expected: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        Decoding.model_validate(data)
    error = validation_error(caught.value)
    assert_clean(error.message)
    assert error.details[0]["message"] == expected
    assert error.message.endswith(expected)


def test_pydantics_own_messages_are_kept() -> None:
    class Typed(pydantic.BaseModel):
        n: int

    with pytest.raises(pydantic.ValidationError) as caught:
        Typed.model_validate({"n": "abc"})
    assert validation_error(caught.value).details[0]["message"].startswith("Input should be a valid integer")
