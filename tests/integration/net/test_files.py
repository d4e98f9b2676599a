"""File stores and the /v1/files route (ASGI app in-process; S3 uploads to a loopback fake)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException

from serve_app.files import FileStoreError, LocalFileStore, S3Config, S3FileStore, StoredFile
from serve_app.middleware import RequestContextMiddleware
from serve_app.responses import HANDLED, handle_exception
from serve_app.routes import files as files_routes
from tests.integration.net.loopback import LoopbackServer

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
        "/v1/files/task1/subs.srt",
    ]
    async with client(store) as c:
        expired = await c.get(path_of(store.url("task1/subs.srt", time.time() - 1)))
        refused = [await c.get(path) for path in forged]
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


async def test_route_is_absent_when_files_live_in_object_storage(server: LoopbackServer) -> None:
    s3 = S3FileStore(S3Config(server.url(""), "outputs", "us-east-1", "AK", "SK"))
    async with client(s3) as c:
        response = await c.get("/v1/files/task1/subs.srt?expires=1&sig=x")
    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")


async def test_s3_put_uploads_with_a_presigned_put(server: LoopbackServer, srt: Path) -> None:
    s3 = S3FileStore(S3Config(server.url(""), "outputs", "eu-west-1", "AKID", "SECRET", prefix="mt/"))
    stored = await s3.put("task1", "subs.srt", srt, "application/x-subrip")
    assert stored == StoredFile("task1/subs.srt", len(SRT), "application/x-subrip")
    [hit] = server.hits
    parts = urlsplit(hit.path)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert (hit.method, parts.path, hit.body) == ("PUT", "/outputs/mt/task1/subs.srt", SRT)
    assert (hit.headers["content-length"], hit.headers["content-type"]) == (str(len(SRT)), "application/x-subrip")
    assert query["X-Amz-Expires"] == "900"
    assert query["X-Amz-Credential"].startswith("AKID/") and query["X-Amz-Credential"].endswith("/eu-west-1/s3/aws4_request")
    assert len(query["X-Amz-Signature"]) == 64
    server.program("/outputs/mt/task1/subs.srt", 403)
    with pytest.raises(FileStoreError, match="HTTP 403"):
        await s3.put("task1", "subs.srt", srt, "application/x-subrip")


async def test_purge_removes_old_task_folders(store: LocalFileStore, srt: Path) -> None:
    await store.put("old", "a.srt", srt, "text/plain")
    await store.put("new", "a.srt", srt, "text/plain")
    past = time.time() - 2 * 86400
    for file in (store.root / "old").iterdir():
        os.utime(file, (past, past))
    assert store.purge(time.time() - 86400) == 1
    assert sorted(p.name for p in store.root.iterdir()) == ["new"]
