"""Cloned voices in Redis: records, per-account names, quota slots and the listing cursor.

One hash per voice (``keys.voice``); per account a sorted set of its voice ids
by creation time (list order and cursor), a hash of folded names → ids
(names are unique per account, compared case- and width-insensitively), and
a set of the voices holding a quota slot; across accounts, a sorted set of
the ``processing`` voices (housekeeping ends those no training will finish:
``pipelines.voice_lifecycle``). Creation checks the name and the slots and
writes all of it in one Lua script, so two concurrent requests can neither
share a name nor overfill the quota. A training ends once: :meth:`VoiceStore.finish`
changes only a voice still ``processing``, so a late worker and housekeeping
never both finish it. A voice whose training failed releases its slot (it
stays listed, as ``failed``, until deleted); deleting a voice removes
everything, irreversibly.

States (contract 3.2)::

    (create) ──► ready                    synchronous clone
    (create) ──► processing ──► ready     enhance_quality or callback_url
                       └──────► failed    training failed (code 3003)
    any ──► (deleted)                     DELETE: the id answers 404 from then on
"""

from __future__ import annotations

import dataclasses
import json
import time
import unicodedata
import uuid
from typing import Any, cast

from redis.asyncio import Redis

from core import keys
from core.cursors import decode_cursor, encode_cursor
from core.tasks.model import iso

PROCESSING, READY, FAILED = "processing", "ready", "failed"
STATES = (PROCESSING, READY, FAILED)

# KEYS: voice, names, slots, index, processing voices. ARGV: folded name, voice id, slot limit, created score,
# 1 when the voice is processing, then field/value pairs.
_CREATE = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'name' end
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 'quota' end
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
if ARGV[5] == '1' then redis.call('ZADD', KEYS[5], ARGV[4], ARGV[2]) end
return 'ok'
"""

# KEYS: voice, slots, processing voices. ARGV: voice id, the stored form of 'processing', 1 to release the slot,
# then field/value pairs. Only a voice still processing changes: 'gone' when deleted, 'ended' when already finished.
_FINISH = """
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[3], ARGV[1]) return 'gone' end
if redis.call('HGET', KEYS[1], 'status') ~= ARGV[2] then redis.call('ZREM', KEYS[3], ARGV[1]) return 'ended' end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[3] == '1' then redis.call('SREM', KEYS[2], ARGV[1]) end
return 'ok'
"""

# KEYS: voice, names. ARGV: new folded name, old folded name, voice id, then field/value pairs.
_RENAME = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
if ARGV[1] ~= ARGV[2] then
  local owner = redis.call('HGET', KEYS[2], ARGV[1])
  if owner and owner ~= ARGV[3] then return 'name' end
  redis.call('HDEL', KEYS[2], ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
return 'ok'
"""

# KEYS: voice. ARGV: field/value pairs. Writes only while the voice exists (a deleted one stays deleted).
_UPDATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS: voice, names, slots, index, processing voices. ARGV: folded name, voice id.
_DELETE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[2], ARGV[1]) end
redis.call('SREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
return 1
"""


def fold_name(name: str) -> str:
    """The form names are compared in: NFKC, case-folded, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


class VoiceNameTaken(Exception):
    """Another voice of the account has this name."""


class VoiceSlotsFull(Exception):
    """The account holds as many voices as it may."""


@dataclasses.dataclass
class Voice:
    """A cloned voice as stored.

    Attributes:
        style: the fitted voice (engine-specific JSON, e.g. a Kokoro blend); empty until ready.
        gender: ``male`` / ``female``; ``gender_source`` says whether it was ``given`` or ``estimated``.
        task_id: the training task of an asynchronous clone.
        error: ``{"code", "message"}`` when failed.
    """

    voice_id: str
    account_id: str
    voice_name: str
    lang: str
    status: str
    created_at: float
    description: str | None = None
    gender: str = "unknown"
    gender_source: str = "given"
    quality_score: float | None = None
    sample_duration: float | None = None
    completed_at: float | None = None
    engine: str = ""
    style: dict[str, Any] = dataclasses.field(default_factory=dict)
    task_id: str | None = None
    error: dict[str, str] | None = None

    def public(self, *, callback: bool = False) -> dict[str, Any]:
        """The voice object of contract 2.2 (``completed_at`` always once finished; ``callback`` adds nothing hidden)."""
        body: dict[str, Any] = {
            "voice_id": self.voice_id,
            "voice_name": self.voice_name,
            "lang": self.lang,
            "status": self.status,
            "gender": self.gender,
            "created_at": iso(self.created_at),
        }
        if self.quality_score is not None and self.status == READY:
            body["quality_score"] = round(self.quality_score, 3)
        if self.sample_duration is not None:
            body["sample_duration"] = round(self.sample_duration, 2)
        if self.description:
            body["description"] = self.description
        if self.completed_at is not None:
            body["completed_at"] = iso(self.completed_at)
        if self.status == FAILED and self.error:
            body["error"] = dict(self.error)
        return body

    def to_redis(self) -> dict[str, str]:
        return {name: json.dumps(value) for name, value in dataclasses.asdict(self).items()}

    @classmethod
    def from_redis(cls, raw: dict[str, str]) -> Voice:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: json.loads(v) for k, v in raw.items() if k in known})


@dataclasses.dataclass(frozen=True)
class VoicePage:
    voices: list[Voice]
    total: int
    next_cursor: str | None


class VoiceStore:
    """Voices of every account over an async Redis client (decoded responses)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._rename = redis.register_script(_RENAME)
        self._delete = redis.register_script(_DELETE)
        self._update = redis.register_script(_UPDATE)
        self._finish = redis.register_script(_FINISH)

    @staticmethod
    def new_id() -> str:
        return "voice_" + uuid.uuid4().hex[:20]

    async def create(self, voice: Voice, slots: int) -> Voice:
        """Store a new voice; raises :class:`VoiceNameTaken` or :class:`VoiceSlotsFull`."""
        account = voice.account_id
        fields = [item for pair in voice.to_redis().items() for item in pair]
        outcome = await self._create(
            keys=[keys.voice(voice.voice_id), keys.account_voice_names(account), keys.account_voice_slots(account),
                  keys.account_voices(account), keys.processing_voices()],
            args=[fold_name(voice.voice_name), voice.voice_id, slots, voice.created_at, int(voice.status == PROCESSING),
                  *fields],
        )  # fmt: skip
        if outcome == "name":
            raise VoiceNameTaken(voice.voice_name)
        if outcome == "quota":
            raise VoiceSlotsFull(str(slots))
        return voice

    async def get(self, voice_id: str) -> Voice | None:
        raw = cast(dict[str, str], await self.redis.hgetall(keys.voice(voice_id)))  # decoded responses
        return Voice.from_redis(raw) if raw else None

    async def update(self, voice: Voice, **fields: Any) -> Voice:
        """Change stored fields (not the name: :meth:`rename`); KeyError when the voice was deleted meanwhile."""
        changed = dataclasses.replace(voice, **fields)
        values = [item for k in fields for item in (k, json.dumps(getattr(changed, k)))]
        if values and not await self._update(keys=[keys.voice(voice.voice_id)], args=values):
            raise KeyError(voice.voice_id)
        return changed

    async def finish(self, voice: Voice, status: str, **fields: Any) -> Voice | None:
        """Record the end of a training: ``ready`` keeps the slot, ``failed`` releases it.

        Only a voice still ``processing`` ends, once: returns None (nothing written) when it had already
        ended; KeyError when it was deleted.
        """
        if status not in (READY, FAILED):
            raise ValueError(f"a training ends ready or failed, not {status!r}")
        done = dataclasses.replace(voice, status=status, completed_at=fields.pop("completed_at", time.time()), **fields)
        changed = {"status": status, "completed_at": done.completed_at, **fields}
        values = [item for k in changed for item in (k, json.dumps(getattr(done, k)))]
        outcome = await self._finish(
            keys=[keys.voice(voice.voice_id), keys.account_voice_slots(voice.account_id), keys.processing_voices()],
            args=[voice.voice_id, json.dumps(PROCESSING), int(status == FAILED), *values],
        )
        if outcome == "gone":
            raise KeyError(voice.voice_id)
        return done if outcome == "ok" else None

    async def processing_before(self, before: float, *, offset: int = 0, limit: int = 500) -> list[str]:
        """Ids of ``processing`` voices created before ``before``, oldest first: ``limit`` of them from ``offset``."""
        found = await self.redis.zrangebyscore(keys.processing_voices(), "-inf", f"({before}", start=offset, num=limit)
        return list(cast(list[str], found))  # decoded responses

    async def rename(self, voice: Voice, voice_name: str | None, description: str | None) -> Voice:
        """Change the name and/or description; raises :class:`VoiceNameTaken`, KeyError when deleted meanwhile."""
        changes: dict[str, Any] = {}
        if voice_name is not None:
            changes["voice_name"] = voice_name
        if description is not None:
            changes["description"] = description
        changed = dataclasses.replace(voice, **changes)
        fields = [item for k in changes for item in (k, json.dumps(changes[k]))]
        outcome = await self._rename(
            keys=[keys.voice(voice.voice_id), keys.account_voice_names(voice.account_id)],
            args=[fold_name(changed.voice_name), fold_name(voice.voice_name), voice.voice_id, *fields],
        )
        if outcome == "name":
            raise VoiceNameTaken(changed.voice_name)
        if outcome == "gone":
            raise KeyError(voice.voice_id)
        return changed

    async def delete(self, voice: Voice) -> bool:
        account = voice.account_id
        removed = await self._delete(
            keys=[keys.voice(voice.voice_id), keys.account_voice_names(account), keys.account_voice_slots(account),
                  keys.account_voices(account), keys.processing_voices()],
            args=[fold_name(voice.voice_name), voice.voice_id],
        )  # fmt: skip
        return bool(removed)

    async def forget_processing(self, voice_id: str) -> None:
        """Drop an id from the processing index (its voice ended or was deleted without the index being told)."""
        await self.redis.zrem(keys.processing_voices(), voice_id)

    async def name_taken(self, account_id: str, voice_name: str) -> bool:
        """Whether another voice of the account has this name (a hint: :meth:`create` decides atomically)."""
        return bool(await self.redis.hexists(keys.account_voice_names(account_id), fold_name(voice_name)))

    async def slots_used(self, account_id: str) -> int:
        return int(await self.redis.scard(keys.account_voice_slots(account_id)))

    async def page(
        self, account_id: str, *, status: str | None = None, lang: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> VoicePage:
        """The account's voices, oldest first, filtered; ``next_cursor`` continues after the last one."""
        after = decode_cursor(cursor) if cursor else None
        ids_scores = cast(
            list[tuple[str, float]], await self.redis.zrange(keys.account_voices(account_id), 0, -1, withscores=True)
        )
        async with self.redis.pipeline(transaction=False) as pipe:
            for voice_id, _ in ids_scores:
                pipe.hgetall(keys.voice(voice_id))
            raws = await pipe.execute()
        voices = [Voice.from_redis(raw) for raw in raws if raw]
        matching = [v for v in voices if (status is None or v.status == status) and (lang is None or v.lang == lang)]
        matching.sort(key=lambda v: (v.created_at, v.voice_id))
        start = 0
        if after is not None:
            start = next((i for i, v in enumerate(matching) if (v.created_at, v.voice_id) > after), len(matching))
        chosen = matching[start : start + limit]
        more = start + limit < len(matching)
        next_cursor = encode_cursor(chosen[-1].created_at, chosen[-1].voice_id) if more and chosen else None
        return VoicePage(chosen, len(matching), next_cursor)
