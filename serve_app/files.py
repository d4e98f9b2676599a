"""Task output files and the signed, expiring links that hand them out.

Output links are valid 24 h (contract section 8) and carry their own
credential, so a customer can pass a subtitle link to a player or a
colleague without an API token. Two stores implement :class:`FileStore`:

* :class:`LocalFileStore` keeps files on a disk the ingress can read and
  issues ``/v1/files/{key}?expires=<unix>&sig=<mac>`` links, where ``mac`` is
  HMAC-SHA256 over ``key + "\\n" + expires`` with the store's secret,
  base64url without padding. The route in ``serve_app.routes.files`` checks
  the link and streams the file. Every ingress replica must share the secret.
* :class:`S3FileStore` uploads to an S3-compatible bucket and issues
  presigned GET URLs (AWS Signature V4, query-string form), so downloads
  never pass through the service. The presigner is the few lines of SigV4
  that this needs, in pure Python, checked against AWS's published examples.

Keys are ``<task_id>/<name>`` with one conservative character set per
segment; anything else is refused before it can reach a path or a URL.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import errno
import hashlib
import hmac
import json
import math
import mimetypes
import os
import re
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import quote, urlsplit

import httpx

from serve_app import keys

DEFAULT_CONTENT_TYPE = "application/octet-stream"
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_EXPIRES = re.compile(r"[0-9]{1,12}")


class FileStoreError(Exception):
    """The store could not keep a file (disk error, object store refusal or silence)."""


class LinkError(Exception):
    """A download link that does not grant access."""


class LinkExpired(LinkError):
    """An authentic link past its expiry."""


class LinkForged(LinkError):
    """A link whose signature does not match (altered, truncated or invented)."""


@dataclasses.dataclass(frozen=True)
class StoredFile:
    """A file in a store.

    Attributes:
        key: ``<task_id>/<name>``; what links and ``open_path`` take.
        size: bytes.
        content_type: media type served with it.
    """

    key: str
    size: int
    content_type: str = DEFAULT_CONTENT_TYPE

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1]


@runtime_checkable
class FileStore(Protocol):
    """Where workers put outputs and where links to them come from."""

    ttl_s: int

    async def put(
        self, task_id: str, name: str, src_path: str | os.PathLike[str], content_type: str, *, consume: bool = False
    ) -> StoredFile:
        """Store ``src_path``; with ``consume`` the caller gives the file up and it may be moved."""
        ...

    def url(self, key: str, expires_at: float) -> str: ...

    def expires_for(self, created_at: float) -> int: ...


@runtime_checkable
class ServedFileStore(FileStore, Protocol):
    """A store whose links point at this service's ``/v1/files`` route."""

    def verify(self, key: str, expires: str | int, signature: str, *, now: float | None = None) -> None: ...

    def open_path(self, key: str) -> Path: ...

    def describe(self, key: str) -> StoredFile: ...


def object_key(task_id: str, name: str) -> str:
    """``<task_id>/<name>``; raises ValueError for anything that is not a plain segment."""
    for label, segment in (("task id", task_id), ("file name", name)):
        if not _SEGMENT.fullmatch(segment):
            raise ValueError(f"invalid {label} {segment!r}: use letters, digits, '.', '_', '-'")
    return f"{task_id}/{name}"


def is_valid_key(key: str) -> bool:
    parts = key.split("/")
    return len(parts) == 2 and all(_SEGMENT.fullmatch(p) for p in parts)


def _rename(src: Path, dest: Path) -> bool:
    """Move ``src`` to ``dest``; False when they are on different file systems."""
    try:
        os.replace(src, dest)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            return False
        raise
    return True


class LocalFileStore:
    """Files under ``root_dir``, served by ``/v1/files`` with HMAC-signed links.

    Args:
        root_dir: directory holding ``<task_id>/<name>`` files.
        base_url: public origin of the API (``https://api.example.com``).
        secret: HMAC key of the links; the same on every replica.
        ttl_s: link lifetime counted from the file's creation.
    """

    def __init__(self, root_dir: str | os.PathLike[str], base_url: str, secret: bytes, ttl_s: int = keys.DOWNLOAD_LINK_TTL_S):
        if len(secret) < 16:
            raise ValueError("the link secret must be at least 16 bytes")
        self.root = Path(root_dir).resolve()
        self.base_url = base_url.rstrip("/")
        self._secret = secret
        self.ttl_s = ttl_s

    async def put(
        self, task_id: str, name: str, src_path: str | os.PathLike[str], content_type: str, *, consume: bool = False
    ) -> StoredFile:
        """Copy ``src_path`` into the store (atomically: readers never see half a file).

        With ``consume`` the file is renamed into place when it is on the same
        file system, so a 500 MB upload is not written a second time.
        """
        key = object_key(task_id, name)
        try:
            return await asyncio.to_thread(self._put, key, Path(src_path), content_type or DEFAULT_CONTENT_TYPE, consume)
        except OSError as exc:
            raise FileStoreError(f"cannot store {key}: {exc}") from exc

    def url(self, key: str, expires_at: float) -> str:
        expires = int(expires_at)
        return f"{self.base_url}/v1/files/{quote(key, safe='/')}?expires={expires}&sig={self.signature(key, expires)}"

    def expires_for(self, created_at: float) -> int:
        """Expiry of links to a file created at ``created_at`` (not extended by re-issuing)."""
        return int(created_at + self.ttl_s)

    def signature(self, key: str, expires: int) -> str:
        mac = hmac.new(self._secret, f"{key}\n{expires}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")

    def verify(self, key: str, expires: str | int, signature: str, *, now: float | None = None) -> None:
        """Raise LinkForged unless the link was issued by this store, then LinkExpired if past ``expires``.

        The signature is checked first, so only authentic links are ever
        reported as expired.
        """
        if not is_valid_key(key) or not _EXPIRES.fullmatch(str(expires)) or not signature:
            raise LinkForged("malformed download link")
        expected = self.signature(key, int(expires)).encode()
        if not hmac.compare_digest(expected, signature.encode("utf-8", "replace")):
            raise LinkForged("download link signature does not match")
        if (time.time() if now is None else now) >= int(expires):
            raise LinkExpired(f"download link expired at {int(expires)}")

    def open_path(self, key: str) -> Path:
        """The file behind ``key``; ValueError for keys outside the store, FileNotFoundError when gone."""
        if not is_valid_key(key):
            raise ValueError(f"invalid file key {key!r}")
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root):  # a symlink pointing out of the store
            raise ValueError(f"file key {key!r} leads outside the store")
        if not path.is_file():
            raise FileNotFoundError(key)
        return path

    def describe(self, key: str) -> StoredFile:
        path = self.open_path(key)
        try:
            meta = json.loads(self._meta_path(key).read_text())
        except (OSError, ValueError):
            meta = {}
        guessed = mimetypes.guess_type(path.name)[0] or DEFAULT_CONTENT_TYPE
        return StoredFile(key, path.stat().st_size, str(meta.get("content_type") or guessed))

    def purge(self, before: float) -> int:
        """Delete task folders whose files were all written before ``before``; returns how many."""
        removed = 0
        for folder in (p for p in self.root.iterdir() if p.is_dir()) if self.root.exists() else ():
            newest = max((f.stat().st_mtime for f in folder.iterdir()), default=0.0)
            if newest < before:
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
        return removed

    def _put(self, key: str, src: Path, content_type: str, consume: bool) -> StoredFile:
        dest = self.root / key
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:12]}.tmp")
        try:
            if not (consume and _rename(src, tmp)):
                shutil.copyfile(src, tmp)
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        stored = StoredFile(key, dest.stat().st_size, content_type)
        self._meta_path(key).write_text(json.dumps({"content_type": content_type, "size": stored.size}))
        return stored

    def _meta_path(self, key: str) -> Path:
        task_id, name = key.split("/")
        return self.root / task_id / f".{name}.json"  # never a valid key: segments cannot start with '.'


# --------------------------------------------------------------------------
# AWS Signature Version 4, query-string (presigned URL) form
# --------------------------------------------------------------------------

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
MAX_PRESIGN_S = 7 * 24 * 3600  # SigV4 refuses longer X-Amz-Expires


def uri_encode(value: str, *, keep_slash: bool = False) -> str:
    """SigV4 URI encoding: everything but ``A-Za-z0-9-._~`` (and ``/`` in paths) as %XX."""
    return quote(value, safe="-_.~/" if keep_slash else "-_.~")


def canonical_query(params: Mapping[str, str]) -> str:
    return "&".join(f"{k}={v}" for k, v in sorted((uri_encode(k), uri_encode(v)) for k, v in params.items()))


def canonical_request(method: str, path: str, query: str, headers: Mapping[str, str], payload_hash: str) -> str:
    """The SigV4 canonical request; ``path`` is unencoded, ``query`` already canonical."""
    values = {name.lower(): " ".join(value.strip().split()) for name, value in headers.items()}
    names = sorted(values)
    lines = "".join(f"{name}:{values[name]}\n" for name in names)
    return "\n".join([method, uri_encode(path, keep_slash=True), query, lines, ";".join(names), payload_hash])


def signing_key(secret_key: str, date: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret_key}".encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def sigv4_signature(secret_key: str, amz_date: str, region: str, service: str, canonical: str) -> str:
    """Hex signature of ``canonical`` for the credential scope of ``amz_date`` (YYYYMMDDTHHMMSSZ)."""
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join([ALGORITHM, amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = signing_key(secret_key, amz_date[:8], region, service)
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def presign(
    method: str,
    *,
    scheme: str,
    host: str,
    path: str,
    region: str,
    access_key: str,
    secret_key: str,
    expires_s: int,
    now: datetime,
    service: str = "s3",
    session_token: str | None = None,
    query: Mapping[str, str] | None = None,
) -> str:
    """A presigned URL: only ``host`` is a signed header and the payload is unsigned."""
    if not 1 <= expires_s <= MAX_PRESIGN_S:
        raise ValueError(f"presigned URLs live 1 s to 7 days, not {expires_s} s")
    amz_date = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    params = dict(query or {})
    params.update(
        {
            "X-Amz-Algorithm": ALGORITHM,
            "X-Amz-Credential": f"{access_key}/{amz_date[:8]}/{region}/{service}/aws4_request",
            "X-Amz-Date": amz_date,
            "X-Amz-Expires": str(expires_s),
            "X-Amz-SignedHeaders": "host",
        }
    )
    if session_token:
        params["X-Amz-Security-Token"] = session_token
    canonical_qs = canonical_query(params)
    canonical = canonical_request(method, path, canonical_qs, {"host": host}, UNSIGNED_PAYLOAD)
    signature = sigv4_signature(secret_key, amz_date, region, service, canonical)
    return f"{scheme}://{host}{uri_encode(path, keep_slash=True)}?{canonical_qs}&X-Amz-Signature={signature}"


@dataclasses.dataclass(frozen=True)
class S3Config:
    """An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2...).

    Attributes:
        endpoint_url: ``https://s3.eu-west-1.amazonaws.com`` or ``http://minio:9000``.
        bucket: bucket name.
        region: signing region (``us-east-1`` for most non-AWS stores).
        access_key, secret_key: credentials allowed to PUT and GET objects.
        prefix: folder inside the bucket (``outputs/``).
        session_token: for temporary credentials.
        path_style: ``endpoint/bucket/key`` (True) or ``bucket.endpoint/key``.
    """

    endpoint_url: str
    bucket: str
    region: str
    access_key: str
    secret_key: str = dataclasses.field(repr=False)
    prefix: str = ""
    session_token: str | None = dataclasses.field(default=None, repr=False)
    path_style: bool = True


class S3FileStore:
    """Uploads with a presigned PUT and hands out presigned GET links.

    Links are checked by the object store itself, so this store has no
    ``verify``/``open_path`` and the ``/v1/files`` route answers 404 for it.
    """

    UPLOAD_URL_TTL_S = 900

    def __init__(
        self,
        config: S3Config,
        *,
        ttl_s: int = keys.DOWNLOAD_LINK_TTL_S,
        timeout_s: float = 300,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self.clock = clock
        endpoint = urlsplit(config.endpoint_url)
        if endpoint.scheme not in ("http", "https") or not endpoint.netloc:
            raise ValueError(f"invalid S3 endpoint_url {config.endpoint_url!r}")
        self._scheme = endpoint.scheme
        self._netloc = endpoint.netloc
        self._base_path = endpoint.path.rstrip("/")

    async def put(
        self, task_id: str, name: str, src_path: str | os.PathLike[str], content_type: str, *, consume: bool = False
    ) -> StoredFile:
        key = object_key(task_id, name)
        src = Path(src_path)
        try:
            size = src.stat().st_size
        except OSError as exc:
            raise FileStoreError(f"cannot read {src} to store it as {key}: {exc}") from exc
        url = self._presign("PUT", key, self.UPLOAD_URL_TTL_S)
        headers = {"Content-Type": content_type or DEFAULT_CONTENT_TYPE, "Content-Length": str(size)}
        try:
            async with httpx.AsyncClient(trust_env=False, timeout=self.timeout_s) as client:
                response = await client.put(url, content=_chunks(src), headers=headers)
        except httpx.HTTPError as exc:
            raise FileStoreError(f"object store unreachable while storing {key}: {type(exc).__name__}") from exc
        if not response.is_success:
            raise FileStoreError(f"object store refused {key}: HTTP {response.status_code} {response.text[:200]}")
        return StoredFile(key, size, headers["Content-Type"])

    def url(self, key: str, expires_at: float) -> str:
        if not is_valid_key(key):
            raise ValueError(f"invalid file key {key!r}")
        expires_s = math.ceil(expires_at - self.clock())
        disposition = f'attachment; filename="{key.rsplit("/", 1)[-1]}"'
        return self._presign("GET", key, expires_s, {"response-content-disposition": disposition})

    def expires_for(self, created_at: float) -> int:
        return int(created_at + self.ttl_s)

    def _presign(self, method: str, key: str, expires_s: int, query: Mapping[str, str] | None = None) -> str:
        c = self.config
        object_name = f"{c.prefix.strip('/')}/{key}" if c.prefix.strip("/") else key
        if c.path_style:
            host, path = self._netloc, f"{self._base_path}/{c.bucket}/{object_name}"
        else:
            host, path = f"{c.bucket}.{self._netloc}", f"{self._base_path}/{object_name}"
        return presign(
            method,
            scheme=self._scheme,
            host=host,
            path=path,
            region=c.region,
            access_key=c.access_key,
            secret_key=c.secret_key,
            expires_s=expires_s,
            now=datetime.fromtimestamp(self.clock(), tz=UTC),
            session_token=c.session_token,
            query=query,
        )


async def _chunks(path: Path, size: int = 1 << 20) -> AsyncIterator[bytes]:
    with path.open("rb") as source:
        while chunk := await asyncio.to_thread(source.read, size):
            yield chunk
