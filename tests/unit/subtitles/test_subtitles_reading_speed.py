"""Condensing translations too fast to read (pipelines/reading_speed.py), with a scripted translator.

The translator here stands in for the LLM's answer to a length budget; what is tested is the pipeline's
decision: which sentences it asks about, with what budget, and which answers it keeps.
"""

from __future__ import annotations

from engines.translation.base import TranslationRequest, TranslationResult
from pipelines.reading_speed import budget, condense_fast, too_fast
from pipelines.subtitle_layout import options_for
from pipelines.subtitles.presets import preset_for
from pipelines.subtitles.qc import check_cues
from pipelines.subtitles.translation import layout_groups
from pipelines.subtitles.types import Cue

OPTIONS = options_for(preset_for("es"), speaker_labels=False, fps=25.0)
SOURCE = ("We leave at nine.", "The train has 12 cars and it is not late.", "See you soon.")
#: Speech spans: the second sentence gets 2 s, far too short for its long translation at 17 characters/s.
GROUPS = [
    (Cue(1, 0.0, 1.6, (SOURCE[0],)),),
    (Cue(2, 4.0, 6.0, (SOURCE[1],)),),
    (Cue(3, 9.0, 10.5, (SOURCE[2],)),),
]
FULL = (
    "Salimos a las nueve.",
    "El tren que sale esta mañana tiene 12 vagones en total y no llega tarde a la estación central.",
    "Hasta pronto.",
)


class Scripted:
    """Answers each budgeted request with the scripted text for its sentence, and records the requests."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.requests: list[TranslationRequest] = []

    async def __call__(self, request: TranslationRequest) -> TranslationResult:
        self.requests.append(request)
        return TranslationResult(tuple(self.answers[t] for t in request.texts), engine="scripted")


def test_only_the_sentence_read_too_fast_is_flagged() -> None:
    laid = layout_groups(GROUPS, list(FULL), OPTIONS)
    assert [too_fast(cues, OPTIONS) for cues in laid] == [False, True, False]
    assert budget(laid[1], OPTIONS) < len(FULL[1])


async def test_a_shorter_answer_keeping_numbers_and_negation_replaces_the_full_one() -> None:
    short = "El tren tiene 12 vagones y no llega tarde."
    translate = Scripted({SOURCE[1]: short})
    texts, full = await condense_fast(GROUPS, SOURCE, FULL, OPTIONS, "en", "es", translate)
    assert texts == [FULL[0], short, FULL[2]] and full == [None, FULL[1], None]
    (request,) = translate.requests
    assert request.texts == (SOURCE[1],) and request.hints.max_length is not None
    assert request.hints.max_length < len(FULL[1]) and request.context == (SOURCE[0],)
    before = check_cues([c for cues in layout_groups(GROUPS, list(FULL), OPTIONS) for c in cues], preset_for("es"), 25.0)
    after = check_cues([c for cues in layout_groups(GROUPS, texts, OPTIONS) for c in cues], preset_for("es"), 25.0)
    assert after.counts()["reading_speed"] < before.counts()["reading_speed"]


async def test_an_answer_dropping_the_number_or_the_negation_is_refused() -> None:
    for answer in ("El tren tiene vagones y no llega tarde.", "El tren tiene 12 vagones y llega tarde."):
        texts, full = await condense_fast(GROUPS, SOURCE, FULL, OPTIONS, "en", "es", Scripted({SOURCE[1]: answer}))
        assert texts == list(FULL) and full == [None, None, None], answer


async def test_an_engine_that_ignores_the_budget_changes_nothing_and_is_asked_once() -> None:
    translate = Scripted({SOURCE[1]: FULL[1]})
    texts, full = await condense_fast(GROUPS, SOURCE, FULL, OPTIONS, "en", "es", translate)
    assert texts == list(FULL) and full == [None, None, None]
    assert len(translate.requests) == 1  # the same text would get the same answer in the next round


async def test_a_rewrite_still_too_fast_is_asked_again_from_the_rewrite() -> None:
    first = "El tren de esta mañana tiene 12 vagones y no llega tarde a la estación."
    second = "El tren tiene 12 vagones y no llega tarde."
    translate = Scripted({SOURCE[1]: first})

    async def twice(request: TranslationRequest) -> TranslationResult:
        if request.hints.draft == first:
            translate.answers[SOURCE[1]] = second
        return await translate(request)

    texts, full = await condense_fast(GROUPS, SOURCE, FULL, OPTIONS, "en", "es", twice)
    assert texts[1] == second and full[1] == FULL[1]  # the full text is the first one, not the intermediate
    assert [r.hints.draft for r in translate.requests] == [FULL[1], first]


async def test_a_failing_engine_keeps_the_full_translation() -> None:
    async def broken(request: TranslationRequest) -> TranslationResult:
        raise RuntimeError("engine down")

    texts, full = await condense_fast(GROUPS, SOURCE, FULL, OPTIONS, "en", "es", broken)
    assert texts == list(FULL) and full == [None, None, None]


async def test_the_legacy_preset_never_condenses() -> None:
    legacy = options_for(preset_for("es", "legacy"), speaker_labels=False, fps=None)
    translate = Scripted({})
    texts, _ = await condense_fast(GROUPS, SOURCE, FULL, legacy, "en", "es", translate)
    assert texts == list(FULL) and not translate.requests
