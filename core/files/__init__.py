"""Task input and output files and the signed, expiring links that hand them out.

Two stores implement :class:`~core.files.base.FileStore`: a local directory
served by ``/v1/files`` (:mod:`core.files.local`) and an S3-compatible bucket
with presigned links (:mod:`core.files.s3`). :func:`~core.files.factory.file_store`
builds the configured one.
"""

from core.files.base import (
    DEFAULT_CONTENT_TYPE,
    FileStore,
    FileStoreError,
    LinkError,
    LinkExpired,
    LinkForged,
    ServedFileStore,
    StoredFile,
    is_valid_key,
    object_key,
)
from core.files.local import LocalFileStore
from core.files.s3 import S3Config, S3FileStore

__all__ = [
    "DEFAULT_CONTENT_TYPE",
    "FileStore",
    "FileStoreError",
    "LinkError",
    "LinkExpired",
    "LinkForged",
    "LocalFileStore",
    "S3Config",
    "S3FileStore",
    "ServedFileStore",
    "StoredFile",
    "is_valid_key",
    "object_key",
]
