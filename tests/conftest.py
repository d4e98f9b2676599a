"""Fixtures for every suite: one real redis-server per session, flushed per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import redis
from redis.asyncio import Redis

from tests.support.services import redis_server


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


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
