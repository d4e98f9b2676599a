"""Request models turn themselves into engine requests; response models are built from engine results."""

from __future__ import annotations

from engines.grammar.checker import Catalogue, GrammarRequest, GrammarResult, LanguageSupport
from engines.grammar.types import ISSUE_TYPES, Issue, Rule
from engines.localization import LocalizationJob, LocalizationOutcome
from engines.translation.glossary import Glossary
from engines.tts.synthesizer import SpeechRequest
from serve_app.schemas.game import LocalizationRequest, LocalizationResponse
from serve_app.schemas.grammar import GrammarCheckRequest, GrammarCheckResponse, RulesResponse
from serve_app.schemas.tts import TtsRequest


def test_a_grammar_check_names_the_engine_fields() -> None:
    body = GrammarCheckRequest.model_validate(
        {"text": "Ths is it.", "auto_correct": True, "severity": "error", "disable_rules": ["A", "B"], "domain": "business"}
    )
    assert body.to_engine_request("en") == GrammarRequest(
        text="Ths is it.",
        lang="en",
        auto_correct=True,
        check_types=frozenset(ISSUE_TYPES),
        min_severity="error",
        disabled_rules=frozenset({"A", "B"}),
        domain="business",
    )
    only = GrammarCheckRequest.model_validate({"text": "x", "check_types": ["spelling"]}).to_engine_request(None)
    assert only.check_types == frozenset({"spelling"}) and only.lang is None


def test_a_grammar_answer_spells_out_each_issue() -> None:
    issue = Issue(offset=0, length=3, type="spelling", severity="error", rule_id="SPELL", message="Typo.", replacements=("This",))
    result = GrammarResult(issues=(issue,), corrected="This is it.", lang="en", quality_score=80.0)
    answer = GrammarCheckResponse.from_result("Ths is it.", result).model_dump()
    assert answer["issues"] == [
        {"type": "spelling", "offset": 0, "length": 3, "wrong": "Ths", "correct": "This", "severity": "error",
         "message": "Typo.", "rule_id": "SPELL"}
    ]  # fmt: skip
    assert answer["corrected"] == "This is it." and answer["issues_count"] == 1
    clean = GrammarCheckResponse.from_result("Fine.", GrammarResult((), "Fine.", "en", 100.0))
    assert clean.corrected is None and clean.issues == []


def test_the_rule_list_filters_by_language_and_type() -> None:
    def rule(rule_id: str, languages: tuple[str, ...], type_: str = "grammar") -> Rule:
        return Rule(id=rule_id, type=type_, severity="warning", languages=languages, description="d", engine="e", default_on=True)  # type: ignore[arg-type]

    catalogue = Catalogue(
        rules=(rule("ALL", ()), rule("EN", ("en",)), rule("DE", ("de",)), rule("EN_STYLE", ("en",), "style")),
        languages=(LanguageSupport("en", True, True, True, ("e",)),),
    )
    assert [r.id for r in RulesResponse.from_catalogue(catalogue, "en-US", None).rules] == ["ALL", "EN", "EN_STYLE"]
    assert [r.id for r in RulesResponse.from_catalogue(catalogue, None, "grammar").rules] == ["ALL", "EN", "DE"]
    assert RulesResponse.from_catalogue(catalogue, "de", "style").total == 0


def test_speech_keeps_the_body_and_takes_the_resolved_voice() -> None:
    body = TtsRequest.model_validate({"text": "Hi.", "voice": "voice_x", "emotion": "sad", "speed": 1.5, "output_format": "wav"})
    style = {"engine": "kokoro", "style": {"a": 1}}
    assert body.to_engine_request("en", style=style) == SpeechRequest(
        text="Hi.", lang="en", style=style, gender="female", emotion="sad", emotion_intensity=0.5, speed=1.5, output_format="wav"
    )
    native = TtsRequest.model_validate({"text": "Hi.", "voice": "en-amy"}).to_engine_request("en", voice="en-amy")
    assert native.voice == "en-amy" and native.style is None


def test_a_localization_becomes_a_job_and_its_outcome_an_answer() -> None:
    body = LocalizationRequest.model_validate(
        {"text": "Start", "content_type": "ui", "source_lang": "en", "target_langs": ["fr", "en-GB"], "max_length": 9}
    )
    glossary = Glossary("en", "fr", {"Start": "Début"})
    job = body.to_engine_job("en", ("fr",), (glossary,))
    assert job == LocalizationJob("Start", "en", ("fr",), "ui", None, None, 9, (glossary,))
    outcome = LocalizationOutcome({"fr": "Début"}, ("fr",), {"fr": "llm"}, ())
    answer = LocalizationResponse.from_outcome(body, outcome, ("fr", "en-GB"))
    assert answer.translations == {"fr": "Début", "en-GB": "Start"}
    assert answer.shortened == ["fr"] and answer.engines == {"fr": "llm"} and answer.fallback == []
