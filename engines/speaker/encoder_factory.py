"""Builds a speaker encoder by name (``voicefilter`` or ``resemblyzer``), importing only the one asked for."""

from __future__ import annotations

from typing import Literal, get_args

from engines.speaker.encoders import SpeakerEncoder

#: The speaker encoders :func:`load_encoder` builds.
EncoderName = Literal["voicefilter", "resemblyzer"]
ENCODER_NAMES: tuple[str, ...] = get_args(EncoderName)


def load_encoder(name: str, threads: int = 1) -> SpeakerEncoder:
    """Build the encoder ``name`` (``voicefilter`` or ``resemblyzer``) with ``threads`` compute threads.

    Raises:
        ValueError: for an unknown name.
        EngineUnavailable: when the model's package or weights are missing.
    """
    if name == "voicefilter":
        from engines.speaker.voicefilter_encoder import VoiceFilterEncoder

        return VoiceFilterEncoder(threads=threads)
    if name == "resemblyzer":
        from engines.speaker.resemblyzer_encoder import ResemblyzerEncoder

        return ResemblyzerEncoder(threads=threads)
    raise ValueError(f"unknown speaker encoder {name!r}; expected one of {', '.join(ENCODER_NAMES)}")
