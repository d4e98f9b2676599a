"""Apertium translator engine for the CPU profile.

Apertium is a rule-based system installed as Debian packages: one "mode"
(a shell pipeline) per translation direction, listed by ``apertium -l``.
This engine learns the installed modes at start, routes each request
through them (``apertium.modes``: API codes, pivots) and sends every segment
of a hop through a single ``apertium`` process, because starting the
pipeline (about 0.3 s) costs far more than translating a UI string; the
segments travel null-flush framed in Apertium's stream format
(``apertium.stream``).

Options: ``ApertiumOptions``. See docs/translation.md.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import subprocess
from collections.abc import Sequence
from typing import Any

from pydantic import Field, field_serializer

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable
from engines.options import EngineOptions
from engines.translation.apertium.modes import ModeGraph, Route
from engines.translation.apertium.stream import collapse_spaces, frame, join_segment, split_segment, unframe
from engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine

log = logging.getLogger(__name__)

#: Installed modes left out by default: apertium-rus-ukr 0.2.1's tagger
#: model aborts apertium-tagger (an assertion in perceptron_spec.h) on about
#: one sentence in four, even when run by hand, and takes the rest of a
#: batch with it. Advertising ru<->uk would promise what fails.
BROKEN_MODES: frozenset[str] = frozenset({"rus-ukr", "ukr-rus"})

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_TRANSLITERATION_MODE = "Cyrl-Latn"


class ApertiumOptions(EngineOptions):
    """Where the Apertium launcher is and how far routes may reach."""

    binary: str = Field("apertium", min_length=1, description="The apertium launcher: a name on PATH or a path.")
    data_dir: str | None = Field(
        None, description="Apertium data directory passed as -d; unset: the launcher's own (/usr/share/apertium)."
    )
    max_hops: int = Field(3, ge=1, description="Longest route allowed, in modes (pivots chain modes).")
    timeout_s: float = Field(60.0, gt=0, description="Deadline of one apertium run, plus one second per 20 kB of input.")
    exclude_modes: frozenset[str] = Field(
        BROKEN_MODES,
        description="Installed modes never to use; the default leaves out rus-ukr and ukr-rus, "
        "whose packaged tagger aborts on about a quarter of sentences ([] turns them back on).",
    )

    @field_serializer("exclude_modes", when_used="json")
    def _sorted_modes(self, modes: frozenset[str]) -> list[str]:
        return sorted(modes)


class ApertiumEngine(TranslatorEngine):
    """Rule-based translation through the locally installed Apertium modes."""

    name = "apertium"
    Options = ApertiumOptions
    options: ApertiumOptions

    def __init__(self, options: ApertiumOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self._graph: ModeGraph | None = None
        self._modes: frozenset[str] = frozenset()

    # -- lifecycle --

    def start(self) -> None:
        """Check the launcher runs and learn which modes are installed."""
        listing = self._call(["-l"], "", timeout=self.options.timeout_s)
        self._modes = frozenset(listing.split()) - self.options.exclude_modes
        self._graph = ModeGraph(self._modes, self.options.max_hops)
        log.info("apertium: %d modes, %d pairs", len(self._modes), len(self._graph.pairs()))

    def health(self) -> None:
        """Raise ``EngineUnavailable`` unless started and the launcher answers."""
        if self._graph is None:
            raise EngineUnavailable("apertium engine not started")
        try:
            self._call(["-l"], "", timeout=self.options.timeout_s)
        except EngineFailure as exc:
            raise EngineUnavailable(f"apertium launcher is broken: {exc}") from exc

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._graph.pairs() if self._graph else frozenset()

    def modes(self) -> frozenset[str]:
        """Names of the modes in use: what ``apertium -l`` lists, less the excluded."""
        return self._modes

    def route(self, source: str, target: str) -> Route:
        """The route ``translate`` would take (source variants map to primary)."""
        if self._graph is None:
            raise EngineUnavailable("apertium engine not started")
        return self._graph.route(source.split("-")[0], target)

    # -- translation --

    def translate(self, request: TranslationRequest) -> TranslationResult:
        route = self.route(request.source_lang, request.target_lang)
        split = [split_segment(text) for text in request.texts]
        cores = [chunk.core for chunks, _ in split for chunk in chunks]
        if route.hops[0] == "sr":
            cores = self._transliterate(cores)
        for mode in route.modes:
            cores = self.translate_lines(mode, cores)
        texts = []
        pos = 0
        for chunks, breaks in split:
            texts.append(join_segment(chunks, cores[pos : pos + len(chunks)], breaks))
            pos += len(chunks)
        return TranslationResult(tuple(texts), engine=self.name, route=route.hops)

    def _transliterate(self, cores: list[str]) -> list[str]:
        """Serbian in Cyrillic goes to Latin first: hbs analysers read Latin only."""
        if _TRANSLITERATION_MODE not in self._modes or not any(map(_CYRILLIC.search, cores)):
            return cores
        return self.translate_lines(_TRANSLITERATION_MODE, cores)

    def translate_lines(self, mode: str, lines: Sequence[str]) -> list[str]:
        """Run single-line texts through one mode, normally in one apertium process.

        Empty lines never reach apertium. Each output chunk must come back
        with its framing superblank; when a pipeline stage dies mid-batch (a
        few installed taggers abort on rare inputs) the chunk where framing
        broke is run alone and the rest as a new batch, so a bad line costs
        one extra process, not one process per line, and is then reported.
        """
        todo = [i for i, line in enumerate(lines) if line.strip()]
        out = list(lines)
        done: list[str] = []
        while len(done) < len(todo):
            rest = [lines[i] for i in todo[len(done) :]]
            good = self._run_chunks(mode, rest)
            done.extend(good)
            if len(good) < len(rest):
                alone = self._run_chunks(mode, rest[len(good) : len(good) + 1])
                if not alone:
                    raise EngineFailure(f"apertium {mode} produced no output for {rest[len(good)]!r}")
                done.extend(alone)
        for i, text in zip(todo, done):
            out[i] = collapse_spaces(text, lines[i])
        return out

    def _run_chunks(self, mode: str, lines: Sequence[str]) -> list[str]:
        """Translations of the leading ``lines`` whose framing came back intact."""
        pieces = self._run_mode(mode, "".join(frame(line) for line in lines)).split("\0")
        good: list[str] = []
        for piece in pieces[: len(lines)]:
            text = unframe(piece)
            if text is None:
                log.warning("apertium %s: framing lost after %d of %d chunks", mode, len(good), len(lines))
                break
            good.append(text)
        return good

    def _run_mode(self, mode: str, payload: str) -> str:
        if mode not in self._modes:
            raise EngineFailure(f"apertium mode {mode} is not installed")
        timeout = self.options.timeout_s + len(payload) / 20_000
        return self._call(["-z", "-f", "none", "-u", mode], payload, timeout=timeout)

    def _call(self, args: list[str], stdin: str, *, timeout: float) -> str:
        """Run the launcher; map every way it can fail onto the engine errors."""
        binary, data_dir = self.options.binary, self.options.data_dir
        cmd = [binary, *(["-d", data_dir] if data_dir else []), *args]
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # lets a timeout kill the whole pipeline
            )
        except OSError as exc:
            raise EngineUnavailable(f"cannot run {binary}: {exc}") from exc
        try:
            out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            _kill_group(proc)
            raise EngineTimeout(f"apertium {' '.join(args)} took over {timeout:.0f} s") from exc
        if proc.returncode != 0:
            detail = err.decode("utf-8", "replace").strip()[-500:]
            raise EngineFailure(
                f"apertium {' '.join(args)} exited with {proc.returncode}: {detail}"
            ) from subprocess.CalledProcessError(proc.returncode, cmd, out, err)
        return out.decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the launcher and every pipeline stage it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
