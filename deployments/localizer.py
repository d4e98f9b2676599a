"""The Localizer deployment: game localization on top of the Translator deployment."""

from __future__ import annotations

from typing import Any

from ray import serve

from engines.localization import LocalizationJob, LocalizationOutcome, localize
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary


@serve.deployment(name="Localizer", ray_actor_options={"num_cpus": 0.1}, max_ongoing_requests=64)
class Localizer:
    """Fans one text out to every target through the Translator, then enforces length."""

    def __init__(self, translator: Any) -> None:
        self.translator = translator

    async def _translate(self, request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        result: TranslationResult = await self.translator.translate.remote(request, glossary)
        return result

    async def localize(self, job: LocalizationJob) -> LocalizationOutcome:
        return await localize(job, self._translate)

    async def ready(self) -> bool:
        result: bool = await self.translator.ready.remote()
        return result
