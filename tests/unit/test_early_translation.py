"""Early translation: which batches are settled, and that the final pass reuses only identical requests."""

from __future__ import annotations

import asyncio

from engines.translation.base import TranslationRequest, TranslationResult
from pipelines.early_translation import SEAM_MARGIN_S, EarlyTranslation, settled_requests


def batches(size: int, width: int):
    def requests(sentences: list[str]) -> list[tuple[int, TranslationRequest]]:
        out = []
        for first in range(0, len(sentences), size):
            batch = sentences[first : first + size]
            after = tuple(sentences[first + size : first + size + width])
            out.append((first, TranslationRequest(tuple(batch), "en", "es", following=after)))
        return out

    return requests


SENTENCES = [f"Sentence {i}." for i in range(10)]
ENDS = [2.0 * (i + 1) for i in range(10)]  # sentence i ends at 2(i+1) s


def test_settled_batches_end_before_the_seam_margin_with_their_context() -> None:
    until = ENDS[6] + SEAM_MARGIN_S  # sentences 0..6 are settled
    got = settled_requests(SENTENCES, ENDS, until, batches(size=2, width=1))
    assert [r.texts for r in got] == [tuple(SENTENCES[i : i + 2]) for i in (0, 2, 4)]  # 4..5 + context 6: settled
    assert got[-1].following == (SENTENCES[6],)


def test_a_batch_whose_context_is_not_settled_waits() -> None:
    until = ENDS[5] + SEAM_MARGIN_S  # 0..5 settled: batch 4..5 needs sentence 6 as context
    got = settled_requests(SENTENCES, ENDS, until, batches(size=2, width=1))
    assert [r.texts[0] for r in got] == [SENTENCES[0], SENTENCES[2]]


def test_the_last_sentence_is_never_settled() -> None:
    got = settled_requests(SENTENCES, ENDS, until=1000.0, requests=batches(size=5, width=0))
    assert [r.texts[0] for r in got] == [SENTENCES[0]]  # the second batch holds the last sentence


class Translator:
    def __init__(self, fail_on: str | None = None) -> None:
        self.asked: list[TranslationRequest] = []
        self.fail_on = fail_on

    async def __call__(self, request: TranslationRequest) -> TranslationResult:
        self.asked.append(request)
        await asyncio.sleep(0)
        if self.fail_on in request.texts:
            raise RuntimeError("engine down")
        return TranslationResult(tuple(t.upper() for t in request.texts), engine="test")


def sentences_of(transcript: object) -> tuple[list[str], list[float]]:
    count = int(transcript)  # the test's "transcript" is the number of recognized sentences
    return SENTENCES[:count], ENDS[:count]


async def test_final_pass_reuses_identical_requests_and_asks_the_rest() -> None:
    translator = Translator()
    early = EarlyTranslation(sentences_of, batches(size=2, width=1), translator)
    early.offer(5, until=ENDS[4] + SEAM_MARGIN_S)  # type: ignore[arg-type]
    await early.drain()
    early.offer(8, until=ENDS[7] + SEAM_MARGIN_S)  # type: ignore[arg-type]
    await early.drain()
    await early.finish()
    assert early.translated_segments == 6  # 0..5 settled with their context (sentence 6) at the second prefix
    final = [r for _, r in batches(size=2, width=1)(SENTENCES)]
    results = [await early.translate(r) for r in final]
    assert [t for r in results for t in r.texts] == [s.upper() for s in SENTENCES]
    assert sorted(translator.asked, key=final.index) == final  # each final request asked exactly once


async def test_a_changed_request_is_translated_again() -> None:
    translator = Translator()
    early = EarlyTranslation(sentences_of, batches(size=2, width=0), translator)
    early.offer(4, until=ENDS[3] + SEAM_MARGIN_S)  # type: ignore[arg-type]
    await early.drain()
    await early.finish()
    changed = TranslationRequest(("Sentence 0 (heard again).", SENTENCES[1]), "en", "es")
    await early.translate(changed)
    assert translator.asked[-1] == changed


async def test_an_engine_failure_stops_early_work_and_the_final_pass_reports_it() -> None:
    translator = Translator(fail_on=SENTENCES[2])
    early = EarlyTranslation(sentences_of, batches(size=2, width=0), translator)
    early.offer(9, until=ENDS[8] + SEAM_MARGIN_S)  # type: ignore[arg-type]
    await early.drain()
    await early.finish()
    assert early.translated_segments == 2  # stopped at the failing batch
    assert len(translator.asked) == 2
    try:
        await early.translate(TranslationRequest(tuple(SENTENCES[2:4]), "en", "es"))
    except RuntimeError as exc:
        assert "engine down" in str(exc)
    else:
        raise AssertionError("the final pass must see the engine's error")
