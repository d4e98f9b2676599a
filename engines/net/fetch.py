"""Downloading customer media, and sending requests, only to checked addresses.

Checking a URL and then handing it to an HTTP client is not enough: the client
resolves the host again, and a DNS answer that changed in between (DNS
rebinding) would connect it to a private address after all. Here the host is
resolved once, by :func:`~engines.net.urls.check_url`, and the
request is sent to one of the checked addresses *as an IP literal*:

* the URL given to httpx carries the checked IP, so httpx never resolves a name;
* the ``Host`` header keeps the original host (and port), so virtual hosting works;
* for https the ``sni_hostname`` request extension (public httpx/httpcore API)
  sends the original name in the TLS handshake, and certificate verification
  checks the certificate against that name, not against the IP;
* after connecting, the peer address of the socket (``network_stream`` response
  extension) is compared with the checked IP;
* environment proxies are ignored (``trust_env=False``), because a proxy would
  make the connected address meaningless.

Redirects are followed by hand so that every hop goes through the same check.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import os
import ssl
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

from engines.errors import EngineFailure, InvalidUrl, MediaTooLarge
from engines.net.urls import IPAddress, ResolvedUrl, UrlPolicy, check_url

CHUNK_BYTES = 64 * 1024
USER_AGENT = "mediatrans-fetch/1.0"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclasses.dataclass(frozen=True)
class FetchResult:
    """A completed download.

    Attributes:
        path: where the body now lies (the ``dest_path`` given).
        bytes: body size written to disk.
        content_type: the server's ``Content-Type``, if any.
        final_url: the URL after redirects (the original host, not the IP).
    """

    path: Path
    bytes: int
    content_type: str | None
    final_url: str


async def download(
    url: str,
    dest_path: str | os.PathLike[str],
    *,
    policy: UrlPolicy,
    max_bytes: int,
    timeout_s: float,
    connect_timeout_s: float = 10,
    max_redirects: int = 5,
) -> FetchResult:
    """Stream ``url`` into ``dest_path`` within a size and a total-time cap.

    Raises:
        InvalidUrl: refused by ``policy`` (at any redirect hop), unreachable,
            non-2xx answer, too many redirects, or over ``timeout_s`` in total.
        MediaTooLarge: the declared or streamed body exceeds ``max_bytes``.
        EngineFailure: the file could not be written locally.

    The body is written to a temporary file next to ``dest_path`` and renamed
    on success, so a failed download never leaves a partial file behind.
    """
    dest = Path(dest_path)
    part = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:12]}.part")
    try:
        with _map_errors(timeout_s, connect_timeout_s):
            async with asyncio.timeout(timeout_s):
                result = await _download(url, part, policy, max_bytes, timeout_s, connect_timeout_s, max_redirects)
            os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)
    return dataclasses.replace(result, path=dest)


async def send_pinned(
    client: httpx.AsyncClient,
    method: str,
    target: ResolvedUrl,
    *,
    headers: Mapping[str, str] | None = None,
    content: bytes | None = None,
) -> httpx.Response:
    """Send one request to ``target`` over a connection to one of its checked addresses.

    Addresses are tried in resolver order until one accepts the connection.
    The response is streaming: the caller reads it or calls ``aclose()``.
    Redirects are not followed. Use a client from :func:`pinned_client`, which
    never reuses a connection across requests.

    Raises:
        httpx.ConnectError: no checked address accepted a connection.
        InvalidUrl: the socket's peer is not the checked address.
    """
    if not target.addresses:
        raise ValueError("send_pinned needs a URL checked with resolve=True")
    failure: httpx.ConnectError | None = None
    for address in target.addresses:
        request = _pinned_request(client, method, target, address, headers, content)
        try:
            response = await client.send(request, stream=True)
        except httpx.ConnectError as exc:
            failure = exc
            continue
        await _check_peer(response, address)
        return response
    assert failure is not None
    raise failure


def pinned_client(
    timeout_s: float,
    connect_timeout_s: float,
    headers: Mapping[str, str] | None = None,
    *,
    verify: ssl.SSLContext | bool = True,
) -> httpx.AsyncClient:
    """An AsyncClient fit for :func:`send_pinned`.

    No redirects, no environment proxies, and no kept-alive connections: the
    pool keys connections by the IP in the URL, so a kept connection whose TLS
    session was verified for one host name would otherwise be reused for
    another name on the same address, without its certificate being checked.
    """
    return httpx.AsyncClient(
        trust_env=False,
        follow_redirects=False,
        verify=verify,
        limits=httpx.Limits(max_keepalive_connections=0),
        timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
        headers={"User-Agent": USER_AGENT, **(headers or {})},
    )


def _pinned_request(
    client: httpx.AsyncClient,
    method: str,
    target: ResolvedUrl,
    address: IPAddress,
    headers: Mapping[str, str] | None,
    content: bytes | None,
) -> httpx.Request:
    url = httpx.URL(target.url)
    merged = httpx.Headers(headers)
    merged["Host"] = url.netloc.decode("ascii")
    extensions = {"sni_hostname": target.host} if target.scheme == "https" and not target.host_is_ip else {}
    return client.build_request(method, url.copy_with(host=str(address)), headers=merged, content=content, extensions=extensions)


async def _check_peer(response: httpx.Response, address: IPAddress) -> None:
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if peer is None:
        return  # transport without socket details (never the default one)
    if ipaddress.ip_address(str(peer[0]).split("%", 1)[0]) != address:
        await response.aclose()
        raise InvalidUrl("URL refused: the connection reached an address other than the checked one")


async def _download(
    url: str,
    part: Path,
    policy: UrlPolicy,
    max_bytes: int,
    timeout_s: float,
    connect_timeout_s: float,
    max_redirects: int,
) -> FetchResult:
    async with pinned_client(timeout_s, connect_timeout_s, {"Accept-Encoding": "identity"}) as client:
        response, target = await _open_final(client, url, policy, max_redirects)
        try:
            size = await _stream_to(response, part, max_bytes)
        finally:
            await response.aclose()
    return FetchResult(part, size, response.headers.get("content-type"), target.url)


async def _open_final(
    client: httpx.AsyncClient, url: str, policy: UrlPolicy, max_redirects: int
) -> tuple[httpx.Response, ResolvedUrl]:
    """The 2xx response at the end of the redirect chain, every hop checked."""
    current = url
    for hop in range(max_redirects + 1):
        target = await _check_hop(current, policy, hop)
        response = await send_pinned(client, "GET", target)
        if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
            await response.aclose()
            current = _redirect_target(target, response.headers["location"])
            continue
        if not response.is_success:
            await response.aclose()
            raise InvalidUrl(f"URL could not be fetched: the server answered HTTP {response.status_code}")
        return response, target
    raise InvalidUrl(f"URL could not be fetched: more than {max_redirects} redirects")


async def _check_hop(url: str, policy: UrlPolicy, hop: int) -> ResolvedUrl:
    """``check_url`` off the event loop (it resolves); a refused redirect says so."""
    try:
        return await asyncio.to_thread(check_url, url, policy)
    except InvalidUrl as exc:
        if hop == 0:
            raise
        raise InvalidUrl(f"redirect {hop} refused: {exc}") from exc


def _redirect_target(target: ResolvedUrl, location: str) -> str:
    try:
        return str(httpx.URL(target.url).join(location))
    except (httpx.InvalidURL, ValueError) as exc:
        raise InvalidUrl("URL could not be fetched: malformed redirect Location") from exc


async def _stream_to(response: httpx.Response, part: Path, max_bytes: int) -> int:
    declared = _content_length(response)
    if declared is not None and declared > max_bytes:
        raise MediaTooLarge(f"media is {declared} bytes, over the limit of {max_bytes} bytes")
    total = 0
    with part.open("wb") as sink:
        async for chunk in response.aiter_bytes(CHUNK_BYTES):
            total += len(chunk)
            if total > max_bytes:
                raise MediaTooLarge(f"media is over the limit of {max_bytes} bytes")
            sink.write(chunk)
    return total


def _content_length(response: httpx.Response) -> int | None:
    value = response.headers.get("content-length", "")
    return int(value) if value.isdigit() else None


@contextlib.contextmanager
def _map_errors(timeout_s: float, connect_timeout_s: float) -> Iterator[None]:
    """Translate httpx/asyncio/OS failures into the engine error tree, cause chained."""
    try:
        yield
    except httpx.ConnectTimeout as exc:
        raise InvalidUrl(f"URL unreachable: no connection within {connect_timeout_s:g} s") from exc
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise InvalidUrl(f"URL could not be fetched: timed out after {timeout_s:g} s") from exc
    except httpx.HTTPError as exc:
        raise InvalidUrl(f"URL unreachable: {type(exc).__name__}: {exc}") from exc
    except OSError as exc:
        raise EngineFailure(f"cannot write the downloaded media: {exc}") from exc
