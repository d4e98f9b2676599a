"""The typed application builder named by ``import_path`` in configs/*.yaml."""

from __future__ import annotations

from typing import Any, cast

from ray.serve import Application, Deployment

from core.settings import AppArgs


def _bind(deployment: object, *args: Any) -> Application:
    """``deployment.bind(*args)``: ``@serve.deployment`` makes each class a :class:`Deployment`, which mypy
    does not see (it keeps a decorated class's own type)."""
    return cast(Deployment, deployment).bind(*args)


def build_app(args: dict[str, Any]) -> Application:
    """Build the whole Serve application from validated :class:`AppArgs`.

    Capability deployments are bound only when configured, so a profile that
    omits one simply does not offer it (and the language list says so). This
    module is the composition root: the only place that imports the edge,
    the deployments and the pipelines together.
    """
    from serve_app.ingress import Ingress

    config = AppArgs.model_validate(args)
    handles: dict[str, Application] = {}
    if config.translator is not None:
        from deployments.localizer import Localizer
        from deployments.translator import Translator

        handles["translator"] = _bind(Translator, config.translator.model_dump())
        handles["localizer"] = _bind(Localizer, handles["translator"])
    if config.grammar is not None:
        from deployments.grammar import Grammar

        handles["grammar"] = _bind(Grammar, config.grammar.model_dump())
    if config.tts is not None:
        from deployments.tts import TTS

        handles["tts"] = _bind(TTS, config.tts.model_dump())
    if config.voice_cloner is not None:
        from deployments.voice_cloner import VoiceCloner

        handles["voice_cloner"] = _bind(VoiceCloner, config.voice_cloner.model_dump())
    if config.asr is not None and config.translator is not None:
        from deployments.asr import ASR

        handles["asr"] = _bind(ASR, config.asr.model_dump())
        if config.diarizer is not None:
            from deployments.diarizer import Diarizer

            handles["diarizer"] = _bind(Diarizer, config.diarizer.model_dump())
    if "asr" in handles or "voice_cloner" in handles:  # the job worker runs video tasks and voice trainings
        from pipelines.worker import JobWorker

        worker_handles = {
            name: handles[name] for name in ("asr", "translator", "voice_cloner", "diarizer", "tts") if name in handles
        }
        handles["worker"] = _bind(JobWorker, config.model_dump(), worker_handles)
    return _bind(Ingress, config.model_dump(), handles)
