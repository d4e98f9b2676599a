"""The engine error tree.

Engine adapters catch their library's exceptions and raise one of these, most
specific first, with the cause chained (``raise ... from exc``). The error
table (``core.errors``) maps each class to a status and contract code for the
HTTP edge and for failed tasks; engines never know about HTTP.

    EngineError
    ├── InvalidInput          the request cannot be processed as given
    │   ├── UnsupportedLanguage   a language or pair the engine does not serve
    │   ├── UnsupportedMedia      unreadable file, or a container/codec not accepted
    │   ├── NoAudioTrack          media without an audio stream
    │   ├── MediaTooLarge         over the size or duration limit
    │   ├── InvalidUrl            a URL that may not be fetched/called, or did not answer
    │   └── BadVoiceSample        a voice sample the cloner refuses (format, length, noise, no speech)
    │       ├── UnsupportedAudioFormat   not WAV/MP3/FLAC/M4A/OGG by content
    │       ├── SampleDuration           outside 10–60 s of audio
    │       ├── SampleTooNoisy           estimated SNR under the floor
    │       └── NoSpeechFound            voice activity detection found no speech
    ├── VoiceNotReady         a cloned voice still training (or failed) used for speech
    ├── EngineUnavailable     not started, overloaded or its backend is down (retryable)
    │   └── EngineTimeout     the backend did not answer in time (retryable)
    └── EngineFailure         the engine ran and failed (bad output, crash)
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error an engine raises."""


class InvalidInput(EngineError):
    """The input cannot be processed as given (empty, malformed, out of range)."""


class UnsupportedLanguage(InvalidInput):
    """A language, or a source/target pair, that the engine does not serve."""

    def __init__(self, message: str, *, source: str | None = None, target: str | None = None):
        super().__init__(message)
        self.source = source
        self.target = target


class UnsupportedMedia(InvalidInput):
    """The file cannot be read, or its container/codec is not accepted."""


class NoAudioTrack(InvalidInput):
    """The media has no audio stream to transcribe."""


class MediaTooLarge(InvalidInput):
    """The media is over the size or duration limit."""


class InvalidUrl(InvalidInput):
    """A URL that is malformed, points at a refused address, or could not be fetched."""


class BadVoiceSample(InvalidInput):
    """A voice sample the cloner cannot use; a sample rate under 16 kHz raises this class itself."""


class UnsupportedAudioFormat(BadVoiceSample):
    """The sample is not WAV, MP3, FLAC, M4A or OGG audio (judged by content, not by name)."""


class SampleDuration(BadVoiceSample):
    """The sample holds less than 10 s or more than 60 s of audio."""


class SampleTooNoisy(BadVoiceSample):
    """The sample's estimated signal-to-noise ratio is under the floor (20 dB)."""


class NoSpeechFound(BadVoiceSample):
    """Voice activity detection found no speech in the sample."""


class VoiceNotReady(EngineError):
    """A cloned voice that is still training, or whose training failed, was asked to speak."""


class EngineUnavailable(EngineError):
    """The engine cannot take work now; retrying later may succeed."""


class EngineTimeout(EngineUnavailable):
    """The engine's backend did not answer within its deadline."""


class EngineFailure(EngineError):
    """The engine ran and produced no usable result."""
