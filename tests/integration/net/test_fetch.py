"""download() and send_pinned() against real loopback servers (http and https)."""

from __future__ import annotations

import re
import ssl
import time
from pathlib import Path

import httpx
import pytest

from engines.errors import InvalidUrl, MediaTooLarge
from engines.net import UrlPolicy, check_url, download, send_pinned
from engines.net.fetch import pinned_client
from tests.integration.net.conftest import Resolver
from tests.integration.net.loopback import LoopbackServer, pattern
from tests.support.services import free_port

ANY_PORT = frozenset(range(1, 65536))  # loopback servers listen on free ports
LOOPBACK_OK = UrlPolicy(allow_private=True, allowed_ports=ANY_PORT)  # only because these servers live on 127.0.0.1


async def fetch(url: str, dest: Path, policy: UrlPolicy = LOOPBACK_OK, max_bytes: int = 10**6, timeout_s: float = 5):
    return await download(url, dest, policy=policy, max_bytes=max_bytes, timeout_s=timeout_s)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "127.0.0.2"])
async def test_default_policy_refuses_loopback_without_connecting(server: LoopbackServer, tmp_path: Path, host: str) -> None:
    with pytest.raises(InvalidUrl, match=r"not public \(loopback\)"):
        await fetch(server.url("/file/10", host=host), tmp_path / "v.mp4", policy=UrlPolicy(allowed_ports=ANY_PORT))
    assert server.hits == []
    assert leftovers(tmp_path) == []


async def test_download_streams_the_body_to_disk(server: LoopbackServer, tmp_path: Path) -> None:
    result = await fetch(server.url("/file/300000"), tmp_path / "v.mp4")
    assert (result.path, result.bytes, result.content_type) == (tmp_path / "v.mp4", 300_000, "video/mp4")
    assert result.final_url == server.url("/file/300000")
    assert (tmp_path / "v.mp4").read_bytes() == pattern(300_000)
    assert leftovers(tmp_path) == ["v.mp4"]
    assert server.hits[0].headers["accept-encoding"] == "identity"


async def test_connection_goes_to_the_checked_address_with_the_host_kept(
    server: LoopbackServer, fake_dns: Resolver, tmp_path: Path
) -> None:
    queries = fake_dns({"media.test": ["127.0.0.1"]})
    result = await fetch(f"http://media.test:{server.port}/echo-host", tmp_path / "h.txt")
    assert (tmp_path / "h.txt").read_text() == f"media.test:{server.port}"  # Host header of the original URL
    assert queries == ["media.test"]  # resolved once, by the check; httpx never resolved the name again
    assert result.final_url == f"http://media.test:{server.port}/echo-host"


async def test_every_redirect_hop_is_checked(server: LoopbackServer, fake_dns: Resolver, tmp_path: Path) -> None:
    fake_dns({"media.test": ["127.0.0.1"], "evil.test": ["127.0.0.1"]})
    policy = UrlPolicy(allowed_hosts=frozenset({"media.test"}), allowed_ports=ANY_PORT)  # only the test server is exempt
    start = f"http://media.test:{server.port}/redirect?to="
    refused = {
        "http://169.254.169.254/latest/meta-data/": r"redirect 1 refused: .*169\.254\.169\.254 is not public \(link-local\)",
        f"http://evil.test:{server.port}/file/10": r"redirect 1 refused: .*'evil\.test' resolves to an address that is not",
        f"http://[::1]:{server.port}/file/10": r"redirect 1 refused: .*not public \(loopback\)",
        "ftp://media.test/file": r"redirect 1 refused: .*scheme 'ftp'",
    }
    for target, message in refused.items():
        with pytest.raises(InvalidUrl, match=message):
            await fetch(start + target, tmp_path / "v.mp4", policy=policy)
    assert [h.path.split("?")[0] for h in server.hits] == ["/redirect"] * len(refused)  # no refused hop was contacted
    result = await fetch(start + "/redirect%3Fto%3D/file/64", tmp_path / "v.mp4", policy=policy)
    assert (result.bytes, result.final_url) == (64, f"http://media.test:{server.port}/file/64")
    assert leftovers(tmp_path) == ["v.mp4"]


async def test_redirect_loops_and_error_statuses(server: LoopbackServer, tmp_path: Path) -> None:
    with pytest.raises(InvalidUrl, match="more than 5 redirects"):
        await fetch(server.url("/loop"), tmp_path / "v.mp4")
    assert len(server.hits) == 6
    for status in (404, 500, 304):
        with pytest.raises(InvalidUrl, match=f"answered HTTP {status}"):
            await fetch(server.url(f"/status/{status}"), tmp_path / "v.mp4")
    assert leftovers(tmp_path) == []


async def test_declared_size_over_the_cap_is_refused_before_reading(server: LoopbackServer, tmp_path: Path) -> None:
    with pytest.raises(MediaTooLarge, match="5000 bytes, over the limit of 4000"):
        await fetch(server.url("/file/5000"), tmp_path / "v.mp4", max_bytes=4000)
    with pytest.raises(MediaTooLarge, match="1000000000 bytes"):
        await fetch(server.url("/lying/1000000000"), tmp_path / "v.mp4", max_bytes=4000)
    assert leftovers(tmp_path) == []


async def test_undeclared_body_is_cut_while_streaming(server: LoopbackServer, tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(MediaTooLarge, match="over the limit of 100000 bytes"):
        await fetch(server.url("/chunked/20000000"), tmp_path / "v.mp4", max_bytes=100_000)
    assert time.monotonic() - started < 3
    assert leftovers(tmp_path) == []  # the partial file is gone
    result = await fetch(server.url("/chunked/100000"), tmp_path / "v.mp4", max_bytes=100_000)
    assert result.bytes == 100_000  # exactly at the cap is fine


@pytest.mark.parametrize("path", ["/slow/4", "/hang/3"])
async def test_total_time_cap(server: LoopbackServer, tmp_path: Path, path: str) -> None:
    started = time.monotonic()
    with pytest.raises(InvalidUrl, match=re.escape("timed out after 0.5 s")) as info:
        await fetch(server.url(path), tmp_path / "v.mp4", timeout_s=0.5)
    assert 0.4 < time.monotonic() - started < 2
    assert isinstance(info.value.__cause__, TimeoutError | httpx.TimeoutException)
    assert leftovers(tmp_path) == []


async def test_unreachable_port(tmp_path: Path) -> None:
    with pytest.raises(InvalidUrl, match="URL unreachable: ConnectError") as info:
        await fetch(f"http://127.0.0.1:{free_port()}/v.mp4", tmp_path / "v.mp4")
    assert isinstance(info.value.__cause__, httpx.ConnectError)


async def test_tls_uses_the_original_name_for_sni_and_certificate(
    tls_server: tuple[LoopbackServer, ssl.SSLContext], fake_dns: Resolver
) -> None:
    server, trust = tls_server
    fake_dns({"media.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    async with pinned_client(5, 5, verify=trust) as client:  # one client for all: no connection reuse across names
        target = check_url(f"https://media.test:{server.port}/echo-host", LOOPBACK_OK)
        response = await send_pinned(client, "GET", target)
        assert await response.aread() == f"media.test:{server.port}".encode()
        await response.aclose()
        for wrong in ("other.test", "127.0.0.1"):  # the certificate names media.test only
            with pytest.raises(httpx.ConnectError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
                await send_pinned(client, "GET", check_url(f"https://{wrong}:{server.port}/echo-host", LOOPBACK_OK))


async def test_a_redirect_to_a_non_web_port_is_refused(server: LoopbackServer, fake_dns: Resolver, tmp_path: Path) -> None:
    fake_dns({"media.test": ["127.0.0.1"]})
    policy = UrlPolicy(allowed_hosts=frozenset({"media.test"}))  # the trusted test server may use its port; others 80/443
    with pytest.raises(InvalidUrl, match=r"redirect 1 refused: .*port 6379 is not allowed"):
        await fetch(f"http://media.test:{server.port}/redirect?to=http://8.8.8.8:6379/", tmp_path / "v.mp4", policy=policy)
    assert [h.path.split("?")[0] for h in server.hits] == ["/redirect"]
