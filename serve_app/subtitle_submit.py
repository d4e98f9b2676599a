"""``POST /v1/subtitles/translate`` at the edge (extension, docs/subtitle-translation.md).

The file is read at once (``engines.text.subtitle_files``): a file that is not subtitles, has no cue, runs
backwards, holds binary data or is over ``MAX_SUBTITLE_BYTES`` is refused with 400 ``INVALID_PARAMETER``
and a message naming the first bad line, before anything is charged. ``source_lang`` omitted or ``auto``
is detected from the text among the languages that translate into the target (langid). Then, as a video
submission: the pair, the glossary, the callback, the caps and the extra languages are checked, and the
task is charged one ``video_tasks`` (and ``professional_minutes`` of the file's duration with
``engine=professional``); never ``video_minutes``: nothing is recognized (docs/billing.md). Reading and
telling the language are ``serve_app/subtitle_input.py``'s.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pydantic

from core import caps
from core.accounts import Account
from core.billing import Charge
from core.errors import ApiError, ErrorKind
from core.specs.steering import named_glossaries
from core.specs.video import LAYOUT_FIELDS, GlossarySnapshot, SubtitleSource, VideoJobSpec, billable_minutes
from serve_app.additional_targets import additional_targets, check_targets
from serve_app.responses import validation_error
from serve_app.schemas.subtitles import SubtitleTranslateParams
from serve_app.services import Services
from serve_app.steering import check_memory, glossary_records, snapshots
from serve_app.subtitle_input import read_subtitle_file, subtitle_language
from serve_app.uploads import FormBody
from serve_app.video_submit import check_url_field

NO_FILE = "Send the subtitle file in the multipart part named file."


@dataclasses.dataclass(frozen=True)
class SubtitleSubmission:
    """A checked subtitle file and its options, ready to be stored and become a task."""

    params: SubtitleTranslateParams
    source_lang: str
    target_lang: str
    glossary: GlossarySnapshot | None
    duration: float
    additional: list[str]
    fingerprint: dict[str, Any]
    glossaries: dict[str, GlossarySnapshot] = dataclasses.field(default_factory=dict)  # the extra languages'

    def spec(self, source: SubtitleSource) -> VideoJobSpec:
        options = {**self.params.options(), "source_lang": self.source_lang, "target_lang": self.target_lang}
        explicit = [name for name in LAYOUT_FIELDS if name in self.params.model_fields_set]
        return VideoJobSpec(**options, source=source, glossary=self.glossary, explicit_layout=explicit)

    def charges(self) -> list[Charge]:
        """One ``video_tasks``; ``professional_minutes`` of the file's duration with the professional engine."""
        charges: list[Charge] = [("video_tasks", 1)]
        if self.params.options()["engine"] == "professional":
            charges.append(("professional_minutes", billable_minutes(self.duration)))
        return charges


async def validate_subtitles(services: Services, account: Account, form: FormBody) -> SubtitleSubmission:
    """The submission ``form`` asks for, checked (nothing charged or stored yet)."""
    try:
        params = SubtitleTranslateParams.model_validate(form.fields)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    if form.file is None or form.file.size == 0:
        raise ApiError(ErrorKind.INVALID_PARAMETER, NO_FILE)
    await services.tasks.check_caps(account.id, "video", caps.resolve(account))
    parsed = await read_subtitle_file(await asyncio.to_thread(form.file.path.read_bytes), form.file.filename, "The subtitle file")
    target = services.catalog.resolve(params.options()["target_lang"], "target_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    source = await subtitle_language(services, params.options()["source_lang"], parsed, target)
    offered = await services.capabilities.get()
    if not offered.translates(source, target):
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, offered.refusal(source, target))
    additional = additional_targets(services, params.additional_target_langs, target)
    if additional:
        await services.tasks.check_caps(account.id, "video", caps.resolve(account), tasks=1 + len(additional))
        await check_targets(services, additional, source, dubbing=False)
    options = params.options()
    if options["callback_url"]:
        await check_url_field(services, "callback_url", options["callback_url"])
    records = await glossary_records(services, account, named_glossaries(options["glossary_id"], options["glossary_ids"]))
    glossaries = snapshots(records, source, [target, *additional])
    glossary = glossaries.pop(target, None)
    await check_memory(services, account, options["memory_id"], source, target)
    duration = max(cue.end for cue in parsed.cues)
    fingerprint = {"fields": form.fields, "file_sha256": form.file.sha256}
    return SubtitleSubmission(params, source, target, glossary, duration, additional, fingerprint, glossaries)
