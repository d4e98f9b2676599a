"""File stores and the /v1/files route (ASGI app in-process; S3 against moto's standalone server)."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException

from core.files import FileStoreError, LocalFileStore, S3Config, S3FileStore, StoredFile
from serve_app.middleware import RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception
from serve_app.routes import files as files_routes
from tests.support.services import s3_server

SECRET = b"k" * 32
SRT = b"1\n00:00:01,000 --> 00:00:02,000\nHola\n"


@pytest.fixture
def store(tmp_path: Path) -> LocalFileStore:
    return LocalFileStore(tmp_path / "store", "http://api.test", SECRET)


@pytest.fixture
def srt(tmp_path: Path) -> Path:
    path = tmp_path / "out.srt"
    path.write_bytes(SRT)
    return path


def app_with(store: object) -> Starlette:
    app = Starlette(
        routes=files_routes.ROUTES,
        exception_handlers={cls: handle_exception for cls in (Exception, HTTPException, *HANDLED)},
    )
    app.add_middleware(RequestContextMiddleware)
    app.state.files = store
    return app


def client(store: object) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app_with(store), raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://api.test")


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


async def test_put_copies_and_describes(store: LocalFileStore, srt: Path) -> None:
    stored = await store.put("task1", "subs.srt", srt, "application/x-subrip")
    assert stored == StoredFile("task1/subs.srt", len(SRT), "application/x-subrip")
    assert srt.exists() and store.open_path("task1/subs.srt").read_bytes() == SRT
    assert store.describe("task1/subs.srt") == stored
    assert sorted(p.name for p in (store.root / "task1").iterdir()) == [".subs.srt.json", "subs.srt"]  # no temp files left
    with pytest.raises(ValueError):
        await store.put("task1", "../escape.srt", srt, "text/plain")
    with pytest.raises(FileStoreError, match="cannot store") as info:
        await store.put("task1", "gone.srt", srt.with_name("missing.srt"), "text/plain")
    assert isinstance(info.value.__cause__, FileNotFoundError)


async def test_put_consume_moves_instead_of_copying(store: LocalFileStore, srt: Path) -> None:
    inode = srt.stat().st_ino
    stored = await store.put("task2", "subs.srt", srt, "application/x-subrip", consume=True)
    kept = store.open_path(stored.key)
    assert not srt.exists() and kept.read_bytes() == SRT
    assert kept.stat().st_ino == inode  # renamed: the bytes were not written again


async def test_open_path_stays_inside_the_store(store: LocalFileStore, srt: Path, tmp_path: Path) -> None:
    await store.put("task1", "subs.srt", srt, "application/x-subrip")
    for key in ("../out.srt", "task1/../../out.srt", "/etc/passwd", "task1/.subs.srt.json", "task1", "a/b/c"):
        with pytest.raises(ValueError):
            store.open_path(key)
    (store.root / "task1" / "link.srt").symlink_to(tmp_path / "out.srt")
    with pytest.raises(ValueError, match="outside the store"):
        store.open_path("task1/link.srt")
    with pytest.raises(FileNotFoundError):
        store.open_path("task1/missing.srt")


async def test_route_streams_the_file_as_an_attachment(store: LocalFileStore, srt: Path) -> None:
    await store.put("task1", "subs.srt", srt, "application/x-subrip")
    url = store.url("task1/subs.srt", store.expires_for(time.time()))
    assert url.startswith("http://api.test/v1/files/task1/subs.srt?expires=")
    async with client(store) as c:
        response = await c.get(path_of(url))  # no Authorization header
        head = await c.head(path_of(url))
    assert response.status_code == 200
    assert response.content == SRT
    assert response.headers["content-type"] == "application/x-subrip"
    assert response.headers["content-disposition"] == 'attachment; filename="subs.srt"'
    assert response.headers["x-content-type-options"] == "nosniff"
    max_age = int(response.headers["cache-control"].removeprefix("private, max-age="))
    assert 24 * 3600 - 60 < max_age <= 24 * 3600
    assert (head.status_code, head.content, head.headers["content-length"]) == (200, b"", str(len(SRT)))


async def test_expired_and_forged_links_answer_410(store: LocalFileStore, srt: Path) -> None:
    await store.put("task1", "subs.srt", srt, "application/x-subrip")
    await store.put("task1", "other.srt", srt, "application/x-subrip")
    good = store.url("task1/subs.srt", time.time() + 3600)
    expires = int(parse_qs(urlsplit(good).query)["expires"][0])
    sig = parse_qs(urlsplit(good).query)["sig"][0]
    flipped = ("A" if sig[0] != "A" else "B") + sig[1:]
    forged = [
        f"/v1/files/task1/other.srt?expires={expires}&sig={sig}",  # another file, same signature
        f"/v1/files/task1/subs.srt?expires={expires + 86400}&sig={sig}",  # extended expiry
        f"/v1/files/task1/subs.srt?expires={expires}&sig={flipped}",
    ]
    async with client(store) as c:
        expired = await c.get(path_of(store.url("task1/subs.srt", time.time() - 1)))
        refused = [await c.get(path) for path in forged]
        not_links = [await c.get(p) for p in ("/v1/files/task1/subs.srt", f"/v1/files/task1/subs.srt?expires=soon&sig={sig}")]
    for response in not_links:  # no link at all: a malformed request, not an expired link
        assert (response.status_code, response.json()["code"]) == (400, "INVALID_PARAMETER")
    assert expired.status_code == 410
    assert expired.json()["code"] == "LINK_EXPIRED"
    assert "expired at" in expired.json()["message"]
    for response in refused:
        assert (response.status_code, response.json()["code"]) == (410, "LINK_EXPIRED")
        assert "not valid" in response.json()["message"]


async def test_traversal_is_refused_even_with_a_valid_signature(store: LocalFileStore, srt: Path) -> None:
    await store.put("task1", "subs.srt", srt, "text/plain")
    expires = int(time.time()) + 3600
    for key, raw in [("../out.srt", "%2E%2E/out.srt"), ("task1/../../out.srt", "task1/%2E%2E/%2E%2E/out.srt")]:
        async with client(store) as c:
            response = await c.get(f"/v1/files/{raw}?expires={expires}&sig={store.signature(key, expires)}")
        assert response.status_code == 410, key
        assert b"Hola" not in response.content


async def test_missing_file_answers_404(store: LocalFileStore, srt: Path) -> None:
    await store.put("task1", "subs.srt", srt, "text/plain")
    url = store.url("task1/subs.srt", time.time() + 60)
    os.remove(store.root / "task1" / "subs.srt")
    async with client(store) as c:
        response = await c.get(path_of(url))
    assert response.status_code == 404
    assert response.json()["message"] == "This file is no longer available."


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with s3_server(tmp_path_factory.mktemp("s3")) as endpoint:
        yield endpoint


def s3_store(endpoint: str, **overrides: object) -> S3FileStore:
    bucket = "outputs-" + uuid.uuid4().hex[:8]
    config = S3Config(endpoint, bucket, "eu-west-1", "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG", **overrides)  # type: ignore[arg-type]
    store = S3FileStore(config)
    store._client.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    return store


async def test_route_is_absent_when_files_live_in_object_storage(s3_endpoint: str) -> None:
    async with client(s3_store(s3_endpoint)) as c:
        response = await c.get("/v1/files/task1/subs.srt?expires=1&sig=x")
    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")


async def test_s3_put_then_presigned_link_serves_the_file(s3_endpoint: str, srt: Path) -> None:
    s3 = s3_store(s3_endpoint, prefix="mt/")
    stored = await s3.put("task1", "subs.srt", srt, "application/x-subrip")
    assert stored == StoredFile("task1/subs.srt", len(SRT), "application/x-subrip")
    head = s3._client.head_object(Bucket=s3.config.bucket, Key="mt/task1/subs.srt")
    assert (head["ContentLength"], head["ContentType"]) == (len(SRT), "application/x-subrip")
    expires_at = time.time() + 3600
    url = s3.url(stored.key, expires_at)
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert 3599 <= int(query["X-Amz-Expires"]) <= 3601
    credential = query["X-Amz-Credential"]
    assert credential.startswith("AKIDEXAMPLE/") and credential.endswith("/eu-west-1/s3/aws4_request")
    async with httpx.AsyncClient() as http:  # no credentials: the link itself is the grant
        response = await http.get(url)
    assert response.status_code == 200 and response.content == SRT
    assert response.headers["content-disposition"] == 'attachment; filename="subs.srt"'


async def test_s3_fetch_round_trips_and_consume_removes_the_local_file(s3_endpoint: str, srt: Path, tmp_path: Path) -> None:
    s3 = s3_store(s3_endpoint)
    copy = tmp_path / "copy.srt"
    copy.write_bytes(SRT)
    await s3.put("task2", "subs.srt", copy, "text/plain", consume=True)
    assert not copy.exists()
    fetched = await s3.fetch("task2/subs.srt", tmp_path / "back.srt")
    assert fetched.read_bytes() == SRT


async def test_s3_failures_are_file_store_errors(s3_endpoint: str, srt: Path) -> None:
    missing_bucket = S3FileStore(S3Config(s3_endpoint, "no-such-bucket", "eu-west-1", "AK", "SK"))
    with pytest.raises(FileStoreError, match="NoSuchBucket"):
        await missing_bucket.put("task1", "subs.srt", srt, "text/plain")
    with pytest.raises(FileStoreError):
        await s3_store(s3_endpoint).fetch("task1/never-stored.srt", srt.parent / "x.srt")
    with pytest.raises(ValueError, match="presigned URLs live 1 s to 7 days"):
        missing_bucket.url("task1/subs.srt", time.time() - 5)


async def test_purge_removes_old_task_folders(store: LocalFileStore, srt: Path) -> None:
    await store.put("old", "a.srt", srt, "text/plain")
    await store.put("new", "a.srt", srt, "text/plain")
    past = time.time() - 2 * 86400
    for path in [*(store.root / "old").iterdir(), store.root / "old"]:
        os.utime(path, (past, past))
    assert store.purge(time.time() - 86400) == 1
    assert sorted(p.name for p in store.root.iterdir()) == ["new"]


async def test_purge_survives_files_vanishing_while_it_looks(store: LocalFileStore, srt: Path) -> None:
    await store.put("busy", "a.srt", srt, "text/plain")
    (store.root / "busy" / ".a.srt.0123.tmp").symlink_to(store.root / "busy" / "gone")  # a name whose target is gone
    past = time.time() - 2 * 86400
    os.utime(store.root / "busy", (past, past))
    for file in (store.root / "busy").iterdir():
        os.utime(file, (past, past), follow_symlinks=False)
    assert store.purge(time.time() - 86400) == 1

    stop = False

    async def writer() -> None:  # renames temporary files into place while purge scans
        while not stop:
            await store.put("live", "a.srt", srt, "text/plain")

    task = asyncio.create_task(writer())
    try:
        for _ in range(200):
            assert await asyncio.to_thread(store.purge, time.time() - 3600) == 0  # scans files as they are renamed
    finally:
        stop = True
        await task
