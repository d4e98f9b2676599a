"""Added languages of video tasks at the edge (docs/video-languages.md): ``POST /v1/video/task/{id}/translations``.

Only a completed video task of the caller's account gets a language (404 for another's or a missing one,
409 while it is not completed or once its stored transcript is gone). The request is refused, before
anything is charged, for a target the service does not offer or cannot translate the parent's speech
into (400 ``UNSUPPORTED_LANGUAGE``), a glossary that is not the caller's or not for the pair, an invalid
combination of output choices, a choice without effect, dubbing without its deployment or voice, a
callback the service will not call, and an account at its caps. It then charges one ``video_tasks`` and
the features it runs over the parent's processed range (``professional_minutes``, dubbed seconds), never
``video_minutes`` or ``diarization_minutes``: nothing is recognized (docs/billing.md).
"""

from __future__ import annotations

import dataclasses

import pydantic

from core import caps
from core.accounts import Account
from core.billing import Charge, charged
from core.context import request_id_var
from core.errors import ApiError, ErrorKind
from core.specs.added_language import AddLanguageRequest, added_language_spec
from core.specs.steering import named_glossaries
from core.specs.transcript import StoredTranscript
from core.specs.translation_of import TranslationOf
from core.specs.video import VideoJobSpec, feature_charges
from core.tasks import Task, iso
from serve_app.responses import validation_error
from serve_app.schemas.revisions import AddLanguageResponse
from serve_app.services import Services
from serve_app.steering import check_memory, glossary_records, snapshots
from serve_app.video_revisions import stored_transcript
from serve_app.video_submit import check_dubbing, check_url_field


@dataclasses.dataclass(frozen=True)
class PreparedLanguage:
    """A checked added language, ready to be charged and become a task."""

    spec: VideoJobSpec
    transcript: StoredTranscript


async def prepare_language(services: Services, account: Account, parent: Task, body: AddLanguageRequest) -> PreparedLanguage:
    """The task that ``body`` asks for, checked as a submission is (nothing charged yet)."""
    transcript = await stored_transcript(services, parent)
    target = services.catalog.resolve(body.target_lang, "target_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    source = transcript.source_lang
    offered = await services.capabilities.get()
    if not offered.translates(source, target):
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, offered.refusal(source, target))
    chosen = body.choices()
    ids = named_glossaries(chosen.get("glossary_id"), chosen.get("glossary_ids") or [])
    glossary = snapshots(await glossary_records(services, account, ids), source, [target]).get(target)
    await check_memory(services, account, chosen.get("memory_id"), source, target)
    origin = TranslationOf(parent_task_id=parent.task_id, root_task_id=transcript.root_task_id or parent.task_id)
    try:
        spec = added_language_spec(VideoJobSpec.model_validate(parent.params), body, target, glossary, origin)
    except pydantic.ValidationError as exc:
        raise validation_error(exc) from None
    await _check_choices(services, body, spec)
    await services.tasks.check_caps(account.id, "video", caps.resolve(account))
    return PreparedLanguage(spec, transcript)


async def create_language(services: Services, account: Account, prepared: PreparedLanguage) -> AddLanguageResponse:
    """Charge the added language and queue its task (the charges are refunded when the task is not created)."""
    spec, seconds = prepared.spec, _span_seconds(prepared.transcript)
    async with charged(services.quotas, account, language_charges(spec, seconds)):
        estimate = await services.speed.estimate(spec.speed_kind, seconds)
        task = await services.tasks.create(
            account.id,
            spec.stored(),
            kind="video",
            request_id=request_id_var.get(),
            estimated_seconds=estimate,
            limits=caps.resolve(account),
        )
    assert spec.translation_of is not None
    return AddLanguageResponse(
        task_id=task.task_id,
        status=task.status.value,
        created_at=iso(task.created_at),
        estimated_seconds=estimate,
        parent_task_id=spec.translation_of.parent_task_id,
        target_lang=spec.target_lang,
    )


def language_charges(spec: VideoJobSpec, seconds: float) -> list[Charge]:
    """One ``video_tasks``, and the features that run again over the parent's processed range: the professional
    engine and a dub. Nothing is recognized or diarized (docs/billing.md)."""
    features = spec.model_copy(update={"enable_diarization": False, "start_time": 0.0, "end_time": None})
    return [("video_tasks", 1), *feature_charges(features, seconds)]


async def _check_choices(services: Services, body: AddLanguageRequest, spec: VideoJobSpec) -> None:
    """As at submission: no choice without effect; dubbing needs its deployment and a voice for the language."""
    given = body.choices()
    if not spec.enable_dubbing:
        for name in ("dubbing_voice", "dubbing_speed", "dubbing_bg_music"):
            if name in given:
                raise ApiError(ErrorKind.INVALID_PARAMETER, f"{name} applies only with enable_dubbing=true.")
    if spec.enable_dubbing:
        await check_dubbing(services, spec.target_lang)
    if spec.callback_url:
        await check_url_field(services, "callback_url", spec.callback_url)


def _span_seconds(transcript: StoredTranscript) -> float:
    """Seconds of the parent's processed range."""
    return max(1.0, transcript.span[1] - transcript.span[0])
