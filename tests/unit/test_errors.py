"""The error table reproduces the contract's code tables exactly."""

from __future__ import annotations

import pytest

from core.errors import ERROR_TABLE, ApiError, ErrorGroup, ErrorKind, group_for_path, kind_of, resolve, task_error
from engines.errors import (
    EngineError,
    EngineUnavailable,
    InvalidInput,
    InvalidUrl,
    MediaTooLarge,
    NoAudioTrack,
    UnsupportedLanguage,
    UnsupportedMedia,
)

K = ErrorKind

CONTRACT_ROWS = [
    (ErrorGroup.VIDEO, K.UNSUPPORTED_VIDEO, 400, "UNSUPPORTED_VIDEO"),
    (ErrorGroup.VIDEO, K.PAYLOAD_TOO_LARGE, 400, "VIDEO_TOO_LARGE"),
    (ErrorGroup.VIDEO, K.NO_AUDIO_TRACK, 400, "NO_AUDIO_TRACK"),
    (ErrorGroup.VIDEO, K.UNSUPPORTED_LANGUAGE, 400, "INVALID_LANG_CODE"),
    (ErrorGroup.VIDEO, K.INVALID_URL, 400, "INVALID_URL"),
    (ErrorGroup.VIDEO, K.GLOSSARY_NOT_FOUND, 400, "GLOSSARY_NOT_FOUND"),
    (ErrorGroup.VIDEO, K.UNAUTHORIZED, 401, "UNAUTHORIZED"),
    (ErrorGroup.VIDEO, K.QUOTA_EXCEEDED, 402, "QUOTA_EXCEEDED"),
    (ErrorGroup.VIDEO, K.RATE_LIMITED, 429, "RATE_LIMITED"),
    (ErrorGroup.VIDEO, K.INTERNAL, 500, "INTERNAL_ERROR"),
    (ErrorGroup.VIDEO, K.UNAVAILABLE, 503, "SERVICE_BUSY"),
    (ErrorGroup.VOICE, K.INVALID_PARAMETER, 400, 1001),
    (ErrorGroup.VOICE, K.VOICE_NAME_EXISTS, 400, 1006),
    (ErrorGroup.VOICE, K.AUDIO_DURATION, 400, 1007),
    (ErrorGroup.VOICE, K.AUDIO_SNR_TOO_LOW, 400, 1008),
    (ErrorGroup.VOICE, K.NO_SPEECH, 400, 1009),
    (ErrorGroup.VOICE, K.UNAUTHORIZED, 401, 2001),
    (ErrorGroup.VOICE, K.FORBIDDEN, 403, 2003),
    (ErrorGroup.VOICE, K.VOICE_QUOTA_FULL, 403, 2004),
    (ErrorGroup.VOICE, K.NOT_FOUND, 404, 2005),
    (ErrorGroup.VOICE, K.PAYLOAD_TOO_LARGE, 413, 3001),
    (ErrorGroup.VOICE, K.UNSUPPORTED_AUDIO_FORMAT, 415, 3002),
    (ErrorGroup.VOICE, K.CLONE_FAILED, 422, 3003),
    (ErrorGroup.VOICE, K.RATE_LIMITED, 429, 4001),
    (ErrorGroup.VOICE, K.QUOTA_EXCEEDED, 456, 4002),
    (ErrorGroup.VOICE, K.INTERNAL, 500, 5001),
    (ErrorGroup.VOICE, K.UNAVAILABLE, 503, 5002),
    (ErrorGroup.PLATFORM, K.INVALID_PARAMETER, 400, 1001),
    (ErrorGroup.PLATFORM, K.UNAUTHORIZED, 401, 2001),
    (ErrorGroup.PLATFORM, K.FORBIDDEN, 403, 2003),
    (ErrorGroup.PLATFORM, K.NOT_FOUND, 404, 2004),
    (ErrorGroup.PLATFORM, K.CONFLICT, 409, 1003),
    (ErrorGroup.PLATFORM, K.RATE_LIMITED, 429, 4001),
    (ErrorGroup.PLATFORM, K.INTERNAL, 500, 5001),
    (ErrorGroup.GAME, K.INVALID_PARAMETER, 400, 1001),
    (ErrorGroup.GAME, K.UNSUPPORTED_LANGUAGE, 400, 1002),
    (ErrorGroup.GAME, K.UNAUTHORIZED, 401, 2001),
    (ErrorGroup.GAME, K.FORBIDDEN, 403, 2003),
    (ErrorGroup.GAME, K.PAYLOAD_TOO_LARGE, 413, 3001),
    (ErrorGroup.GAME, K.RATE_LIMITED, 429, 4001),
    (ErrorGroup.GAME, K.INTERNAL, 500, 5001),
    (ErrorGroup.GRAMMAR, K.UNSUPPORTED_LANGUAGE, 400, 1002),
    (ErrorGroup.GRAMMAR, K.UNSUPPORTED_CHECK_TYPE, 400, 1003),
    (ErrorGroup.GRAMMAR, K.INVALID_RULE_ID, 400, 1006),
    (ErrorGroup.GRAMMAR, K.PAYLOAD_TOO_LARGE, 413, 3001),
    (ErrorGroup.GRAMMAR, K.NO_VALID_TEXT, 422, 3002),
]


@pytest.mark.parametrize(("group", "kind", "status", "code"), CONTRACT_ROWS)
def test_contract_rows(group: ErrorGroup, kind: ErrorKind, status: int, code: int | str) -> None:
    assert resolve(group, kind) == (status, code)


@pytest.mark.parametrize("group", list(ErrorGroup))
def test_every_kind_resolves_in_every_group(group: ErrorGroup) -> None:
    for kind in ErrorKind:
        status, code = resolve(group, kind)
        assert 400 <= status <= 599
        assert isinstance(code, str if group is ErrorGroup.VIDEO else int)


def test_numeric_codes_are_unambiguous_within_a_group() -> None:
    for group, table in ERROR_TABLE.items():
        meaning: dict[tuple[int, int | str], set[ErrorKind]] = {}
        for kind, entry in table.items():
            meaning.setdefault(entry, set()).add(kind)
        shared = {entry: kinds for entry, kinds in meaning.items() if len(kinds) > 1}
        allowed = {
            frozenset({K.NOT_FOUND, K.ROUTE_NOT_FOUND}),
            frozenset({K.INVALID_PARAMETER, K.UNSUPPORTED_MEDIA_TYPE}),
            frozenset({K.NOT_FOUND, K.ROUTE_NOT_FOUND, K.GLOSSARY_NOT_FOUND}),
            frozenset({K.UNSUPPORTED_AUDIO_FORMAT, K.UNSUPPORTED_MEDIA_TYPE}),
            # the voice table has no 1002: an unsupported language is an invalid parameter there
            frozenset({K.INVALID_PARAMETER, K.UNSUPPORTED_LANGUAGE}),
            # a voice still training is the voice group's data conflict (409 1003)
            frozenset({K.CONFLICT, K.VOICE_NOT_READY}),
        }
        for entry, kinds in shared.items():
            assert frozenset(kinds) in allowed, (group, entry, kinds)


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("/v1/video/translate", ErrorGroup.VIDEO),
        ("/v1/video/task/abc", ErrorGroup.VIDEO),
        ("/v1/voice/clone/v1", ErrorGroup.VOICE),
        ("/v1/tts", ErrorGroup.VOICE),
        ("/v1/game/localization", ErrorGroup.GAME),
        ("/v1/grammar", ErrorGroup.GRAMMAR),
        ("/v1/languages", ErrorGroup.PLATFORM),
        ("/v1/videos", ErrorGroup.PLATFORM),
        ("/anything", ErrorGroup.PLATFORM),
    ],
)
def test_group_for_path(path: str, group: ErrorGroup) -> None:
    assert group_for_path(path) is group


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (NoAudioTrack("no audio"), "NO_AUDIO_TRACK"),
        (MediaTooLarge("too long"), "VIDEO_TOO_LARGE"),
        (UnsupportedMedia("gif"), "UNSUPPORTED_VIDEO"),
        (InvalidUrl("refused"), "INVALID_URL"),
        (UnsupportedLanguage("xx"), "INVALID_LANG_CODE"),
        (InvalidInput("start_time past the end"), "INVALID_PARAMETER"),
        (ApiError(ErrorKind.QUOTA_EXCEEDED, "No minutes left."), "QUOTA_EXCEEDED"),
        (ZeroDivisionError("bug"), "INTERNAL_ERROR"),
    ],
)
def test_task_errors_use_the_same_table_as_responses(exc: Exception, code: str) -> None:
    error = task_error(exc, ErrorGroup.VIDEO)
    assert error["code"] == code
    if code == "INTERNAL_ERROR":
        assert "bug" not in error["message"]  # internals never reach the customer
    else:
        assert error["message"] == (exc.message if isinstance(exc, ApiError) else str(exc))
    if isinstance(exc, ApiError | EngineError):
        assert resolve(ErrorGroup.VIDEO, kind_of(exc))[1] == code  # type: ignore[arg-type]


def test_engine_unavailable_is_a_kind_of_its_own() -> None:
    assert kind_of(EngineUnavailable("busy")) is ErrorKind.UNAVAILABLE
    assert kind_of(ValueError("x")) is None
