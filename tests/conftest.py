"""Fixtures for every suite: one real redis-server per session (append-only file), flushed per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import redis
from redis.asyncio import Redis

from tests.support.services import RedisServer, redis_server


@pytest.fixture(scope="session")
def redis_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The session's redis-server, with an append-only file so fault tests can restart it without losing data."""
    with redis_server(tmp_path_factory.mktemp("redis"), persistent=True) as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_service: RedisServer) -> str:
    """Database 0: store-level tests, flushed per test."""
    return redis_service.url


@pytest.fixture(scope="session")
def serve_redis_url(redis_service: RedisServer) -> str:
    """Database 1: the session's Serve app alone, so its workers never take jobs or callbacks of store tests."""
    return redis_service.url.rsplit("/", 1)[0] + "/1"


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    """An async client on a flushed database."""
    client = Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def sync_redis(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()
