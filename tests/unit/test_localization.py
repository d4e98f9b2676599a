"""Game localization logic over a stand-in translate callable (no Ray, no apertium)."""

from __future__ import annotations

import asyncio

from engines.localization import LocalizationJob, localize
from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.glossary import Glossary


class Recorder:
    """Translates by upper-casing and repeating each segment ``growth`` times; records calls."""

    def __init__(self, growth: int = 1, shrink_on_hint: bool = False) -> None:
        self.growth = growth
        self.shrink_on_hint = shrink_on_hint
        self.calls: list[TranslationRequest] = []
        self.glossaries: list[Glossary | None] = []
        self.active = 0
        self.peak = 0

    async def __call__(self, request: TranslationRequest, glossary: Glossary | None) -> TranslationResult:
        self.calls.append(request)
        self.glossaries.append(glossary)
        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.01)
        self.active -= 1
        retried = len([c for c in self.calls if c.target_lang == request.target_lang]) > 1
        growth = 1 if (retried and self.shrink_on_hint) else self.growth
        texts = tuple(" ".join([f"{t.upper()}-{request.target_lang}"] * growth) for t in request.texts)
        return TranslationResult(texts, engine="recorder")


def job(**kw: object) -> LocalizationJob:
    base = {"text": "hello", "source_lang": "en", "target_langs": ("es", "fr", "pt-BR"), "content_type": "ui"}
    return LocalizationJob(**{**base, **kw})  # type: ignore[arg-type]


async def test_targets_run_concurrently_with_hints() -> None:
    rec = Recorder()
    outcome = await localize(job(genre="rpg", tone="cute"), rec)
    assert outcome.translations == {"es": "HELLO-es", "fr": "HELLO-fr", "pt-BR": "HELLO-pt-BR"}
    assert rec.peak == 3
    assert all(c.hints.genre == "rpg" and c.hints.tone == "cute" and c.hints.content_type == "ui" for c in rec.calls)
    assert outcome.shortened == ()


async def test_blank_lines_are_kept_and_not_sent() -> None:
    rec = Recorder()
    outcome = await localize(job(text="one\n\n  \ntwo", target_langs=("es",)), rec)
    assert outcome.translations["es"] == "ONE-es\n\n  \nTWO-es"
    assert rec.calls[0].texts == ("one", "two")


async def test_engine_that_rephrases_shorter_avoids_cutting() -> None:
    rec = Recorder(growth=5, shrink_on_hint=True)
    outcome = await localize(job(text="go", target_langs=("es",), max_length=8), rec)
    assert outcome.translations["es"] == "GO-es"
    assert outcome.shortened == ("es",)
    assert rec.calls[-1].hints.max_length == 8


async def test_deterministic_shortening_when_engine_cannot() -> None:
    rec = Recorder(growth=6)
    outcome = await localize(job(text="press {0} now", target_langs=("es", "fr"), max_length=15), rec)
    for text in outcome.translations.values():
        assert len(text) <= 15
    assert set(outcome.shortened) == {"es", "fr"}
    assert len(rec.calls) == 4  # one try and one shorter-please per target


async def test_glossary_goes_only_to_the_targets_it_covers() -> None:
    rec = Recorder()
    glossary = Glossary("en", "es", {"hello": "hola"})
    await localize(job(glossaries=(glossary,)), rec)
    by_target = {c.target_lang: g for c, g in zip(rec.calls, rec.glossaries)}
    assert by_target == {"es": glossary, "fr": None, "pt-BR": None}
