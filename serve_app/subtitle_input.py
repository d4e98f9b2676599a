"""Subtitle files at the edge: read at submission (refused with the first bad line), and their language told.

Shared by ``POST /v1/subtitles/translate`` (the file is the task's input) and ``POST /v1/video/translate``
with ``subtitle_file`` (the video's own subtitles, used instead of recognition).
"""

from __future__ import annotations

import asyncio

from core.errors import ApiError, ErrorKind
from engines.text.subtitle_files import MAX_SUBTITLE_BYTES, BadSubtitleFile, SubtitleFile, read_subtitles
from engines.translation.text_language import detect_text_language
from serve_app.services import Services

UNDETECTED = "The language of the subtitles could not be told from their text; give source_lang."


async def read_subtitle_file(data: bytes, filename: str, field: str) -> SubtitleFile:
    """The cues of the file sent as ``field``; 400 ``INVALID_PARAMETER`` naming the first bad line."""
    if len(data) > MAX_SUBTITLE_BYTES:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"{field} is over the {MAX_SUBTITLE_BYTES // (1 << 20)} MB limit.")
    try:
        return await asyncio.to_thread(read_subtitles, data, filename)
    except BadSubtitleFile as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"{field} cannot be read: {exc}") from None


async def subtitle_language(services: Services, given: str | None, parsed: SubtitleFile, target: str) -> str:
    """``given`` (canonical), or the language told from the cues' text among those that translate into ``target``."""
    if given is not None:
        return services.catalog.resolve(given, "source_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE, as_primary=True)
    offered = await services.capabilities.get()
    candidates = sorted({s for s, t in offered.translation_pairs if t == target})
    found = await asyncio.to_thread(detect_text_language, " ".join(cue.text for cue in parsed.cues), candidates)
    if found is None:
        raise ApiError(ErrorKind.INVALID_PARAMETER, UNDETECTED)
    return found[0]
