"""SigV4 presigner against AWS's published examples, and the S3 store's URLs."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from serve_app.files import (
    S3Config,
    S3FileStore,
    ServedFileStore,
    canonical_request,
    presign,
    signing_key,
    sigv4_signature,
    uri_encode,
)

# Credentials and expected values from the AWS documentation examples.
ACCESS = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_presigned_get_matches_the_s3_query_auth_example() -> None:
    # S3 API reference, "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
    url = presign(
        "GET",
        scheme="https",
        host="examplebucket.s3.amazonaws.com",
        path="/test.txt",
        region="us-east-1",
        access_key=ACCESS,
        secret_key=SECRET,
        expires_s=86400,
        now=datetime(2013, 5, 24, tzinfo=UTC),
    )
    assert url == (
        "https://examplebucket.s3.amazonaws.com/test.txt"
        "?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
    )


def test_canonical_request_and_signature_match_the_header_auth_example() -> None:
    # S3 API reference, "Signature Calculations for the Authorization Header", GET Object example.
    canonical = canonical_request(
        "GET",
        "/test.txt",
        "",
        {
            "Host": "examplebucket.s3.amazonaws.com",
            "Range": "bytes=0-9",
            "x-amz-content-sha256": EMPTY_SHA256,
            "x-amz-date": "20130524T000000Z",
        },
        EMPTY_SHA256,
    )
    assert hashlib.sha256(canonical.encode()).hexdigest() == "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"
    signature = sigv4_signature(SECRET, "20130524T000000Z", "us-east-1", "s3", canonical)
    assert signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"


def test_signing_key_matches_the_derivation_example() -> None:
    # IAM user guide, "derive a signing key" example (note the '+' in this secret).
    key = signing_key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam")
    assert key.hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"


def test_uri_encoding_rules() -> None:
    assert uri_encode("a b/c~d._-*+=") == "a%20b%2Fc~d._-%2A%2B%3D"
    assert uri_encode("/bucket/key with space", keep_slash=True) == "/bucket/key%20with%20space"
    assert uri_encode("ü") == "%C3%BC"


@pytest.mark.parametrize("expires_s", [0, 7 * 24 * 3600 + 1])
def test_presign_refuses_lifetimes_sigv4_does_not_allow(expires_s: int) -> None:
    with pytest.raises(ValueError, match="7 days"):
        presign("GET", scheme="https", host="h", path="/k", region="r", access_key="a", secret_key="s",
                expires_s=expires_s, now=datetime(2024, 1, 1, tzinfo=UTC))  # fmt: skip


def make_store(**overrides: object) -> S3FileStore:
    config: dict[str, object] = {
        "endpoint_url": "https://minio.example.com:9000",
        "bucket": "outputs",
        "region": "us-east-1",
        "access_key": "AK",
        "secret_key": "SK",
        "prefix": "mt/",
    }
    config.update(overrides)
    return S3FileStore(S3Config(**config), clock=lambda: 1_700_000_000.0)  # type: ignore[arg-type]


def test_s3_links_are_presigned_gets_expiring_at_the_given_time() -> None:
    store = make_store()
    url = urlsplit(store.url("t1/subs.srt", 1_700_000_000 + 3600))
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert (url.scheme, url.netloc, url.path) == ("https", "minio.example.com:9000", "/outputs/mt/t1/subs.srt")
    assert query["X-Amz-Expires"] == "3600"
    assert query["X-Amz-Date"] == "20231114T221320Z"
    assert query["response-content-disposition"] == 'attachment; filename="subs.srt"'
    assert len(query["X-Amz-Signature"]) == 64
    assert "SK" not in url.query and "SK" not in repr(store.config)


def test_s3_virtual_host_style_and_session_token() -> None:
    url = urlsplit(make_store(path_style=False, session_token="TOKEN", prefix="").url("t1/a.vtt", 1_700_000_060))
    query = parse_qs(url.query)
    assert (url.netloc, url.path) == ("outputs.minio.example.com:9000", "/t1/a.vtt")
    assert query["X-Amz-Security-Token"] == ["TOKEN"]


def test_s3_store_refuses_past_expiry_and_is_not_served_locally() -> None:
    store = make_store()
    with pytest.raises(ValueError):
        store.url("t1/a.vtt", 1_699_999_000)
    with pytest.raises(ValueError, match="endpoint_url"):
        make_store(endpoint_url="minio:9000")
    assert not isinstance(store, ServedFileStore)
