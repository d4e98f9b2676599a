"""The typed application builder named by ``import_path`` in configs/*.yaml."""

from __future__ import annotations

from typing import Any

from ray.serve import Application

from core.settings import AppArgs


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

        handles["translator"] = Translator.bind(config.translator.model_dump())
        handles["localizer"] = Localizer.bind(handles["translator"])
    if config.grammar is not None:
        from deployments.grammar import Grammar

        handles["grammar"] = Grammar.bind(config.grammar.model_dump())
    if config.tts is not None:
        from deployments.tts import TTS

        handles["tts"] = TTS.bind(config.tts.model_dump())
    if config.voice_cloner is not None:
        from deployments.voice_cloner import VoiceCloner

        handles["voice_cloner"] = VoiceCloner.bind(config.voice_cloner.model_dump())
    if config.asr is not None and config.translator is not None:
        from deployments.asr import ASR

        handles["asr"] = ASR.bind(config.asr.model_dump())
        if config.diarizer is not None:
            from deployments.diarizer import Diarizer

            handles["diarizer"] = Diarizer.bind(config.diarizer.model_dump())
    if "asr" in handles or "voice_cloner" in handles:  # the job worker runs video tasks and voice trainings
        from pipelines.worker import JobWorker

        worker_handles = {
            name: handles[name] for name in ("asr", "translator", "voice_cloner", "diarizer", "tts") if name in handles
        }
        handles["worker"] = JobWorker.bind(config.model_dump(), worker_handles)
    return Ingress.bind(config.model_dump(), handles)
