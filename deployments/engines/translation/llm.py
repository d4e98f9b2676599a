"""GPU-profile translator: an OpenAI-compatible chat-completions client.

In the cluster the model runs behind vLLM or Ray Serve LLM, both of which
expose ``/v1/chat/completions``; this engine only speaks that protocol, so the
replica that owns it needs no GPU and no model weights.

Several segments travel in one call (``batch_size``) because per-call
overhead dominates short game/subtitle strings. The answer must be a JSON
object holding exactly one translation per segment, in order (a single
one-line segment is answered as plain text). Every translation then passes
the output checks (``checks.py``: target language, tokens intact, not an
echo, sane length); anything else is re-asked once, then the batch is split
in halves, and finally the engine raises ``EngineFailure`` so the router
falls back to the pair's next engine. ``professional`` requests get a
review pass that checks and corrects the drafts.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, fields
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from deployments.engines.errors import (
    EngineFailure,
    EngineTimeout,
    EngineUnavailable,
    UnsupportedLanguage,
)
from deployments.engines.llm.service_key import bearer_header, configured_key
from deployments.engines.translation.base import (
    TranslationRequest,
    TranslationResult,
    TranslatorEngine,
)
from deployments.engines.translation.checks import check_translations
from deployments.engines.translation.languages import DEFAULT_LANGUAGES, language_pairs
from deployments.engines.translation.llm_prompts import (
    SYSTEM_SINGLE,
    batch_messages,
    corrective,
    response_schema,
    review_messages,
    single_messages,
    summary_messages,
)

# --------------------------------------------------------------------------
# Output parsing
# --------------------------------------------------------------------------


class OutputMismatch(ValueError):
    """The model's answer does not hold exactly one string per segment."""


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_NUMBERED = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)[.):])\s?(.*)$")


def parse_translations(content: str, expected: int) -> list[str]:
    """Exactly ``expected`` translations from an answer, or ``OutputMismatch``.

    JSON is tried first (inside code fences or after leading chatter), then
    numbered lines, because small models drift between the two.
    """
    found = _json_items(content)
    if found is None:
        found = _numbered_items(content)
    if found is None:
        raise OutputMismatch("no JSON list of translations and no numbered lines found")
    if len(found) != expected:
        raise OutputMismatch(f"expected {expected} translations, got {len(found)}")
    return found


def _json_items(content: str) -> list[str] | None:
    """The first JSON value in the text that has the translations shape."""
    for candidate in (*_FENCE.findall(content), content):
        for value in _json_values(candidate):
            items = _translations_of(value)
            if items is not None:
                return items
    return None


def _json_values(text: str) -> Iterator[Any]:
    """Each outermost JSON object or array in ``text``, left to right.

    Values nested in one already decoded are skipped, so a rejected object
    cannot smuggle in one of its inner lists.
    """
    decoder = json.JSONDecoder()
    end = 0
    for match in re.finditer(r"[\[{]", text):
        if match.start() < end:
            continue
        try:
            value, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        yield value


def _translations_of(value: Any) -> list[str] | None:
    """The list in ``{"translations": [...]}``, or a bare list of strings.

    Numbers are accepted only under the explicit key: a bare ``[4]`` is more
    likely a ``[4] ...`` line marker than an answer.
    """
    if isinstance(value, list):
        return value if all(isinstance(v, str) for v in value) else None
    if not isinstance(value, dict):
        return None
    items = value.get("translations", _single_list(value))
    if not isinstance(items, list) or not all(_is_scalar(v) for v in items):
        return None
    return [v if isinstance(v, str) else str(v) for v in items]


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _single_list(obj: dict[str, Any]) -> Any:
    """Tolerate a renamed key when the object holds exactly one list."""
    lists = [v for v in obj.values() if isinstance(v, list)]
    return lists[0] if len(obj) == 1 and lists else None


def _numbered_items(content: str) -> list[str] | None:
    """Items of a ``1. ...`` / ``2) ...`` / ``[3] ...`` list numbered from 1 in order."""
    items: list[str] = []
    for line in content.splitlines():
        match = _NUMBERED.match(line)
        number = int(match.group(1) or match.group(2)) if match else None
        if match and number == len(items) + 1:
            items.append(match.group(3))
        elif items and match is None:
            items[-1] += "\n" + line
        elif match:
            return None
    return [_unquote(i.rstrip()) for i in items] or None


def _unquote(item: str) -> str:
    """Undo the JSON quoting that the prompt used for each segment, if echoed."""
    if len(item) >= 2 and item[0] == item[-1] == '"':
        try:
            value = json.loads(item)
        except ValueError:
            return item
        return value if isinstance(value, str) else item
    return item


# --------------------------------------------------------------------------
# Segment shaping
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Segment:
    """A segment split into outer whitespace and the part worth sending."""

    lead: str
    core: str
    trail: str

    @classmethod
    def of(cls, text: str) -> _Segment:
        core = text.strip()
        if not core:
            return cls(text, "", "")
        start = text.index(core)
        return cls(text[:start], core, text[start + len(core) :])

    def wrap(self, translated: str) -> str:
        """Outer whitespace is layout, not language: put it back verbatim."""
        return f"{self.lead}{translated.strip()}{self.trail}" if self.core else self.lead


def chunks(items: Sequence[str], size: int) -> list[list[str]]:
    """Consecutive slices of at most ``size`` items."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


@dataclass
class LLMStats:
    """Counters that show how often the model misbehaves and the backend struggles.

    ``calls`` counts answered chat completions (re-asks and split halves
    included); ``batches`` counts the batches a request was cut into.
    """

    requests: int = 0
    segments: int = 0
    batches: int = 0
    calls: int = 0
    reasks: int = 0
    splits: int = 0
    failures: int = 0
    retries: int = 0
    timeouts: int = 0
    unavailable: int = 0
    rejected_language: int = 0
    rejected_echo: int = 0
    rejected_markup: int = 0
    rejected_length: int = 0
    rejected_empty: int = 0
    reviews: int = 0
    reviews_changed: int = 0
    reviews_discarded: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: str, amount: int = 1) -> None:
        """Thread-safe increment: batches run concurrently."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def snapshot(self) -> dict[str, int]:
        """A consistent copy for ``describe()`` and metrics exporters."""
        with self._lock:
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"}


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------


def normalize_base_url(url: str) -> str:
    """Accept ``http://h:8000`` or ``http://h:8000/v1``; paths below add ``/v1``."""
    return url.rstrip("/").removesuffix("/v1")


def retry_after_s(response: httpx.Response, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or HTTP date), if any."""
    value = response.headers.get("retry-after", "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def backoff_delay(attempt: int, base_s: float, cap_s: float, hint_s: float | None) -> float:
    """Server hint when given, else exponential backoff with full jitter."""
    if hint_s is not None:
        return min(hint_s, cap_s)
    return random.uniform(0.0, min(cap_s, base_s * (2**attempt)))


def message_content(body: Any) -> str:
    """``choices[0].message.content`` of a chat completion, or ``EngineFailure``."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise EngineFailure("chat completion without choices[0].message.content") from exc
    if not isinstance(content, str):
        raise EngineFailure("chat completion content is not a string")
    return content


class ChatClient:
    """Posts chat completions with retries; maps transport faults to engine errors."""

    def __init__(
        self,
        client: httpx.Client,
        stats: LLMStats,
        *,
        max_retries: int,
        backoff_s: float,
        max_backoff_s: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self._stats = stats
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._sleep = sleep

    def complete(self, payload: dict[str, Any]) -> str:
        """The assistant text for ``payload``, retrying overload and outages."""
        response = self._post_with_retries(payload)
        try:
            body = response.json()
        except ValueError as exc:
            raise EngineFailure("chat completion body is not JSON") from exc
        self._stats.add("calls")
        return message_content(body)

    def _post_with_retries(self, payload: dict[str, Any]) -> httpx.Response:
        for attempt in range(self._max_retries + 1):
            response, problem = self._post_once(payload)
            if problem is None:
                return response
            if attempt == self._max_retries:
                break
            self._stats.add("retries")
            hint = retry_after_s(response) if response is not None else None
            self._sleep(backoff_delay(attempt, self._backoff_s, self._max_backoff_s, hint))
        self._stats.add("unavailable")
        raise EngineUnavailable(f"LLM backend unavailable: {problem}") from problem

    def _post_once(self, payload: dict[str, Any]) -> tuple[Any, httpx.HTTPError | None]:
        """One attempt: the response, or the retryable problem it ran into.

        A timeout is final because the deadline belongs to the caller;
        client errors are final because repeating them cannot help.
        """
        try:
            response = self._client.post("/v1/chat/completions", json=payload)
        except httpx.TimeoutException as exc:
            self._stats.add("timeouts")
            raise EngineTimeout(f"LLM backend did not answer in time: {exc!r}") from exc
        except httpx.TransportError as exc:
            return None, exc
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            if _retryable(response):
                return response, exc
            raise EngineFailure(f"LLM backend rejected the request: {_excerpt(response)}") from exc
        return response, None


def _retryable(response: httpx.Response) -> bool:
    """Overload (429) and server faults (5xx) pass; other statuses will not."""
    return response.status_code == 429 or response.status_code >= 500


def _excerpt(response: httpx.Response) -> str:
    return f"HTTP {response.status_code} {response.text[:300]}"


class _Abandoned(Exception):
    """A sibling batch failed, so this one stopped before its next call."""


@dataclass
class _Job:
    """One translate() call shared by its batches, so a failure stops the rest.

    Batches check ``abort`` before every call: once one fails, the others
    finish at most the call they have in flight, which keeps backend load
    bounded and leaves no work running after ``translate()`` returns.
    """

    request: TranslationRequest
    abort: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.abort.is_set():
            raise _Abandoned

    def abandon(self, futures: list[Future[None]]) -> BaseException:
        """Stop all batches and return the first real error, in batch order."""
        self.abort.set()
        for future in futures:
            future.cancel()
        wait(futures)
        errors = [f.exception() for f in futures if not f.cancelled()]
        real = [e for e in errors if e is not None and not isinstance(e, _Abandoned)]
        return real[0] if real else EngineUnavailable("llm engine shut down during the request")


# --------------------------------------------------------------------------
# Engine
# --------------------------------------------------------------------------


#: Accepted ``structured_output`` values; None sends no ``response_format``.
STRUCTURED_OUTPUTS = (None, "json_schema", "json_object")


class LLMEngine(TranslatorEngine):
    """Translator backed by an OpenAI-compatible server (vLLM, Ray Serve LLM).

    Options:
        base_url: server root, with or without ``/v1`` (default ``http://127.0.0.1:8000``).
        model: served model id; default: the first one ``/v1/models`` lists.
        api_key: sent as a bearer token; default ``MEDIATRANS_LLM_KEY``, the service key
            the profiles' ``/llm/v1`` requires (docs/llm.md).
        timeout_s: per-call deadline (default 60).
        max_retries: extra attempts on 429/5xx/connection errors (default 3).
        backoff_s: first backoff step; doubles per attempt, with jitter (default 0.5).
        max_backoff_s: cap on any single wait, ``Retry-After`` included (default 30).
        batch_size: segments per call (default 16).
        concurrency: batches in flight per request (default 4).
        max_inflight: calls in flight across all requests of this engine (default 16).
        max_tokens: completion budget per call (default 2048).
        temperature: sampling temperature (default 0, for repeatable output).
        languages: API codes served; variants (``pt-BR``) are targets only.
        structured_output: ``"json_schema"`` / ``"json_object"`` to ask the server
            for guided decoding; default off because not every server supports it.
        max_split_depth: how many times a failing batch may be halved (default 1).
        single_max_tokens: completion budget of a one-segment plain answer (default 256).
        startup_wait_s: how long ``start()`` waits for a server that is still loading (default 0).
        output_checks: judge every answer (language, tokens, echo, length; default on).
    """

    name = "llm"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.base_url = normalize_base_url(str(options.get("base_url", "http://127.0.0.1:8000")))
        self.model: str | None = options.get("model")
        self.timeout_s = float(options.get("timeout_s", 60.0))
        self.batch_size = max(1, int(options.get("batch_size", 16)))
        self.concurrency = max(1, int(options.get("concurrency", 4)))
        self.max_inflight = max(self.concurrency, int(options.get("max_inflight", 16)))
        self.max_tokens = int(options.get("max_tokens", 2048))
        self.temperature = float(options.get("temperature", 0.0))
        self.structured_output: str | None = options.get("structured_output")
        if self.structured_output not in STRUCTURED_OUTPUTS:
            raise ValueError(f"structured_output must be one of {STRUCTURED_OUTPUTS}, not {self.structured_output!r}")
        self.max_split_depth = max(0, int(options.get("max_split_depth", 1)))
        self.single_max_tokens = int(options.get("single_max_tokens", 256))
        self.output_checks = bool(options.get("output_checks", True))
        self.languages = tuple(options.get("languages") or DEFAULT_LANGUAGES)
        self._pairs = language_pairs(self.languages)
        self._stats = LLMStats()
        self._http: httpx.Client | None = None
        self._chat: ChatClient | None = None
        self._pool: ThreadPoolExecutor | None = None

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> None:
        """Open a keep-alive client and check the server lists the model."""
        self._http = self._new_http_client()
        self._chat = ChatClient(
            self._http,
            self._stats,
            max_retries=max(0, int(self.options.get("max_retries", 3))),
            backoff_s=float(self.options.get("backoff_s", 0.5)),
            max_backoff_s=float(self.options.get("max_backoff_s", 30.0)),
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
        deadline = time.monotonic() + float(self.options.get("startup_wait_s", 0))
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
        headers = {"Accept": "application/json", **bearer_header(configured_key(self.options.get("api_key")))}
        limits = httpx.Limits(max_keepalive_connections=self.max_inflight, max_connections=self.max_inflight * 2)
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=self.timeout_s, limits=limits)

    def _list_models(self) -> list[str]:
        """Ids from ``/v1/models``; any failure means the backend is unusable."""
        assert self._http is not None
        try:
            response = self._http.get("/v1/models")
            response.raise_for_status()
            return [m["id"] for m in response.json()["data"]]
        except httpx.TimeoutException as exc:
            raise EngineTimeout(f"LLM backend at {self.base_url} did not answer /v1/models") from exc
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise EngineUnavailable(f"LLM backend at {self.base_url} is not usable: {exc!r}") from exc

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
        return frozenset(self.languages)

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "pairs": len(self._pairs),
            "model": self.model,
            "base_url": self.base_url,
            "batch_size": self.batch_size,
            "structured_output": self.structured_output,
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
        segments = [_Segment.of(t) for t in request.texts]
        cores = [s.core for s in segments if s.core]
        translated = iter(self._translate_cores(cores, request))
        texts = tuple(s.wrap(next(translated)) if s.core else s.wrap("") for s in segments)
        return TranslationResult(texts=texts, engine=self.name, route=(request.source_lang, request.target_lang))

    def _check_pair(self, source: str, target: str) -> None:
        if (source, target) not in self._pairs:
            raise UnsupportedLanguage(f"llm does not serve {source}->{target}", source=source, target=target)

    def _translate_cores(self, cores: list[str], request: TranslationRequest) -> list[str]:
        """Batches run concurrently; the first error aborts the whole request."""
        if not cores:
            return []
        self._stats.add("segments", len(cores))
        batches = chunks(cores, self.batch_size)
        self._stats.add("batches", len(batches))
        assert self._pool is not None
        job = _Job(request)
        work = list(zip(batches, context_windows(cores, len(batches), self.batch_size, request)))
        results: list[list[str]] = [[] for _ in work]
        order = itertools.count()  # batches start in order, at most ``concurrency`` of them at once

        def worker() -> None:
            for i in iter(order.__next__, None):
                if i >= len(work):
                    return
                job.check()
                results[i] = self._translate_batch(work[i][0], job, self.max_split_depth, work[i][1])

        futures = [self._pool.submit(worker) for _ in range(min(self.concurrency, len(work)))]
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
        payload = self._payload(summary_messages(body, language), 0)
        payload["max_tokens"] = 120
        return self._chat.complete(payload).strip()

    # -- one batch -----------------------------------------------------------

    def _translate_batch(self, texts: list[str], job: _Job, splits_left: int, window: Window) -> list[str]:
        """Ask, re-ask once, then halve; ``EngineFailure`` when nothing works."""
        try:
            drafts = self._ask_twice(texts, job, window)
        except OutputMismatch as exc:
            if len(texts) == 1 or splits_left == 0:
                self._stats.add("failures")
                raise EngineFailure(f"LLM output unusable for {len(texts)} segment(s): {exc}") from exc
            self._stats.add("splits")
            half = len(texts) // 2
            first = self._translate_batch(texts[:half], job, splits_left - 1, window)
            return first + self._translate_batch(texts[half:], job, splits_left - 1, window)
        if job.request.hints.mode == "professional":
            return self._review(texts, drafts, job)
        return drafts

    def _ask_twice(self, texts: list[str], job: _Job, window: Window) -> list[str]:
        """An answer that parses and passes every output check, in at most two calls."""
        messages = self._messages(texts, job, window)
        answer = self._complete(messages, texts, job)
        try:
            return self._checked(texts, answer, job)
        except OutputMismatch as exc:
            self._stats.add("reasks")
            messages += [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": corrective(str(exc), len(texts))},
            ]
        # Tokens the model still misplaces are repaired by the safety layer around every engine.
        return self._checked(texts, self._complete(messages, texts, job), job, tolerate=("markup",))

    def _messages(self, texts: list[str], job: _Job, window: Window) -> list[dict[str, str]]:
        request = job.request
        before, after = window
        if _plain(texts):
            return single_messages(texts[0], request.source_lang, request.target_lang, request.hints, before, after)
        return batch_messages(texts, request.source_lang, request.target_lang, request.hints, before, after)

    def _checked(self, texts: list[str], answer: str, job: _Job, tolerate: tuple[str, ...] = ()) -> list[str]:
        """Parsed translations, or ``OutputMismatch`` naming the first problem (counted per reason)."""
        found = _plain_answer(answer, texts[0]) if _plain(texts) else parse_translations(answer, len(texts))
        request = job.request
        if not self.output_checks:
            return found
        reasons = check_translations(texts, found, request.source_lang, request.target_lang)
        bad = [(i, r) for i, r in enumerate(reasons) if r is not None and r not in tolerate]
        for _, reason in bad:
            self._stats.add(f"rejected_{reason}")
        if bad:
            i, reason = bad[0]
            raise OutputMismatch(_PROBLEMS[reason].format(n=i + 1, lang=request.target_lang))
        return found

    def _review(self, texts: list[str], drafts: list[str], job: _Job) -> list[str]:
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

    def _complete(self, messages: list[dict[str, str]], texts: list[str], job: _Job, json_answer: bool = False) -> str:
        job.check()
        chat = self._chat
        if chat is None:
            raise EngineUnavailable("llm engine was shut down")
        payload = self._payload(messages, len(texts) if json_answer or not _plain_messages(messages) else 0)
        payload["max_tokens"] = min(payload["max_tokens"], answer_budget(texts))
        return chat.complete(payload)

    def _payload(self, messages: list[dict[str, str]], n: int) -> dict[str, Any]:
        """Chat completion body; ``n`` > 0 asks for the JSON shape, 0 for a one-line plain answer."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": False,
        }
        if n == 0:
            payload["stop"] = ["\n"]
            payload["max_tokens"] = min(self.max_tokens, self.single_max_tokens)
        elif self.structured_output == "json_schema":
            payload["response_format"] = response_schema(n)
        elif self.structured_output == "json_object":
            payload["response_format"] = {"type": "json_object"}
        return payload


#: Neighbouring lines (before, after) a batch sees as context.
Window = tuple[tuple[str, ...], tuple[str, ...]]

#: Lines of context on each side of a batch: standard, professional.
CONTEXT_LINES = {"standard": 2, "professional": 6}


def context_windows(cores: list[str], n_batches: int, size: int, request: TranslationRequest) -> list[Window]:
    """Each batch's neighbours: the lines just before and after it in the request, then the request's own context."""
    width = CONTEXT_LINES.get(request.hints.mode, 2)
    lines = [*request.context, *cores, *request.following]
    offset = len(request.context)
    windows: list[Window] = []
    for k in range(n_batches):
        start, end = offset + k * size, offset + min(len(cores), (k + 1) * size)
        windows.append((tuple(lines[max(0, start - width) : start]), tuple(lines[end : end + width])))
    return windows


#: Why an answer was refused, as told to the model in the re-ask.
_PROBLEMS = {
    "language": "translation {n} is not written in the target language ({lang})",
    "echo": "translation {n} repeats the source text instead of translating it",
    "markup": "translation {n} changed, added or dropped tokens like <x0/>",
    "length": "translation {n} is far longer or shorter than its source",
    "empty": "translation {n} is empty",
}


def answer_budget(texts: list[str]) -> int:
    """Completion tokens a sane answer needs at most: the JSON frame plus 1.5 tokens per source character.

    Even a script that takes a token per character (Chinese) stays under it;
    a model that runs away repeating itself is cut off early instead of
    decoding for minutes.
    """
    return 32 + 12 * len(texts) + int(1.5 * sum(len(t) for t in texts))


def _plain(texts: list[str]) -> bool:
    """One single-line segment is asked and answered as plain text."""
    return len(texts) == 1 and "\n" not in texts[0] and "\r" not in texts[0]


def _plain_messages(messages: list[dict[str, str]]) -> bool:
    return messages[0]["content"] == SYSTEM_SINGLE


def _plain_answer(answer: str, source: str) -> list[str]:
    """The translation in a plain answer: labels and quotes the source did not have are dropped.

    A JSON answer of the batch shape is accepted too (servers or models that
    answer JSON anyway).
    """
    try:
        return parse_translations(answer, 1)
    except OutputMismatch:
        pass
    text = answer.strip()
    text = re.sub(r"^(?:translation|traducción|traduction|übersetzung)\s*:\s*", "", text, flags=re.IGNORECASE)
    for left, right in ('""', "“”", "«»", "「」", "''"):
        if len(text) >= 2 and text[0] == left and text[-1] == right and not source.startswith(left):
            text = text[1:-1].strip()
    if not text:
        raise OutputMismatch("the answer is empty")
    return [text]
