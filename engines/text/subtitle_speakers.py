"""Who speaks a subtitle cue: the label at the start of its text, or its WebVTT voice spans.

No subtitle library reads speaker labels, so they are read here, conservatively: a wrong speaker
is worse than none, since the label is cut from the text that gets translated. A label is

* ``[Name]`` or ``(Name)`` at the start of the cue, a colon after it allowed;
* ``Name:`` at the start of the cue, with text after it;
* ``>> Name:``, the broadcast style.

``Name`` must look like a name: at most three words, the first starting with a letter, every word
starting with a capital letter or a digit, made of letters, digits and ``. ' ’ - _`` only (``Speaker 2``,
``SPEAKER_01``, ``Dr. Smith``). So ``(laughs)`` and ``[door slams]`` stay in the text, and so does
``[MUSIC]`` and the other common sound descriptions of :data:`SOUND_WORDS`, as does a bracketed
label with nothing after it: that is the cue's whole content. A dialogue dash (``- Hi.``) is not a
speaker. Scripts without capital letters get no labels (their brackets hold sounds as often as names).

WebVTT names the speaker in ``<v Name>`` spans: a cue whose spans name one voice gets it; a cue with
several voices gets none (one cue, one speaker).
"""

from __future__ import annotations

import re

#: First words of sound descriptions written in capitals or title case (``[MUSIC PLAYING]``, ``(Laughs)``).
# fmt: off
SOUND_WORDS = frozenset({
    "applause", "background", "beep", "beeping", "bell", "birds", "chatter", "cheering", "cheers", "chuckles",
    "chuckling", "clapping", "coughs", "coughing", "crosstalk", "crying", "cries", "dog", "door", "dramatic",
    "engine", "explosion", "footsteps", "gasps", "gasping", "groans", "gunshot", "gunshots", "humming", "indistinct",
    "inaudible", "knocking", "laughs", "laughing", "laughter", "muffled", "music", "noise", "ominous", "overlapping",
    "phone", "screaming", "screams", "sfx", "sighs", "sighing", "silence", "singing", "sings", "sniffles", "sobbing",
    "sound", "static", "thunder", "upbeat", "whispering", "whispers", "wind",
})
# fmt: on

_NAME = re.compile(r"[^\W\d_][\w.'’-]*(?: [\w.'’-]+){0,2}")
_BRACKETED = re.compile(r"\s*(?:\[(?P<square>[^\]\n]{1,60})\]|\((?P<round>[^)\n]{1,60})\))[ \t]*:?\s*")
_BROADCAST = re.compile(r"\s*>>[ \t]*(?P<name>[^:\n]{1,60}):\s*")
_COLON = re.compile(r"\s*(?P<name>[^:\n]{1,60}):\s+")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?[ \t\n]+(?P<name>[^>]*)>")


def looks_like_name(label: str) -> bool:
    """True for ``Speaker 2``, ``SPEAKER_01``, ``John``, ``Dr. Smith``; false for sounds and sentences."""
    words = label.split()
    if not words or not _NAME.fullmatch(" ".join(words)):
        return False
    if not all(word[0].isdigit() or word[0].isupper() for word in words):
        return False
    return words[0].strip(".'’-_").casefold() not in SOUND_WORDS


def split_speaker(text: str) -> tuple[str | None, str]:
    """The speaker a leading label names, and the text without the label; ``(None, text)`` when there is none."""
    for pattern, needs_text in ((_BROADCAST, False), (_BRACKETED, True), (_COLON, True)):
        match = pattern.match(text)
        if match is None:
            continue
        label = next(group for group in match.groups() if group is not None)
        rest = text[match.end() :]
        if looks_like_name(label) and (rest.strip() or not needs_text):
            return " ".join(label.split()), rest
    return None, text


def vtt_voice(text: str) -> str | None:
    """The one voice that the ``<v Name>`` spans of a WebVTT cue name, or None (no span, or several voices)."""
    voices = {" ".join(match["name"].split()) for match in _VOICE.finditer(text)}
    voices.discard("")
    return voices.pop() if len(voices) == 1 else None
