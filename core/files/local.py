"""Files on a local disk, served by ``/v1/files`` behind HMAC-signed links.

Links are ``/v1/files/{key}?expires=<unix>&sig=<mac>``, where ``mac`` is
HMAC-SHA256 over ``key + "\\n" + expires`` with the store's secret, base64url
without padding. Every ingress replica must share the secret.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import hashlib
import hmac
import json
import logging
import mimetypes
import os
import re
import shutil
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from core import keys
from core.files.base import (
    DEFAULT_CONTENT_TYPE,
    FileStoreError,
    LinkExpired,
    LinkForged,
    StoredFile,
    is_valid_key,
    object_key,
)

log = logging.getLogger("mediatrans.files")

_EXPIRES = re.compile(r"[0-9]{1,12}")
#: Every tenant's outputs live here: owner-only, whatever the process umask.
DIR_MODE = 0o700
FILE_MODE = 0o600
_SHARED_BITS = 0o077


def private_dirs(path: Path) -> None:
    """Create ``path`` and any missing parent with mode 0700 (``mkdir(parents=True)`` gives parents the umask's mode)."""
    missing: list[Path] = []
    while not path.is_dir():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:  # made by another writer meanwhile
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask, never widened: set it exactly


def _tighten(folder: Path) -> None:
    """Drop group/other access from a folder of ours made before the store was owner-only (older deployments)."""
    try:
        info = folder.stat()
        if info.st_uid == os.geteuid() and info.st_mode & _SHARED_BITS:
            os.chmod(folder, info.st_mode & 0o700)
            log.info("file store %s: removed group/other access", folder)
    except OSError as exc:  # not ours to change (a mounted volume): leave it
        log.warning("file store %s: cannot make it owner-only: %s", folder, exc)


def _rename(src: Path, dest: Path) -> bool:
    """Move ``src`` to ``dest``; False when they are on different file systems."""
    try:
        os.replace(src, dest)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            return False
        raise
    return True


def newest_mtime(folder: Path) -> float | None:
    """The latest modification time of ``folder`` and the files directly in it; None when it vanished.

    Files may be renamed or removed while we look (a store writing through a
    temporary file, another purge): those are skipped, never fatal.
    """
    try:
        newest = folder.stat().st_mtime
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
                except FileNotFoundError:
                    continue
    except (FileNotFoundError, NotADirectoryError):
        return None
    return newest


def stale_folders(root: Path, before: float, keep: frozenset[str] = frozenset()) -> list[Path]:
    """Sub-folders of ``root`` not touched since ``before`` (except ``keep``)."""
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and p.name not in keep]
    except FileNotFoundError:
        return []
    return [f for f in folders if (newest := newest_mtime(f)) is not None and newest < before]


def purge_folders(root: Path, before: float, keep: frozenset[str] = frozenset()) -> int:
    """Delete sub-folders of ``root`` not touched since ``before`` (except ``keep``); returns how many."""
    stale = stale_folders(root, before, keep)
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)
    return len(stale)


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
        self._root_ready = False

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

    async def fetch(self, key: str, dest: Path) -> Path:
        """The stored file itself: nothing is copied."""
        return self.open_path(key)

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
        return purge_folders(self.root, before)

    def _put(self, key: str, src: Path, content_type: str, consume: bool) -> StoredFile:
        dest = self.root / key
        if not self._root_ready:
            private_dirs(self.root)
            _tighten(self.root)
            self._root_ready = True
        private_dirs(dest.parent)
        tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:12]}.tmp")
        try:
            if not (consume and _rename(src, tmp)):
                shutil.copyfile(src, tmp)
            os.chmod(tmp, FILE_MODE)  # before it gets its name: a copy has the umask's mode, a moved file keeps its own
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        stored = StoredFile(key, dest.stat().st_size, content_type)
        meta = self._meta_path(key)
        fd = os.open(meta, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w") as out:
            os.fchmod(fd, FILE_MODE)  # an existing file keeps its mode through O_CREAT
            out.write(json.dumps({"content_type": content_type, "size": stored.size}))
        return stored

    def _meta_path(self, key: str) -> Path:
        task_id, name = key.split("/")
        return self.root / task_id / f".{name}.json"  # never a valid key: segments cannot start with '.'
