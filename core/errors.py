"""One status table for the whole API, shared by the HTTP edge and the workers.

Every failure is raised as an :class:`ApiError` carrying an :class:`ErrorKind`
(engines raise their own errors, mapped to kinds by :func:`kind_of`). The
contract uses different codes per endpoint group (string codes for video,
per-group numeric codes elsewhere), so a kind becomes an HTTP status and a
contract code only by looking up the group in :data:`ERROR_TABLE`: the edge
does it for responses, the job runner for the ``error`` object of a failed
task (:func:`task_error`). Nothing else in the code base picks a code.

The error body (documented in docs/errors.md)::

    {"code": "UNAUTHORIZED" | 2001, "message": "...", "request_id": "...",
     "details": [{"field": "target_lang", "message": "..."}]}   # details optional
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from core.boundary import log_remote, public_message, unwrap
from engines import errors as engine_errors

log = logging.getLogger("mediatrans.errors")


class ErrorKind(str, enum.Enum):
    """What went wrong, independent of the endpoint group."""

    INVALID_PARAMETER = "invalid_parameter"
    UNSUPPORTED_LANGUAGE = "unsupported_language"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    ROUTE_NOT_FOUND = "route_not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    IDEMPOTENCY_CONFLICT = "idempotency_conflict"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    RATE_LIMITED = "rate_limited"
    QUOTA_EXCEEDED = "quota_exceeded"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"
    REQUEST_TIMEOUT = "request_timeout"
    # video group
    UNSUPPORTED_VIDEO = "unsupported_video"
    NO_AUDIO_TRACK = "no_audio_track"
    INVALID_URL = "invalid_url"
    GLOSSARY_NOT_FOUND = "glossary_not_found"
    LINK_EXPIRED = "link_expired"
    # voice group
    VOICE_NAME_EXISTS = "voice_name_exists"
    AUDIO_DURATION = "audio_duration"
    AUDIO_SNR_TOO_LOW = "audio_snr_too_low"
    NO_SPEECH = "no_speech"
    VOICE_QUOTA_FULL = "voice_quota_full"
    VOICE_NOT_READY = "voice_not_ready"
    UNSUPPORTED_AUDIO_FORMAT = "unsupported_audio_format"
    CLONE_FAILED = "clone_failed"
    # grammar group
    UNSUPPORTED_CHECK_TYPE = "unsupported_check_type"
    INVALID_RULE_ID = "invalid_rule_id"
    NO_VALID_TEXT = "no_valid_text"


class ErrorGroup(str, enum.Enum):
    """Endpoint groups of the contract, each with its own code table."""

    VIDEO = "video"
    VOICE = "voice"
    GAME = "game"
    GRAMMAR = "grammar"
    PLATFORM = "platform"  # languages, glossaries, account, health, docs, unknown paths


K = ErrorKind
Entry = tuple[int, "int | str"]

# Numeric codes shared by the numeric groups. Rows marked "added" are not in
# the contract's tables and are documented in docs/errors.md.
_NUMERIC: dict[ErrorKind, Entry] = {
    K.INVALID_PARAMETER: (400, 1001),
    K.UNSUPPORTED_LANGUAGE: (400, 1002),
    K.CONFLICT: (409, 1003),
    K.METHOD_NOT_ALLOWED: (405, 1004),  # added
    K.IDEMPOTENCY_CONFLICT: (409, 1005),  # added
    K.UNSUPPORTED_MEDIA_TYPE: (400, 1001),
    K.UNAUTHORIZED: (401, 2001),
    K.FORBIDDEN: (403, 2003),
    K.NOT_FOUND: (404, 2004),
    K.ROUTE_NOT_FOUND: (404, 2004),
    K.GLOSSARY_NOT_FOUND: (404, 2004),
    K.PAYLOAD_TOO_LARGE: (413, 3001),
    K.RATE_LIMITED: (429, 4001),
    K.QUOTA_EXCEEDED: (456, 4002),  # added for game/grammar/platform
    K.INTERNAL: (500, 5001),
    K.UNAVAILABLE: (503, 5002),  # added outside the voice group
    K.REQUEST_TIMEOUT: (408, 4008),  # added: a client too slow to send its request
}

_VOICE: dict[ErrorKind, Entry] = {
    **_NUMERIC,
    K.VOICE_NAME_EXISTS: (400, 1006),
    K.AUDIO_DURATION: (400, 1007),
    K.AUDIO_SNR_TOO_LOW: (400, 1008),
    K.NO_SPEECH: (400, 1009),
    K.VOICE_QUOTA_FULL: (403, 2004),
    K.NOT_FOUND: (404, 2005),
    K.ROUTE_NOT_FOUND: (404, 2005),
    K.UNSUPPORTED_AUDIO_FORMAT: (415, 3002),
    K.UNSUPPORTED_MEDIA_TYPE: (415, 3002),
    K.CLONE_FAILED: (422, 3003),
    K.VOICE_NOT_READY: (409, 1003),  # added: a voice still processing (or failed) used for speech
    K.UNSUPPORTED_LANGUAGE: (400, 1001),  # the voice table has no 1002
}

_GRAMMAR: dict[ErrorKind, Entry] = {
    **_NUMERIC,
    K.UNSUPPORTED_CHECK_TYPE: (400, 1003),
    K.INVALID_RULE_ID: (400, 1006),
    K.NO_VALID_TEXT: (422, 3002),
}

_VIDEO: dict[ErrorKind, Entry] = {
    K.INVALID_PARAMETER: (400, "INVALID_PARAMETER"),  # added
    K.UNSUPPORTED_LANGUAGE: (400, "INVALID_LANG_CODE"),
    K.UNSUPPORTED_VIDEO: (400, "UNSUPPORTED_VIDEO"),
    K.PAYLOAD_TOO_LARGE: (400, "VIDEO_TOO_LARGE"),
    K.NO_AUDIO_TRACK: (400, "NO_AUDIO_TRACK"),
    K.INVALID_URL: (400, "INVALID_URL"),
    K.GLOSSARY_NOT_FOUND: (400, "GLOSSARY_NOT_FOUND"),
    K.UNSUPPORTED_MEDIA_TYPE: (415, "UNSUPPORTED_MEDIA_TYPE"),  # added
    K.UNAUTHORIZED: (401, "UNAUTHORIZED"),
    K.QUOTA_EXCEEDED: (402, "QUOTA_EXCEEDED"),
    K.FORBIDDEN: (403, "FORBIDDEN"),  # added
    K.NOT_FOUND: (404, "TASK_NOT_FOUND"),  # added; also another account's task
    K.ROUTE_NOT_FOUND: (404, "NOT_FOUND"),  # added
    K.METHOD_NOT_ALLOWED: (405, "METHOD_NOT_ALLOWED"),  # added
    K.CONFLICT: (409, "CONFLICT"),  # added
    K.IDEMPOTENCY_CONFLICT: (409, "IDEMPOTENCY_KEY_REUSED"),  # added
    K.LINK_EXPIRED: (410, "LINK_EXPIRED"),  # added
    K.RATE_LIMITED: (429, "RATE_LIMITED"),
    K.INTERNAL: (500, "INTERNAL_ERROR"),
    K.UNAVAILABLE: (503, "SERVICE_BUSY"),
    K.REQUEST_TIMEOUT: (408, "REQUEST_TIMEOUT"),  # added
}

ERROR_TABLE: Mapping[ErrorGroup, Mapping[ErrorKind, Entry]] = {
    ErrorGroup.VIDEO: _VIDEO,
    ErrorGroup.VOICE: _VOICE,
    ErrorGroup.GAME: _NUMERIC,
    ErrorGroup.GRAMMAR: _GRAMMAR,
    ErrorGroup.PLATFORM: _NUMERIC,
}

_PREFIXES: tuple[tuple[str, ErrorGroup], ...] = (
    ("/v1/video", ErrorGroup.VIDEO),
    ("/v1/files", ErrorGroup.VIDEO),
    ("/v1/subtitles", ErrorGroup.VIDEO),  # a subtitle file is a task like a video task
    ("/v1/voice", ErrorGroup.VOICE),
    ("/v1/tts", ErrorGroup.VOICE),
    ("/v1/game", ErrorGroup.GAME),
    ("/v1/grammar", ErrorGroup.GRAMMAR),
)


def group_for_path(path: str) -> ErrorGroup:
    """The endpoint group whose code table applies to ``path``."""
    for prefix, group in _PREFIXES:
        if path == prefix or path.startswith(prefix + "/"):
            return group
    return ErrorGroup.PLATFORM


def resolve(group: ErrorGroup, kind: ErrorKind) -> Entry:
    """HTTP status and contract code of ``kind`` in ``group``."""
    table = ERROR_TABLE[group]
    if kind in table:
        return table[kind]
    # A group-specific kind raised elsewhere degrades to the group's generic rows.
    fallback = K.INTERNAL if kind in (K.CLONE_FAILED,) else K.INVALID_PARAMETER
    return table[fallback]


class ApiError(Exception):
    """A failure that reaches the client as the error body.

    Args:
        kind: what went wrong; the status and code follow from the group.
        message: a human sentence, safe to show to the client.
        details: optional per-field problems.
        headers: extra response headers (``Retry-After``).
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        details: Sequence[Mapping[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = list(details or [])
        self.headers = dict(headers or {})


def error_body(code: int | str, message: str, request_id: str, details: Sequence[Any] = ()) -> dict[str, Any]:
    """The JSON error body; the single definition of its shape."""
    body: dict[str, Any] = {"code": code, "message": message, "request_id": request_id}
    if details:
        body["details"] = list(details)
    return body


# Engine errors in the order they are tested: most specific first.
_ENGINE_KINDS: tuple[tuple[type[BaseException], ErrorKind], ...] = (
    (engine_errors.UnsupportedLanguage, ErrorKind.UNSUPPORTED_LANGUAGE),
    (engine_errors.NoAudioTrack, ErrorKind.NO_AUDIO_TRACK),
    (engine_errors.MediaTooLarge, ErrorKind.PAYLOAD_TOO_LARGE),
    (engine_errors.UnsupportedMedia, ErrorKind.UNSUPPORTED_VIDEO),
    (engine_errors.InvalidUrl, ErrorKind.INVALID_URL),
    (engine_errors.UnsupportedAudioFormat, ErrorKind.UNSUPPORTED_AUDIO_FORMAT),
    (engine_errors.SampleDuration, ErrorKind.AUDIO_DURATION),
    (engine_errors.SampleTooNoisy, ErrorKind.AUDIO_SNR_TOO_LOW),
    (engine_errors.NoSpeechFound, ErrorKind.NO_SPEECH),
    (engine_errors.VoiceNotReady, ErrorKind.VOICE_NOT_READY),
    (engine_errors.InvalidInput, ErrorKind.INVALID_PARAMETER),
    (engine_errors.EngineUnavailable, ErrorKind.UNAVAILABLE),
)


#: What a client reads when an error's own text cannot be shown (see ``core.boundary``).
DEFAULT_MESSAGES: Mapping[ErrorKind, str] = {
    K.INVALID_PARAMETER: "Invalid parameter.",
    K.UNSUPPORTED_LANGUAGE: "Unsupported language.",
    K.PAYLOAD_TOO_LARGE: "The input is over the size limit.",
    K.UNSUPPORTED_VIDEO: "The video format is not supported.",
    K.NO_AUDIO_TRACK: "The video has no audio track.",
    K.INVALID_URL: "The URL is invalid or unreachable.",
    K.UNSUPPORTED_AUDIO_FORMAT: "The audio format is not supported.",
    K.AUDIO_DURATION: "The audio must be 10 to 60 seconds long.",
    K.AUDIO_SNR_TOO_LOW: "The audio is too noisy.",
    K.NO_SPEECH: "No speech was found in the audio.",
    K.VOICE_NOT_READY: "The voice is not ready.",
    K.CLONE_FAILED: "Voice training failed.",
    K.UNAVAILABLE: "Service busy; retry shortly.",
    K.REQUEST_TIMEOUT: "The request was not received in time.",
    K.INTERNAL: "Internal error; the request can be retried.",
}


def kind_of(exc: BaseException) -> ErrorKind | None:
    """The kind of an ApiError or an engine error; None for anything else (a bug: internal)."""
    exc = unwrap(exc)
    if isinstance(exc, ApiError):
        return exc.kind
    for cls, kind in _ENGINE_KINDS:
        if isinstance(exc, cls):
            return kind
    return None


def client_message(exc: BaseException, kind: ErrorKind) -> str:
    """The one line a client reads for ``exc`` (already unwrapped) of ``kind``: its own text when safe."""
    text = exc.message if isinstance(exc, ApiError) else str(exc)
    return public_message(text, DEFAULT_MESSAGES.get(kind, DEFAULT_MESSAGES[K.INVALID_PARAMETER]))


def task_error(exc: BaseException, group: ErrorGroup = ErrorGroup.VIDEO) -> dict[str, str]:
    """The ``error`` object of a task that failed with ``exc``: the group's code and a message."""
    original = unwrap(exc)
    log_remote(exc, original)
    kind = kind_of(original)
    if kind is None:
        log.error("task failed with unexpected %s: %s", type(original).__name__, original, exc_info=original)
        kind, message = ErrorKind.INTERNAL, "Internal error; resubmit the task."
    else:
        message = client_message(original, kind)
    _status, code = resolve(group, kind)
    return {"code": str(code), "message": message}
