"""Error bodies → one exception tree, checked against the service's own error table."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from conftest import SERVICE_ROOT, LoopbackServer, Reply
from mediatrans_client import (
    AuthenticationError,
    Client,
    ConflictError,
    InvalidRequestError,
    LinkExpiredError,
    MediatransError,
    NotFoundError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    ServiceBusyError,
)
from mediatrans_client.errors import build_error, error_class

EXPECTED_BY_STATUS: dict[int, type[MediatransError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: QuotaExceededError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: InvalidRequestError,
    408: RequestTimeoutError,
    409: ConflictError,
    410: LinkExpiredError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitedError,
    456: QuotaExceededError,
    500: ServerError,
    503: ServiceBusyError,
}


def _service_table() -> Any:
    sys.path.insert(0, str(SERVICE_ROOT))
    try:
        from core import errors as service_errors
    except Exception as exc:  # the service's dependencies may be absent in the client's environment
        pytest.skip(f"service error table not importable: {exc!r}")
    finally:
        sys.path.remove(str(SERVICE_ROOT))
    return service_errors


def test_every_row_of_the_service_table_maps_to_its_kind() -> None:
    service = _service_table()
    rows = 0
    for group, table in service.ERROR_TABLE.items():
        for kind, (status, code) in table.items():
            body = service.error_body(code, f"{group.value}/{kind.value}", "req-1", [{"field": "f", "message": "m"}])
            exc = build_error(status, body, retry_after=5.0)
            expected = QuotaExceededError if (status, code) == (403, 2004) else EXPECTED_BY_STATUS[status]
            assert type(exc) is expected, (group, kind, status, code)
            assert exc.code == code and exc.request_id == "req-1" and exc.status == status
            assert exc.details == [{"field": "f", "message": "m"}]
            rows += 1
    assert rows > 60


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("UNAUTHORIZED", AuthenticationError),
        ("QUOTA_EXCEEDED", QuotaExceededError),
        ("NO_AUDIO_TRACK", InvalidRequestError),
        ("SERVICE_BUSY", ServiceBusyError),
        ("INTERNAL_ERROR", ServerError),
        (2001, AuthenticationError),
        (4002, QuotaExceededError),
        (2005, NotFoundError),
        (1007, InvalidRequestError),
        (5002, ServiceBusyError),
    ],
)
def test_codes_without_status(code: Any, expected: type[MediatransError]) -> None:
    assert error_class(None, code) is expected


def test_error_over_http_keeps_request_id_retry_after_and_details(server: LoopbackServer, client: Client) -> None:
    server.route("POST", "/v1/grammar")(
        lambda r: Reply(
            400,
            {
                "code": 1001,
                "message": "Invalid parameter.",
                "request_id": "abc-1",
                "details": [{"field": "text", "message": "missing"}],
            },
            {"X-Request-ID": "abc-1"},
        )
    )
    server.route("POST", "/v1/game/localization")(
        lambda r: Reply(456, {"code": 4002, "message": "Plan quota exhausted.", "request_id": "q-1"}, {"Retry-After": "86400"})
    )
    server.route("GET", "/v1/video/task/gone")(lambda r: Reply(404, {"no": "shape"}, {"X-Request-ID": "hdr-7"}))
    with pytest.raises(InvalidRequestError) as invalid:
        client.grammar.check("")
    assert invalid.value.code == 1001 and invalid.value.request_id == "abc-1" and invalid.value.details[0]["field"] == "text"
    assert "abc-1" in str(invalid.value)
    with pytest.raises(QuotaExceededError) as quota:
        client.game.localize("Start", "en", ["fr"])
    assert quota.value.retry_after == 86400.0 and len(server.requests_to("POST", "/v1/game/localization")) == 1
    with pytest.raises(NotFoundError) as missing:
        client.video.get("gone")
    assert missing.value.request_id == "hdr-7" and missing.value.code is None


def test_non_json_error_body_still_raises(server: LoopbackServer, client: Client) -> None:
    server.route("GET", "/v1/voice/clone")(lambda r: Reply(500, b"<html>oops</html>", {"X-Request-ID": "html-1"}))
    with pytest.raises(ServerError) as info:
        client.voice.list()
    assert info.value.request_id == "html-1" and info.value.status == 500
    assert len(server.requests_to("GET", "/v1/voice/clone")) == 1  # 500 is not among the retried statuses
