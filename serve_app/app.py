"""The typed application builder named by ``import_path`` in configs/*.yaml."""

from __future__ import annotations

from typing import Any

from ray.serve import Application

from serve_app.settings import AppArgs


def build_app(args: dict[str, Any]) -> Application:
    """Build the whole Serve application from validated :class:`AppArgs`.

    Capability deployments are bound only when configured, so a profile that
    omits one simply does not offer it (and the language list says so).
    """
    from serve_app.ingress import Ingress

    config = AppArgs.model_validate(args)
    handles: dict[str, Application] = {}
    if config.translator is not None:
        from deployments.localizer import Localizer
        from deployments.translator import Translator

        handles["translator"] = Translator.bind(config.translator.model_dump())
        handles["localizer"] = Localizer.bind(handles["translator"])
    return Ingress.bind(config.model_dump(), handles)
