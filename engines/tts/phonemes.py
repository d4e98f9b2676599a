"""espeak-ng IPA phonemes the way Piper makes them, through the espeak-ng library (ctypes).

Piper voices were trained on espeak-ng's IPA output, one clause at a time, with
the clause's punctuation (``, . ? ! : ;``) appended and a space between clauses;
text is cut into sentences at ``. ? !``, and each sentence is spoken on its own.
espeak-ng 1.52's ``espeak_TextToPhonemes`` does not report clause terminators,
so the text is cut at punctuation here and each clause phonemised separately.

The library keeps its state in globals, so each :class:`EspeakPhonemizer` loads a
private copy of it (another engine in the process, Kokoro's phonemizer for one,
keeps its own) and serialises calls with a lock.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import tempfile
import threading
import unicodedata

#: Clause-ending punctuation (and closing quotes or brackets) at the end of a word.
_CLAUSE_END = re.compile(r"""([,;:!?.…]+)["'”’»)\]]*(?=\s|$)""")
_SENTENCE_END = frozenset(".?!")
#: espeak marks words read in another language with "(en)"…"(en-us)"; Piper drops the flags.
_LANGUAGE_FLAG = re.compile(r"\([a-z]{2,3}(?:-[a-z0-9]+)*\)")

_AUDIO_OUTPUT_SYNCHRONOUS = 0x02
_CHARS_UTF8 = 1
_PHONEMES_IPA = 0x02


def _library_path() -> tuple[str, str | None]:
    """The espeak-ng library and data folder: espeakng-loader's build, else the system's."""
    try:
        import espeakng_loader

        return espeakng_loader.get_library_path(), espeakng_loader.get_data_path()
    except ImportError:
        found = ctypes.util.find_library("espeak-ng")
        if found is None:
            raise OSError("espeak-ng library not found (install espeakng-loader or libespeak-ng1)") from None
        return found, None


def _private_copy(library: str) -> ctypes.CDLL:
    """Load a copy of the library, so its globals are ours alone (dlopen shares one copy per path).

    A bare soname (the system library found by name) is loaded as it is; the lock still guards our calls.
    """
    if not os.path.isfile(library):
        return ctypes.cdll.LoadLibrary(library)
    folder = tempfile.mkdtemp(prefix="espeak-")
    try:
        copy = os.path.join(folder, os.path.basename(library))
        shutil.copy(library, copy)
        return ctypes.cdll.LoadLibrary(copy)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the mapping outlives the file


def _punctuation(run: str) -> str:
    """The one mark Piper keeps for a run like ``?!`` or ``...``."""
    for mark in "?!":
        if mark in run:
            return mark
    return "." if run[0] in ".…" else run[0]


def clauses(text: str) -> list[tuple[str, str]]:
    """``text`` cut into (clause, punctuation mark or "") pairs.

    A period followed by a lower-case word ends nothing ("e.g. this", "approx. five").
    """
    parts: list[tuple[str, str]] = []
    start = 0
    for match in _CLAUSE_END.finditer(text):
        run = match.group(1)
        if set(run) == {"."} and _next_letter(text, match.end()).islower():
            continue
        parts.append((text[start : match.start()], _punctuation(run)))
        start = match.end()
    if text[start:].strip():
        parts.append((text[start:], ""))
    return parts


def _next_letter(text: str, index: int) -> str:
    return next((ch for ch in text[index:] if ch.isalnum()), "")


class EspeakPhonemizer:
    """Sentences of IPA phonemes (Unicode NFD), with clause punctuation, from one espeak-ng instance."""

    def __init__(self, library: str | None = None, data_path: str | None = None) -> None:
        if library is None:
            library, data_path = _library_path()
        self._lib = _private_copy(library)
        self._lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
        self._lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        self._lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        path = data_path.encode() if data_path else None
        if self._lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, path, 0) <= 0:
            raise OSError(f"espeak-ng did not initialise (data {data_path})")
        self._lock = threading.Lock()
        self._voice = ""

    def sentences(self, text: str, voice: str) -> list[str]:
        """Phonemes of each sentence of ``text`` read with espeak voice ``voice`` (``en-us``)."""
        result: list[str] = []
        current: list[str] = []
        with self._lock:
            self._set_voice(voice)
            for clause, mark in clauses(text):
                phonemes = self._clause(clause)
                if phonemes:
                    current.append(phonemes + mark)
                if mark in _SENTENCE_END and current:
                    result.append(" ".join(current))
                    current = []
        if current:
            result.append(" ".join(current))
        return [unicodedata.normalize("NFD", sentence) for sentence in result]

    def _set_voice(self, voice: str) -> None:
        if voice != self._voice:
            if self._lib.espeak_SetVoiceByName(voice.encode()) != 0:
                raise ValueError(f"espeak-ng has no voice {voice!r}")
            self._voice = voice

    def _clause(self, clause: str) -> str:
        """espeak's phonemes of one clause (espeak may cut it further; the pieces are joined by spaces)."""
        buffer = ctypes.create_string_buffer(clause.encode("utf-8"))
        pointer = ctypes.c_void_p(ctypes.addressof(buffer))
        pieces: list[str] = []
        while pointer.value is not None:
            raw = self._lib.espeak_TextToPhonemes(ctypes.byref(pointer), _CHARS_UTF8, _PHONEMES_IPA)
            piece = _LANGUAGE_FLAG.sub("", (raw or b"").decode("utf-8", errors="replace")).strip()
            if piece:
                pieces.append(piece)
        return " ".join(pieces)

    def close(self) -> None:
        with self._lock:
            if self._lib is not None:
                self._lib.espeak_Terminate()
                self._lib = None  # type: ignore[assignment]
