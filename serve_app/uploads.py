"""Streaming ``multipart/form-data`` reader for large uploads.

The file part is written to disk chunk by chunk as it arrives (never held in
memory) and hashed on the way, so the idempotency fingerprint needs no second
pass. Text fields are small and capped. The body-size cap itself is enforced
by ``BodyLimitMiddleware`` while the same bytes stream through.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import IO
from urllib.parse import parse_qsl

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from core.errors import ApiError, ErrorKind

MAX_FIELD_BYTES = 64 * 1024
MAX_FIELDS = 64
#: Text fields a form may repeat, collected into a list in order (``instructions``: one per instruction).
REPEATABLE = frozenset({"instructions"})
#: A urlencoded form carries only text fields, so it is capped far below an upload.
MAX_URLENCODED_BYTES = 256 * 1024
_SAFE_SUFFIX = re.compile(r"^\.[A-Za-z0-9]{1,8}$")
MALFORMED_MULTIPART = "The multipart body is malformed."


@dataclasses.dataclass(frozen=True)
class UploadedFile:
    path: Path
    filename: str
    content_type: str
    size: int
    sha256: str


@dataclasses.dataclass(frozen=True)
class Attachment:
    """A small file part held in memory (a subtitle file beside a video)."""

    filename: str
    data: bytes


@dataclasses.dataclass(frozen=True)
class FormBody:
    fields: dict[str, str | list[str]]
    file: UploadedFile | None
    attachments: dict[str, Attachment] = dataclasses.field(default_factory=dict)


class _Collector:
    """python-multipart callbacks: fields into memory, the file part onto disk."""

    def __init__(self, dest_dir: Path, file_field: str, attachments: dict[str, int] | None = None) -> None:
        self.dest_dir = dest_dir
        self.file_field = file_field
        self.attachment_caps = attachments or {}
        self.attachments: dict[str, Attachment] = {}
        self._attachment: str | None = None
        self.fields: dict[str, str | list[str]] = {}
        self.file: UploadedFile | None = None
        self._headers: dict[bytes, bytes] = {}
        self._header_field = b""
        self._header_value = b""
        self._name = ""
        self._filename: str | None = None
        self._buffer = bytearray()
        self._out: IO[bytes] | None = None
        self._hash = hashlib.sha256()
        self._size = 0

    def on_part_begin(self) -> None:
        self._headers, self._buffer = {}, bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[self._header_field.lower()] = self._header_value
        self._header_field, self._header_value = b"", b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        self._name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        self._filename = filename.decode("utf-8", "replace") if filename is not None else None
        taken = (self._name in self.fields and self._name not in REPEATABLE) or self._name in self.attachments
        if taken or (self._filename is not None and self._name == self.file_field and self.file is not None):
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"Field {self._name!r} given more than once.")
        if self._filename is not None and self._name in self.attachment_caps:
            self._attachment = self._name
        elif self._filename is not None:
            if self._name != self.file_field:
                raise ApiError(
                    ErrorKind.INVALID_PARAMETER, f"Unexpected file field {self._name!r}; send the file as {self.file_field!r}."
                )
            self.dest_dir.mkdir(parents=True, exist_ok=True)
            self._out = open(self._target(), "wb")  # noqa: SIM115 - closed in on_part_end / close()
        elif len(self.fields) >= MAX_FIELDS:
            raise ApiError(ErrorKind.INVALID_PARAMETER, "Too many form fields.")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self._attachment is not None:
            self._buffer += chunk
            cap = self.attachment_caps[self._attachment]
            if len(self._buffer) > cap:
                raise ApiError(ErrorKind.INVALID_PARAMETER, f"{self._attachment} is over the {cap // (1 << 20)} MB limit.")
            return
        if self._out is not None:
            self._out.write(chunk)
            self._hash.update(chunk)
            self._size += len(chunk)
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_FIELD_BYTES:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"Field {self._name!r} is longer than {MAX_FIELD_BYTES} bytes.")

    def on_part_end(self) -> None:
        if self._attachment is not None:
            self.attachments[self._attachment] = Attachment(self._filename or "", bytes(self._buffer))
            self._attachment = None
            return
        if self._out is None:
            _add_field(self.fields, self._name, self._buffer.decode("utf-8", "replace"))
            return
        self._out.close()
        content_type = self._headers.get(b"content-type", b"application/octet-stream").decode("latin-1")
        self.file = UploadedFile(Path(self._out.name), self._filename or "", content_type, self._size, self._hash.hexdigest())
        self._out = None

    def _target(self) -> Path:
        suffix = Path(self._filename or "").suffix.lower()
        return self.dest_dir / ("source" + (suffix if _SAFE_SUFFIX.match(suffix) else ""))

    def close(self) -> None:
        if self._out is not None:
            self._out.close()


async def read_form(
    request: Request, dest_dir: Path, file_field: str = "file", attachments: dict[str, int] | None = None
) -> FormBody:
    """Parse a multipart (or urlencoded) body; the file part lands in ``dest_dir``, the ``attachments`` file parts
    (name → cap in bytes) are held in memory."""
    content_type, params = parse_options_header(request.headers.get("content-type", ""))
    if content_type == b"application/x-www-form-urlencoded":
        return FormBody(await _read_urlencoded(request), None)
    if content_type != b"multipart/form-data" or b"boundary" not in params:
        raise ApiError(ErrorKind.UNSUPPORTED_MEDIA_TYPE, "Send multipart/form-data (let the client generate the boundary).")
    collector = _Collector(dest_dir, file_field, attachments)
    callbacks = {name: getattr(collector, name) for name in dir(collector) if name.startswith("on_")}
    try:  # the parser refuses a boundary over 256 characters as it is built
        parser = MultipartParser(params[b"boundary"], callbacks)  # type: ignore[arg-type]
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except ApiError:
        raise
    except Exception:  # the parser's own errors, whose wording is the library's: a malformed body
        raise ApiError(ErrorKind.INVALID_PARAMETER, MALFORMED_MULTIPART) from None
    finally:
        collector.close()
    return FormBody(collector.fields, collector.file, collector.attachments)


async def _read_urlencoded(request: Request) -> dict[str, str | list[str]]:
    """Text fields of a urlencoded body, read under :data:`MAX_URLENCODED_BYTES` while it streams."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_URLENCODED_BYTES:
            raise ApiError(  # text fields only: an oversized one is a bad parameter, not a big video
                ErrorKind.INVALID_PARAMETER,
                f"A urlencoded form may have at most {MAX_URLENCODED_BYTES // 1024} KB; send files as multipart/form-data.",
            )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(ErrorKind.INVALID_PARAMETER, "The form body is not valid UTF-8.") from None
    try:
        pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS, strict_parsing=False)
    except ValueError:  # more than MAX_FIELDS fields
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"A form may have at most {MAX_FIELDS} fields.") from None
    fields: dict[str, str | list[str]] = {}
    for name, value in pairs:
        if name in fields and name not in REPEATABLE:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"Field {name!r} given more than once.")
        if len(value.encode()) > MAX_FIELD_BYTES:
            raise ApiError(ErrorKind.INVALID_PARAMETER, f"Field {name!r} is longer than {MAX_FIELD_BYTES} bytes.")
        _add_field(fields, name, value)
    return fields


def _add_field(fields: dict[str, str | list[str]], name: str, value: str) -> None:
    """A field's value; a repeated one (:data:`REPEATABLE`) becomes the list of its values."""
    if name not in fields:
        fields[name] = value
        return
    earlier = fields[name]
    fields[name] = [*([earlier] if isinstance(earlier, str) else earlier), value]
