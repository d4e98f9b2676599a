"""GPU-profile translator: an OpenAI-compatible chat-completions client.

In the cluster the model runs behind vLLM or Ray Serve LLM, both of which
expose ``/v1/chat/completions``; this engine only speaks that protocol, so the
replica that owns it needs no GPU and no model weights.

Several segments travel in one call (``batch_size``) because per-call
overhead dominates short game/subtitle strings. The answer must be a JSON
object holding exactly one translation per segment, in order (a single
one-line segment is answered as plain text; ``llm/answers.py``). Every
translation then passes the output checks (``checks.py``: target language,
tokens intact, not an echo, sane length); anything else is re-asked once,
sampled so a greedy loop is not repeated, then the batch is split in halves,
and finally the engine raises
``EngineFailure`` so the router falls back to the pair's next engine.
``professional`` requests get a review pass that checks and corrects the
drafts. In-context examples precede the request: the pairs of the client's
translation memory that the request carries (``TranslationRequest.examples``)
or else the project's bank (``llm/examples.py``); targets listed in ``single_segment_targets`` go one
segment per plain-text call, and those in ``plain_prompt_targets`` one
segment per call in the bare model's plain wording (``plain_messages``), but
for ``professional`` requests.

Options: ``LLMOptions``. HTTP, retries and the service key: ``llm/client.py``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import httpx

from engines.errors import EngineFailure, EngineTimeout, EngineUnavailable, UnsupportedLanguage
from engines.translation.base import TranslationRequest, TranslationResult, TranslatorEngine
from engines.translation.checks import check_translations
from engines.translation.languages import language_pairs, primary
from engines.translation.llm.answers import PROBLEMS, OutputMismatch, is_plain, parse_translations, plain_answer
from engines.translation.llm.batches import Job, Pairs, Segment, Window, answer_budget, chunks, context_windows
from engines.translation.llm.client import ChatClient, list_models, new_http_client, normalize_base_url
from engines.translation.llm.examples import ExampleBank, load_bank, memory_examples
from engines.translation.llm.options import LLMOptions
from engines.translation.llm.prompts import (
    asks_plain,
    batch_messages,
    chat_payload,
    condense_messages,
    corrective,
    plain_messages,
    review_messages,
    single_messages,
    summary_messages,
    with_examples,
)
from engines.translation.llm.stats import LLMStats


class LLMEngine(TranslatorEngine):
    """Translator backed by an OpenAI-compatible server (vLLM, Ray Serve LLM)."""

    name = "llm"
    Options = LLMOptions
    options: LLMOptions

    def __init__(self, options: LLMOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.base_url = normalize_base_url(self.options.base_url)
        #: The model asked; None until ``start()`` picks the first one the server lists.
        self.model = self.options.model
        self.max_inflight = max(self.options.concurrency, self.options.max_inflight)
        self._pairs = language_pairs(self.options.languages)
        self._stats = LLMStats()
        self._http: httpx.Client | None = None
        self._chat: ChatClient | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._examples: ExampleBank | None = load_bank(self.options.examples) if self.options.examples else None

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> None:
        """Open a keep-alive client and check the server lists the model."""
        self._http = self._new_http_client()
        self._chat = ChatClient(
            self._http,
            self._stats,
            max_retries=self.options.max_retries,
            backoff_s=self.options.backoff_s,
            max_backoff_s=self.options.max_backoff_s,
        )
        # Shared by every request of the replica: several requests (one game string's targets) must be
        # in flight together for the server to decode them in one batch.
        self._pool = ThreadPoolExecutor(self.max_inflight, thread_name_prefix="llm-batch")
        try:
            self.model = self._check_model(self._wait_for_models())
        except Exception:
            self.shutdown()
            raise

    def _wait_for_models(self) -> list[str]:
        """``/v1/models``, polled for up to ``startup_wait_s`` while the server is still starting."""
        deadline = time.monotonic() + self.options.startup_wait_s
        while True:
            try:
                return self._list_models()
            except (EngineUnavailable, EngineTimeout):
                if time.monotonic() >= deadline:
                    raise
                time.sleep(2.0)

    def health(self) -> None:
        """Unavailable when not started or the server stops answering."""
        if self._http is None:
            raise EngineUnavailable("llm engine is not started")
        self._list_models()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._http is not None:
            self._http.close()
        self._http, self._chat, self._pool = None, None, None

    def _new_http_client(self) -> httpx.Client:
        key = self.options.api_key.get_secret_value() if self.options.api_key is not None else None
        return new_http_client(self.base_url, key, self.options.timeout_s, self.max_inflight)

    def _list_models(self) -> list[str]:
        assert self._http is not None
        return list_models(self._http)

    def _check_model(self, models: list[str]) -> str:
        if self.model is None and models:
            return models[0]
        if self.model is None or self.model not in models:
            raise EngineUnavailable(f"model {self.model!r} not served at {self.base_url}; has {models}")
        return self.model

    # -- interface ---------------------------------------------------------

    def pairs(self) -> frozenset[tuple[str, str]]:
        return self._pairs

    def supports_formality(self) -> frozenset[str]:
        """An LLM follows a register instruction in any language."""
        return frozenset(self.options.languages)

    def describe(self) -> dict[str, Any]:
        """The options, with the model actually used and the counters since start."""
        return {
            **super().describe(),
            **self.options.public(),
            "model": self.model,
            "base_url": self.base_url,
            "stats": self.stats(),
        }

    def stats(self) -> dict[str, int]:
        """Counters since start: calls, re-asks, splits, failures, retries..."""
        return self._stats.snapshot()

    def translate(self, request: TranslationRequest) -> TranslationResult:
        """Translate; output checks re-ask once, then ``EngineFailure`` lets the router fall back."""
        self._check_pair(request.source_lang, request.target_lang)
        if self._pool is None:
            raise EngineUnavailable("llm engine is not started")
        self._stats.add("requests")
        if request.hints.draft is not None and request.hints.max_length and len(request.texts) == 1:
            return self._condense(request, request.hints.draft, request.hints.max_length)
        segments = [Segment.of(t) for t in request.texts]
        cores = [s.core for s in segments if s.core]
        memory = [m for s, m in zip(segments, request.examples or itertools.repeat(()), strict=False) if s.core]
        translated = iter(self._translate_cores(cores, request, memory))
        texts = tuple(s.wrap(next(translated)) if s.core else s.wrap("") for s in segments)
        return TranslationResult(texts=texts, engine=self.name, route=(request.source_lang, request.target_lang))

    def _check_pair(self, source: str, target: str) -> None:
        if (source, target) not in self._pairs:
            raise UnsupportedLanguage(f"llm does not serve {source}->{target}", source=source, target=target)

    def _translate_cores(self, cores: list[str], request: TranslationRequest, memory: list[Pairs]) -> list[str]:
        """Batches run concurrently; the first error aborts the whole request.

        ``memory``: each core's translation memory examples (aligned with ``cores``).
        """
        if not cores:
            return []
        self._stats.add("segments", len(cores))
        target = primary(request.target_lang)
        one_by_one = target in self.options.single_segment_targets or self._asks_plainly(request)
        size = 1 if one_by_one else self.options.batch_size
        batches = chunks(cores, size)
        self._stats.add("batches", len(batches))
        assert self._pool is not None
        job = Job(request)
        work = list(zip(batches, context_windows(cores, len(batches), size, request), chunks(memory, size), strict=True))
        results: list[list[str]] = [[] for _ in work]
        order = itertools.count()  # batches start in order, at most ``concurrency`` of them at once

        def worker() -> None:
            for i in iter(order.__next__, None):
                if i >= len(work):
                    return
                job.check()
                texts, window, shown = work[i]
                results[i] = self._translate_batch(texts, job, self.options.max_split_depth, window, shown)

        futures = [self._pool.submit(worker) for _ in range(min(self.options.concurrency, len(work)))]
        wait(futures, return_when=FIRST_EXCEPTION)
        if any(f.cancelled() or (f.done() and f.exception()) for f in futures):
            raise job.abandon(futures)
        return [text for batch in results for text in batch]

    def summarize(self, texts: list[str], language: str, max_chars: int = 6000) -> str:
        """A two-sentence English summary of a transcript (context for professional video translation)."""
        if self._chat is None:
            raise EngineUnavailable("llm engine is not started")
        body, size = [], 0
        for text in texts:
            size += len(text) + 1
            if size > max_chars:
                break
            body.append(text)
        payload = chat_payload(summary_messages(body, language), 0, self.model, self.options)
        payload["max_tokens"] = 120
        return self._chat.complete(payload).strip()

    def _condense(self, request: TranslationRequest, draft: str, max_length: int) -> TranslationResult:
        """``draft`` rewritten shorter (subtitles read too fast); the caller decides whether to keep it."""
        if self._chat is None:
            raise EngineUnavailable("llm engine was shut down")
        self._stats.add("condensed")
        messages = condense_messages(
            request.texts[0], draft, request.source_lang, request.target_lang, max_length, request.hints.instructions
        )
        payload = chat_payload(messages, 0, self.model, self.options)
        payload["max_tokens"] = min(payload["max_tokens"], answer_budget([draft]))
        answer = plain_answer(self._chat.complete(payload), draft)[0].strip()
        return TranslationResult(texts=(answer or draft,), engine=self.name, route=(request.source_lang, request.target_lang))

    # -- one batch -----------------------------------------------------------

    def _translate_batch(
        self, texts: list[str], job: Job, splits_left: int, window: Window, memory: Sequence[Pairs]
    ) -> list[str]:
        """Ask, re-ask once, then halve; ``EngineFailure`` when nothing works. ``memory`` is aligned with ``texts``."""
        try:
            drafts = self._ask_twice(texts, job, window, memory)
        except OutputMismatch as exc:
            if len(texts) == 1 or splits_left == 0:
                self._stats.add("failures")
                raise EngineFailure(f"LLM output unusable for {len(texts)} segment(s): {exc}") from exc
            self._stats.add("splits")
            half = len(texts) // 2
            first = self._translate_batch(texts[:half], job, splits_left - 1, window, memory[:half])
            return first + self._translate_batch(texts[half:], job, splits_left - 1, window, memory[half:])
        if job.request.hints.mode == "professional":
            return self._review(texts, drafts, job)
        return drafts

    def _ask_twice(self, texts: list[str], job: Job, window: Window, memory: Sequence[Pairs]) -> list[str]:
        """An answer that parses and passes every output check, in at most two calls."""
        messages = self._messages(texts, job, window, memory)
        answer = self._complete(messages, texts, job)
        try:
            return self._checked(texts, answer, job)
        except OutputMismatch as exc:
            self._stats.add("reasks")
            plain = asks_plain(messages)
            if not plain:  # a batch is told what was wrong (count, segment), greedily: sampling under the JSON
                messages += [  # grammar drifted into blank strings. One segment is asked afresh (small models
                    {"role": "assistant", "content": answer},  # translate a correction instead of heeding it),
                    {"role": "user", "content": corrective(str(exc), len(texts))},  # sampled, so a greedy loop or
                ]  # echo of the same prompt is not simply repeated.
        # Tokens the model still misplaces are repaired by the safety layer around every engine.
        return self._checked(texts, self._complete(messages, texts, job, retry=plain), job, tolerate=("markup",))

    def _messages(self, texts: list[str], job: Job, window: Window, memory: Sequence[Pairs]) -> list[dict[str, str]]:
        """The prompt's shape for the batch; memory examples (any shape) or else the bank's (full prompts only)."""
        request = job.request
        before, after = window
        source, target = request.source_lang, request.target_lang
        shown = memory_examples(memory, self.options.memory_example_count)
        if is_plain(texts) and self._asks_plainly(request):
            return with_examples(plain_messages(texts[0], source, target, request.hints), shown, source, target)
        if is_plain(texts):
            messages = single_messages(texts[0], source, target, request.hints, before, after)
        else:
            messages = batch_messages(texts, source, target, request.hints, before, after)
        return with_examples(messages, shown or self._pick_examples(texts, request), source, target)

    def _asks_plainly(self, request: TranslationRequest) -> bool:
        """The plain prompt: a ``plain_prompt_targets`` target, except for ``professional`` requests, which keep
        the full prompt's context lines (6 on each side) and its review pass."""
        return primary(request.target_lang) in self.options.plain_prompt_targets and request.hints.mode != "professional"

    def _pick_examples(self, texts: list[str], request: TranslationRequest) -> list[tuple[str, str]]:
        """The bank's examples closest to the batch (its median-length segment), when the target uses them.

        Requests of one string get none.
        """
        wanted = self.options.example_targets
        target = primary(request.target_lang)
        if self._examples is None or (wanted is not None and target not in wanted) or self._asks_plainly(request):
            return []
        if len(request.texts) == 1:
            # A lone string (a game string into several targets) shares its whole prompt but the closing line
            # across targets; target-language examples would break that sharing and slow the slowest target.
            return []
        probe = sorted(texts, key=len)[len(texts) // 2]
        picked = self._examples.pick(
            request.source_lang, request.target_lang, probe, request.hints.content_type, self.options.example_count
        )
        return [(e.source, e.target) for e in picked]

    def _checked(self, texts: list[str], answer: str, job: Job, tolerate: tuple[str, ...] = ()) -> list[str]:
        """Parsed translations, or ``OutputMismatch`` naming the first problem (counted per reason)."""
        found = plain_answer(answer, texts[0]) if is_plain(texts) else parse_translations(answer, len(texts))
        request = job.request
        if not self.options.output_checks:
            return found
        reasons = check_translations(texts, found, request.source_lang, request.target_lang)
        bad = [(i, r) for i, r in enumerate(reasons) if r is not None and r not in tolerate]
        for _, reason in bad:
            self._stats.add(f"rejected_{reason}")
        if bad:
            i, reason = bad[0]
            raise OutputMismatch(PROBLEMS[reason].format(n=i + 1, lang=request.target_lang))
        return found

    def _review(self, texts: list[str], drafts: list[str], job: Job) -> list[str]:
        """Professional second pass; a review that fails the checks keeps the drafts."""
        request = job.request
        messages = review_messages(texts, drafts, request.source_lang, request.target_lang, request.hints)
        self._stats.add("reviews")
        try:
            reviewed = parse_translations(self._complete(messages, texts, job, json_answer=True), len(texts))
        except (OutputMismatch, EngineFailure):
            self._stats.add("reviews_discarded")
            return drafts
        reasons = check_translations(texts, reviewed, request.source_lang, request.target_lang)
        final = [d if r is not None else v for d, v, r in zip(drafts, reviewed, reasons)]
        self._stats.add("reviews_changed", sum(1 for d, f in zip(drafts, final) if d != f))
        return final

    def _complete(
        self, messages: list[dict[str, str]], texts: list[str], job: Job, json_answer: bool = False, retry: bool = False
    ) -> str:
        job.check()
        chat = self._chat
        if chat is None:
            raise EngineUnavailable("llm engine was shut down")
        n = len(texts) if json_answer or not asks_plain(messages) else 0
        payload = chat_payload(messages, n, self.model, self.options)
        payload["max_tokens"] = min(payload["max_tokens"], answer_budget(texts))
        if retry and self.options.retry_temperature > 0:
            payload.update(temperature=self.options.retry_temperature, top_p=0.95, seed=len(messages))
            if self.options.retry_frequency_penalty:
                payload["frequency_penalty"] = self.options.retry_frequency_penalty
        return chat.complete(payload)
