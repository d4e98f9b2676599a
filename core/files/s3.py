"""Outputs in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2...), handed out as presigned GETs.

The S3 protocol (SigV4 signing, multipart uploads, retries, checksums) is
botocore's, through boto3: a maintained implementation every S3-compatible
server is tested against, rather than signing code of our own. boto3 is
synchronous; each call runs in a worker thread so the event loop never blocks.
Links are checked by the object store itself, so downloads never pass through
this service and the ``/v1/files`` route answers 404 for this store.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import keys
from core.files.base import DEFAULT_CONTENT_TYPE, FileStoreError, StoredFile, is_valid_key, object_key

MAX_PRESIGN_S = 7 * 24 * 3600  # SigV4 refuses longer lifetimes


@dataclasses.dataclass(frozen=True)
class S3Config:
    """An S3-compatible bucket.

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
    """Uploads with boto3 and hands out presigned GET links valid until a given time."""

    def __init__(
        self,
        config: S3Config,
        *,
        ttl_s: int = keys.DOWNLOAD_LINK_TTL_S,
        timeout_s: float = 300,
        clock: Callable[[], float] = time.time,
    ) -> None:
        import boto3
        from botocore.config import Config

        self.config = config
        self.ttl_s = ttl_s
        self.clock = clock
        self._client: Any = boto3.session.Session().client(
            "s3",
            endpoint_url=config.endpoint_url or None,  # empty: AWS's own endpoint for the region
            region_name=config.region,
            # Empty keys: boto3's default chain (web identity / IRSA, Pod Identity, instance profile).
            aws_access_key_id=config.access_key or None,
            aws_secret_access_key=config.secret_key or None,
            aws_session_token=config.session_token or None,
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": "path" if config.path_style else "virtual"},
                connect_timeout=min(timeout_s, 10),
                read_timeout=timeout_s,
                retries={"mode": "standard", "max_attempts": 4},
            ),
        )

    async def put(
        self, task_id: str, name: str, src_path: str | os.PathLike[str], content_type: str, *, consume: bool = False
    ) -> StoredFile:
        key = object_key(task_id, name)
        src = Path(src_path)
        content_type = content_type or DEFAULT_CONTENT_TYPE
        try:
            size = src.stat().st_size
            await asyncio.to_thread(
                self._client.upload_file, str(src), self.config.bucket, self._object(key), ExtraArgs={"ContentType": content_type}
            )
        except Exception as exc:  # botocore's ClientError, connection errors, local read errors
            raise FileStoreError(f"cannot store {key} in the object store: {type(exc).__name__}: {exc}") from exc
        if consume:
            src.unlink(missing_ok=True)
        return StoredFile(key, size, content_type)

    async def fetch(self, key: str, dest: Path) -> Path:
        """Download ``key`` to ``dest``."""
        if not is_valid_key(key):
            raise ValueError(f"invalid file key {key!r}")
        try:
            await asyncio.to_thread(self._client.download_file, self.config.bucket, self._object(key), str(dest))
        except Exception as exc:
            raise FileStoreError(f"cannot read {key} from the object store: {type(exc).__name__}: {exc}") from exc
        return dest

    def url(self, key: str, expires_at: float) -> str:
        if not is_valid_key(key):
            raise ValueError(f"invalid file key {key!r}")
        expires_s = math.ceil(expires_at - self.clock())
        if not 1 <= expires_s <= MAX_PRESIGN_S:
            raise ValueError(f"presigned URLs live 1 s to 7 days, not {expires_s} s")
        params = {
            "Bucket": self.config.bucket,
            "Key": self._object(key),
            "ResponseContentDisposition": f'attachment; filename="{key.rsplit("/", 1)[-1]}"',
        }
        url: str = self._client.generate_presigned_url("get_object", Params=params, ExpiresIn=expires_s)
        return url

    def expires_for(self, created_at: float) -> int:
        return int(created_at + self.ttl_s)

    def _object(self, key: str) -> str:
        prefix = self.config.prefix.strip("/")
        return f"{prefix}/{key}" if prefix else key
