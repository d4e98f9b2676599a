"""Looking up an account's voice by id: the voice routes and text to speech share it."""

from __future__ import annotations

import re

from core.accounts import Account
from core.errors import ApiError, ErrorKind
from core.voices import Voice
from serve_app.auth import require_owner
from serve_app.services import Services

VOICE_ID = re.compile(r"voice_[0-9a-f]{20}")


async def owned_voice(services: Services, account: Account, voice_id: str) -> Voice:
    """The voice; 404 2005 when unknown or deleted, 403 2003 when another account's."""
    voice = await services.voices.get(voice_id) if VOICE_ID.fullmatch(voice_id) else None
    if voice is None:
        raise missing_voice()
    require_owner(account, voice.account_id, "voice")
    return voice


def missing_voice() -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, "No such voice: the voice_id does not exist or was deleted.")
