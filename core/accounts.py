"""Accounts, API tokens and per-account limits, stored in Redis.

Tokens are random 256-bit secrets shown once at creation. Only their SHA-256
is stored: a salted slow hash buys nothing for random high-entropy tokens, and
the lookup must stay a single O(1) Redis read on every request. A token with a
lifetime is stored with a matching Redis TTL, so it disappears on expiry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import time
import uuid
from typing import Any, cast

from redis.asyncio import Redis

from core import keys

TOKEN_PREFIX = "mt_"

DEFAULT_RATE_PER_MINUTE = 600
DEFAULT_BURST = 60
#: Cloned voices an account may hold at once (contract section 8); per account with ``mediatrans-admin``.
DEFAULT_VOICE_SLOTS = 10

#: Metrics with a monthly plan quota. A missing limit means unlimited.
QUOTA_METRICS = (
    "video_tasks",
    "video_minutes",
    "voice_clones",
    "tts_characters",
    "game_characters",
    "grammar_characters",
    # Extras of video tasks, billed on top of video_minutes (contract 4.1 billing notes; docs/billing.md).
    "diarization_minutes",
    "professional_minutes",
    "dubbing_seconds",
    "dubbing_professional_seconds",
)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclasses.dataclass
class Account:
    """An API customer.

    Attributes:
        id: stable identifier (``acct_…``).
        name: unique operator-facing name.
        rate_per_minute: sustained request rate allowed.
        burst: requests allowed at once above the sustained rate.
        quotas: monthly limit per metric of :data:`QUOTA_METRICS`.
        signing_secret: key of the HMAC in callback ``X-Signature`` headers.
        voice_slots: cloned voices the account may hold at once (deleting one frees its slot).
        caps: overrides of the storage caps of :mod:`core.caps` (``-1``: unlimited); a missing cap has its default.
    """

    id: str
    name: str
    created_at: float
    rate_per_minute: int = DEFAULT_RATE_PER_MINUTE
    burst: int = DEFAULT_BURST
    quotas: dict[str, int] = dataclasses.field(default_factory=dict)
    signing_secret: str = ""
    voice_slots: int = DEFAULT_VOICE_SLOTS
    disabled: bool = False
    scopes: list[str] = dataclasses.field(default_factory=list)
    caps: dict[str, int] = dataclasses.field(default_factory=dict)

    def allows(self, group: str) -> bool:
        """Whether the account may use an endpoint group (no scopes: every group)."""
        return not self.scopes or group in self.scopes

    def to_redis(self) -> dict[str, str]:
        data = dataclasses.asdict(self)
        data["quotas"] = json.dumps(self.quotas)
        data["caps"] = json.dumps(self.caps)
        data["scopes"] = ",".join(self.scopes)
        data["disabled"] = "1" if self.disabled else "0"
        return {k: str(v) for k, v in data.items()}

    @classmethod
    def from_redis(cls, raw: dict[str, str]) -> Account:
        return cls(
            id=raw["id"],
            name=raw["name"],
            created_at=float(raw["created_at"]),
            rate_per_minute=int(raw.get("rate_per_minute", DEFAULT_RATE_PER_MINUTE)),
            burst=int(raw.get("burst", DEFAULT_BURST)),
            quotas={k: int(v) for k, v in json.loads(raw.get("quotas", "{}")).items()},
            signing_secret=raw.get("signing_secret", ""),
            voice_slots=int(raw.get("voice_slots", DEFAULT_VOICE_SLOTS)),
            disabled=raw.get("disabled") == "1",
            scopes=[g for g in raw.get("scopes", "").split(",") if g],
            caps={k: int(v) for k, v in json.loads(raw.get("caps", "{}")).items()},
        )


@dataclasses.dataclass(frozen=True)
class IssuedToken:
    """A token as shown once to the operator."""

    token_id: str
    token: str
    account_id: str
    expires_at: float | None


class AccountError(Exception):
    """An operator action that cannot be done (unknown account, duplicate name)."""


class AccountStore:
    """CRUD of accounts and tokens over an async Redis client (decoded responses)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def create(self, name: str, **limits: Any) -> Account:
        account = Account(
            id="acct_" + uuid.uuid4().hex[:16],
            name=name,
            created_at=time.time(),
            signing_secret=secrets.token_hex(32),
            **limits,
        )
        if not await self.redis.set(keys.account_by_name(name), account.id, nx=True):
            raise AccountError(f"an account named {name!r} already exists")
        # redis-py types ``mapping`` as Mapping[FieldT, ...], whose invariant key refuses a dict[str, str]
        await self.redis.hset(keys.account(account.id), mapping=account.to_redis())  # type: ignore[arg-type]
        await self.redis.sadd(keys.account_index(), account.id)
        return account

    async def get(self, account_id: str) -> Account | None:
        raw = cast(dict[str, str], await self.redis.hgetall(keys.account(account_id)))  # decoded responses
        return Account.from_redis(raw) if raw else None

    async def find(self, id_or_name: str) -> Account:
        account_id = id_or_name
        if not id_or_name.startswith("acct_"):
            account_id = cast("str | None", await self.redis.get(keys.account_by_name(id_or_name))) or ""
        account = await self.get(account_id) if account_id else None
        if account is None:
            raise AccountError(f"no account {id_or_name!r}")
        return account

    async def list(self) -> list[Account]:
        ids = sorted(cast(set[str], await self.redis.smembers(keys.account_index())))
        accounts = [await self.get(i) for i in ids]
        return [a for a in accounts if a is not None]

    async def update(self, account: Account) -> None:
        await self.redis.hset(keys.account(account.id), mapping=account.to_redis())  # type: ignore[arg-type]  # as in create()

    async def rotate_signing_secret(self, account: Account) -> str:
        account.signing_secret = secrets.token_hex(32)
        await self.update(account)
        return account.signing_secret

    async def issue_token(self, account: Account, ttl_s: int | None = None) -> IssuedToken:
        token = new_token()
        digest = hash_token(token)
        token_id = "tok_" + digest[:12]
        expires_at = time.time() + ttl_s if ttl_s else None
        await self.redis.set(keys.token(digest), account.id, ex=ttl_s)
        meta = {"hash": digest, "created_at": time.time(), "expires_at": expires_at}
        await self.redis.hset(keys.account_tokens(account.id), token_id, json.dumps(meta))
        return IssuedToken(token_id, token, account.id, expires_at)

    async def tokens(self, account: Account) -> dict[str, dict[str, Any]]:
        raw = cast(dict[str, str], await self.redis.hgetall(keys.account_tokens(account.id)))
        return {tid: json.loads(meta) for tid, meta in raw.items()}

    async def revoke_token(self, account: Account, token_id: str) -> bool:
        meta = await self.redis.hget(keys.account_tokens(account.id), token_id)
        if meta is None:
            return False
        await self.redis.delete(keys.token(json.loads(meta)["hash"]))
        await self.redis.hdel(keys.account_tokens(account.id), token_id)
        return True

    async def revoke_all(self, account: Account) -> int:
        tokens = await self.tokens(account)
        for token_id in tokens:
            await self.revoke_token(account, token_id)
        return len(tokens)
