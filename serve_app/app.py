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
    if config.asr is not None and config.translator is not None:
        from deployments.asr import ASR
        from pipelines.worker import JobWorker

        handles["asr"] = ASR.bind(config.asr.model_dump())
        worker_handles = {"asr": handles["asr"], "translator": handles["translator"]}
        handles["worker"] = JobWorker.bind(config.model_dump(), worker_handles)
    return Ingress.bind(config.model_dump(), handles)
