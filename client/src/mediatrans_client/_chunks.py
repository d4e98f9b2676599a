"""Streamed response bodies: chunks of a request's answer, and chunks written to a file all or nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from mediatrans_client._requests import RequestSpec
from mediatrans_client._transport import AsyncTransport, SyncTransport


def body_chunks(transport: SyncTransport, spec: RequestSpec, chunk_size: int | None = None) -> Iterator[bytes]:
    """The answer's body, chunk by chunk; the request is sent (and may raise) when iteration starts."""
    with transport.stream(spec) as response:
        for chunk in response.iter_bytes(chunk_size):
            if chunk:
                yield chunk


async def abody_chunks(transport: AsyncTransport, spec: RequestSpec, chunk_size: int | None = None) -> AsyncIterator[bytes]:
    """Like :func:`body_chunks`, for the asyncio transport."""
    async with transport.stream(spec) as response:
        async for chunk in response.aiter_bytes(chunk_size):
            if chunk:
                yield chunk


def _partial(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def write_chunks(chunks: Iterator[bytes], target: Path) -> Path:
    """Write ``chunks`` to ``target.part``, then rename it to ``target``; on failure nothing is left behind."""
    partial = _partial(target)
    try:
        with open(partial, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # an unfinished generator releases its connection now
    partial.replace(target)
    return target


async def awrite_chunks(chunks: AsyncIterator[bytes], target: Path) -> Path:
    """Like :func:`write_chunks`, for an async iterator."""
    partial = _partial(target)
    try:
        with open(partial, "wb") as out:
            async for chunk in chunks:
                out.write(chunk)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
    partial.replace(target)
    return target
