"""The safety layer carries memory examples with their segments: ICU variants, engine-free segments, sentinels."""

from __future__ import annotations

from engines.translation.base import TranslationRequest, TranslationResult
from engines.translation.safe import SafeTranslator
from tests.support.game_strings import COINS
from tests.unit.translation.translation_support import WordEngine


class ExampleRecorder(WordEngine):
    """Translates like WordEngine and keeps every request it got."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[TranslationRequest] = []

    def translate(self, request: TranslationRequest) -> TranslationResult:
        self.requests.append(request)
        return super().translate(request)


DOOR = (("Open the door", "Abre la puerta"),)
COIN = (("You have {count} coins.", "Tienes {count} monedas."),)


def test_only_segments_sent_to_the_engine_keep_their_examples() -> None:
    engine = ExampleRecorder()
    request = TranslationRequest(("{0}", "Open the gate", "<b>%s</b>", "Close it"), "en", "es", examples=((), DOOR, DOOR, ()))
    result = SafeTranslator(engine).translate(request)
    (sent,) = engine.requests
    assert sent.texts == ("Open the gate", "Close it") and sent.examples == (DOOR, ())
    assert len(result.texts) == 4


def test_examples_vanish_when_no_segment_sent_has_any() -> None:
    engine = ExampleRecorder()
    SafeTranslator(engine).translate(TranslationRequest(("{0}", "Hello"), "en", "es", examples=(DOOR, ())))
    assert engine.requests[0].examples == ()


def test_each_icu_variant_gets_its_messages_examples() -> None:
    engine = ExampleRecorder()
    request = TranslationRequest((COINS, "Open the gate"), "en", "es", examples=(COIN, DOOR))
    result = SafeTranslator(engine).translate(request)
    (sent,) = engine.requests
    assert len(sent.texts) == 4  # three variants of the coins message, then the gate
    seen_coin = (("You have <x0/> coins.", "Tienes <x0/> monedas."),)
    assert sent.examples == (seen_coin, seen_coin, seen_coin, DOOR)
    assert result.texts[0].startswith("{count, plural,") and len(result.texts) == 2


def test_example_markup_is_shown_as_the_sentinels_of_real_requests() -> None:
    engine = ExampleRecorder()
    pairs = (
        ("Give {name} <b>{count}</b> gold", "Da <b>{count}</b> de oro a {name}"),  # reordered spans keep their numbers
        ("  Press %s to jump\t", "Pulsa %s para saltar"),  # outer spaces set aside like a segment's
        ("Drop {item}", "Suelta el objeto"),  # the target lost a placeholder: not shown
        ("{n, plural, one{# coin} other{# coins}}", "{n, plural, one{# moneda} other{# monedas}}"),  # ICU: not shown
    )
    SafeTranslator(engine).translate(TranslationRequest(("Give {who} <b>{n}</b> gems",), "en", "es", examples=(pairs,)))
    (sent,) = engine.requests
    assert sent.texts == ("Give <x0/> <x1/><x2/><x3/> gems",)
    assert sent.examples == (
        (
            ("Give <x0/> <x1/><x2/><x3/> gold", "Da <x1/><x2/><x3/> de oro a <x0/>"),
            ("Press <x0/> to jump", "Pulsa <x0/> para saltar"),
        ),
    )
