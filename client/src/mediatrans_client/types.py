"""Value types of the request fields (contract section 4), as the endpoint methods' keyword arguments take them.

The literals list the values the contract names, so editors complete them; a type checker flags
others, but nothing is checked at run time: the service validates every field and answers
``InvalidRequestError`` with ``details``.
"""

from __future__ import annotations

from typing import Literal

# POST /v1/video/translate (4.1)
#: The contract's five, and the timed-text delivery formats ``ttml`` (IMSC 1.1 Text) and ``ebu_tt_d`` (extensions).
OutputFormat = Literal["srt", "vtt", "ass", "burned_video", "all", "ttml", "ebu_tt_d"]
#: The formats of a subtitle file's translation (``POST /v1/subtitles/translate``): ``burned_video`` needs a video.
SubtitleFormat = Literal["srt", "vtt", "ass", "all", "ttml", "ebu_tt_d"]
#: Timed-text presets (extension): per-language limits, slower broadcast reading speeds, or the old single preset.
SubtitlePreset = Literal["standard", "broadcast", "legacy"]
Engine = Literal["standard", "professional"]
SubtitlePosition = Literal["bottom", "top", "middle"]
#: The contract's four, and ``original`` (each speaker dubbed in a voice fitted from their own speech).
DubbingVoice = Literal["default-female", "default-male", "professional-female", "professional-male", "original"]

# POST /v1/voice/clone (4.3)
VoiceGender = Literal["male", "female", "unknown"]

# POST /v1/tts (4.7)
AudioFormat = Literal["mp3", "wav", "ogg", "flac", "pcm"]
Emotion = Literal["neutral", "happy", "excited", "sad", "angry", "calm", "fearful", "surprised"]
SpeakerGender = Literal["female", "male"]

# POST /v1/grammar (4.10)
CheckType = Literal["spelling", "grammar", "punctuation", "style", "wordiness"]
Severity = Literal["info", "warning", "error"]
Domain = Literal["general", "academic", "business", "casual"]

# POST /v1/game/localization (4.9)
ContentType = Literal["ui", "dialogue", "item_desc", "skill", "story", "tutorial"]
Tone = Literal["epic", "humorous", "dark", "cute"]
