"""Builds the configured file store from :class:`~core.settings.AppArgs`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from core.files.base import FileStore
from core.files.local import LocalFileStore
from core.files.s3 import S3Config, S3FileStore
from core.settings import AppArgs

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
_SECRET_FILE = ".link-secret"


def file_store(args: AppArgs) -> FileStore:
    """Local directory (served by ``/v1/files``) or an S3-compatible bucket."""
    storage = args.storage
    if storage.backend == "s3":
        credentials = {
            "access_key": os.environ.get("AWS_ACCESS_KEY_ID", ""),
            "secret_key": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
            "session_token": os.environ.get("AWS_SESSION_TOKEN"),
        }
        return S3FileStore(S3Config(**{**credentials, **storage.s3}), ttl_s=storage.link_ttl_s)
    base_url = args.public_base_url or os.environ.get("MEDIATRANS_PUBLIC_URL", DEFAULT_BASE_URL)
    return LocalFileStore(
        storage.root_dir, base_url, _local_secret(storage.secret, Path(storage.root_dir)), ttl_s=storage.link_ttl_s
    )


def _local_secret(configured: str, root: Path) -> bytes:
    """The configured link secret, else one kept (0600) beside the files it signs."""
    if configured:
        return configured.encode()
    root.mkdir(parents=True, exist_ok=True)
    path = root / _SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as out:
        out.write(secrets.token_hex(32).encode())
    return path.read_bytes().strip()
