"""The OpenAI-compatible HTTP surface of a local chat model: ``/v1/models`` and ``/v1/chat/completions``.

The same requests the GPU profile sends to Ray Serve LLM (vLLM) work here:
``response_format`` of type ``json_schema`` or ``json_object`` constrains
decoding with a grammar; ``temperature``, ``top_p``, ``seed``, ``stop``,
``frequency_penalty``, ``presence_penalty`` and ``max_tokens`` (or
``max_completion_tokens``) are honoured, and so is vLLM's ``ignore_eos``
(and this server's ``max_token_run``, which ends a loop); ``stream: true``
answers as server-sent events (the whole completion arrives as one delta,
because text is only made from whole token sequences). Errors use OpenAI's
``{"error": {...}}`` shape and a one-line message, never a traceback; a full
queue answers 429 with ``Retry-After``.

The endpoint is internal: every path needs the service key
(``service_key.py``), and a ``max_tokens`` over the server's ceiling is
refused with 400 rather than quietly cut, so a caller learns its budget is
not what it asked for.
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol

import pydantic
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from engines.llm.completion import ContextFull, Generated
from engines.llm.service_key import ServiceKeyMiddleware, warn_if_missing

log = logging.getLogger(__name__)

#: Seconds a client told to back off (429) should wait.
RETRY_AFTER_S = 1

#: How often a waiting request checks that its client is still connected.
DISCONNECT_POLL_S = 0.5

#: Completion tokens one request may ask for unless the server says otherwise.
DEFAULT_MAX_TOKENS_LIMIT = 2048

#: Longest message of an error body; longer ones are cut.
MAX_MESSAGE_CHARS = 300


class Message(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

    role: Literal["system", "user", "assistant", "developer", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """Plain text; content parts of type ``text`` are joined, others refused."""
        if self.content is None or isinstance(self.content, str):
            return self.content or ""
        parts = []
        for part in self.content:
            if part.get("type") != "text":
                raise ValueError(f"content part type {part.get('type')!r} is not supported")
            parts.append(str(part.get("text", "")))
        return "".join(parts)


class ChatRequest(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

    model: str | None = None
    messages: list[Message] = pydantic.Field(min_length=1)
    max_tokens: int | None = pydantic.Field(default=None, ge=1)
    max_completion_tokens: int | None = pydantic.Field(default=None, ge=1)
    temperature: float = pydantic.Field(default=1.0, ge=0.0, le=2.0)
    top_p: float = pydantic.Field(default=1.0, gt=0.0, le=1.0)
    seed: int | None = None
    stop: str | list[str] | None = None
    n: int = pydantic.Field(default=1, ge=1, le=1)
    stream: bool = False
    response_format: dict[str, Any] | None = None
    frequency_penalty: float = pydantic.Field(default=0.0, ge=-2.0, le=2.0)
    presence_penalty: float = pydantic.Field(default=0.0, ge=-2.0, le=2.0)
    #: vLLM's extension: keep generating past the end-of-text token up to the budget (benchmarks use it).
    ignore_eos: bool = False
    #: This server's extension: end the completion (finish reason ``length``) once its last this many tokens are
    #: one cycle repeated three times or more, a loop no answer needs (0: off). Servers without it ignore it.
    max_token_run: int = pydantic.Field(default=0, ge=0, le=4096)

    def stops(self) -> tuple[str, ...]:
        if self.stop is None:
            return ()
        return (self.stop,) if isinstance(self.stop, str) else tuple(s for s in self.stop if s)[:4]

    def completion_budget(self) -> tuple[str, int] | None:
        """The token budget asked for and the field that asked (``max_completion_tokens`` wins), if any."""
        if self.max_completion_tokens is not None:
            return "max_completion_tokens", self.max_completion_tokens
        if self.max_tokens is not None:
            return "max_tokens", self.max_tokens
        return None


class ChatBackend(Protocol):
    """What the HTTP layer needs from a model (``ChatModel`` or a replica wrapper)."""

    model_id: str

    async def complete(self, messages: list[dict[str, Any]], **options: Any) -> Generated: ...

    def load(self) -> dict[str, int]: ...


def error(
    status: int, message: str, kind: str, code: str | None = None, *, param: str | None = None, **headers: str
) -> JSONResponse:
    body = {"error": {"message": message[:MAX_MESSAGE_CHARS], "type": kind, "param": param, "code": code}}
    return JSONResponse(body, status_code=status, headers=headers or None)


def invalid_body(exc: pydantic.ValidationError) -> str:
    """What is wrong with a request body, field by field, without echoing the input or linking docs."""
    problems = []
    for item in exc.errors(include_url=False, include_input=False, include_context=False)[:3]:
        where = ".".join(str(part) for part in item["loc"])
        problems.append(f"{where}: {item['msg']}" if where else item["msg"])
    return "; ".join(problems) or "the request body is not valid"


def create_openai_app(
    backend: ChatBackend,
    *,
    api_key: str | None,
    max_waiting: int = 64,
    max_tokens_limit: int = DEFAULT_MAX_TOKENS_LIMIT,
) -> Starlette:
    """Starlette app serving ``/v1/models`` and ``/v1/chat/completions`` for ``backend``.

    ``api_key`` is the service key every request must carry; None refuses
    every request. ``max_tokens_limit`` is the largest completion budget a
    request may ask for.
    """

    async def models(request: Request) -> Response:
        item = {"id": backend.model_id, "object": "model", "created": 0, "owned_by": "mediatrans"}
        return JSONResponse({"object": "list", "data": [item]})

    async def chat(request: Request) -> Response:
        try:
            body = ChatRequest.model_validate_json(await request.body())
            messages = [{"role": m.role if m.role != "developer" else "system", "content": m.text()} for m in body.messages]
        except pydantic.ValidationError as exc:
            return error(400, invalid_body(exc), "invalid_request_error")
        except ValueError as exc:
            return error(400, str(exc), "invalid_request_error")
        if body.model not in (None, backend.model_id):
            return error(404, f"model {body.model!r} does not exist", "invalid_request_error", "model_not_found")
        budget = body.completion_budget()
        if budget is not None and budget[1] > max_tokens_limit:
            field, asked = budget
            message = f"{field} is too large: {asked}; this server allows at most {max_tokens_limit}"
            return error(400, message, "invalid_request_error", "invalid_value", param=field)
        if backend.load()["waiting"] >= max_waiting:
            return error(429, "too many requests waiting", "rate_limit_error", **{"Retry-After": str(RETRY_AFTER_S)})
        completion_task = asyncio.ensure_future(
            backend.complete(
                messages,
                max_tokens=body.max_completion_tokens or body.max_tokens,
                temperature=body.temperature,
                top_p=body.top_p,
                seed=body.seed if body.seed is not None else 0,
                stop=body.stops(),
                response_format=body.response_format,
                ignore_eos=body.ignore_eos,
                frequency_penalty=body.frequency_penalty,
                presence_penalty=body.presence_penalty,
                max_token_run=body.max_token_run,
            )
        )
        try:
            result = await _unless_disconnected(request, completion_task)
        except ContextFull as exc:
            return error(400, str(exc), "invalid_request_error", "context_length_exceeded")
        except ValueError as exc:
            return error(400, str(exc), "invalid_request_error")
        completion = _completion(backend.model_id, result)
        if body.stream:
            return StreamingResponse(_events(completion), media_type="text/event-stream")
        return JSONResponse(completion)

    routes = [
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/chat/completions", chat, methods=["POST"]),
    ]
    warn_if_missing(api_key)
    return Starlette(
        routes=routes,
        middleware=[Middleware(ServiceKeyMiddleware, key=api_key)],
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
    )


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods in OpenAI's shape (Starlette's own answers are plain text)."""
    assert isinstance(exc, HTTPException)
    phrase = http.HTTPStatus(exc.status_code).phrase.lower()
    return error(exc.status_code, phrase, "invalid_request_error", **(exc.headers or {}))


async def _server_error(request: Request, exc: Exception) -> Response:
    """A fault of the server: its traceback goes to the log, the client gets one line."""
    log.error("chat completion failed", exc_info=exc)
    return error(500, "the LLM server failed to answer; retry later", "server_error")


async def _unless_disconnected(request: Request, task: asyncio.Future[Generated]) -> Generated:
    """The task's result; a client that hangs up cancels it, so its slot stops generating."""
    while True:
        done, _ = await asyncio.wait({task}, timeout=DISCONNECT_POLL_S)
        if done:
            return task.result()
        if await request.is_disconnected():
            task.cancel()
            raise asyncio.CancelledError("client disconnected")


def _completion(model_id: str, result: Generated) -> dict[str, Any]:
    usage = {
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "total_tokens": result.prompt_tokens + result.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": result.cached_tokens},
    }
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model_id,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": result.text},
                "finish_reason": result.finish_reason,
            }
        ],
        "usage": usage,
    }


async def _events(completion: dict[str, Any]) -> AsyncIterator[bytes]:
    """The completion as ``chat.completion.chunk`` events, then ``[DONE]``."""
    choice = completion["choices"][0]
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    deltas = [
        {"index": 0, "delta": {"role": "assistant", "content": choice["message"]["content"]}, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]},
    ]
    for delta in deltas:
        yield f"data: {json.dumps(base | {'choices': [delta]}, ensure_ascii=False)}\n\n".encode()
    yield f"data: {json.dumps(base | {'choices': [], 'usage': completion['usage']})}\n\n".encode()
    yield b"data: [DONE]\n\n"
