"""One function per thing worth counting; each is cheap and never raises into the caller.

Open label sets go through :class:`BoundedLabel` (200 accounts, 400 language
pairs per process by default, ``MEDIATRANS_METRICS_MAX_ACCOUNTS`` /
``MEDIATRANS_METRICS_MAX_PAIRS``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from core.metrics import families as f
from core.metrics.bounded import BoundedLabel

log = logging.getLogger("mediatrans.metrics")

_accounts = BoundedLabel(int(os.environ.get("MEDIATRANS_METRICS_MAX_ACCOUNTS", "200")))
_pairs = BoundedLabel(int(os.environ.get("MEDIATRANS_METRICS_MAX_PAIRS", "400")))


def _emit(family: f.Family, value: float, tags: Mapping[str, str]) -> None:
    try:
        metric = f.instrument(family)
        clean = {key: str(tags[key]) for key in family.tags}
        if family.kind == "counter":
            metric.inc(value, tags=clean)
        elif family.kind == "gauge":
            metric.set(value, tags=clean)
        else:
            metric.observe(value, tags=clean)
    except Exception as exc:  # a metric is never worth a failed request
        log.debug("metric %s not recorded: %s", family.name, exc)


def pair(source: str, target: str) -> str:
    return _pairs(f"{source}-{target}")


def http_request(group: str, method: str, status: int, code: str, seconds: float) -> None:
    _emit(f.HTTP_REQUESTS, 1, {"group": group, "method": method, "status": str(status), "code": code or "none"})
    _emit(f.HTTP_LATENCY, seconds, {"group": group})


def account_request(account_id: str, group: str) -> None:
    _emit(f.ACCOUNT_REQUESTS, 1, {"account": _accounts(account_id), "group": group})


def quota_charged(account_id: str, metric: str, amount: int) -> None:
    if amount > 0:
        _emit(f.QUOTA_CHARGED, amount, {"account": _accounts(account_id), "metric": metric})


def quota_refused(metric: str) -> None:
    _emit(f.QUOTA_REFUSED, 1, {"metric": metric})


def task_submitted(kind: str) -> None:
    _emit(f.TASKS_SUBMITTED, 1, {"kind": kind})


def task_finished(kind: str, state: str) -> None:
    _emit(f.TASKS_FINISHED, 1, {"kind": kind, "state": state})


def tasks_by_state(counts: Mapping[str, int]) -> None:
    for state, count in counts.items():
        _emit(f.TASKS, count, {"state": state})


def queue_state(depth: int, in_flight: int, oldest_age_s: float) -> None:
    _emit(f.QUEUE_DEPTH, depth, {})
    _emit(f.QUEUE_IN_FLIGHT, in_flight, {})
    _emit(f.QUEUE_OLDEST_AGE, oldest_age_s, {})


def stage_durations(timings: Mapping[str, float]) -> None:
    for stage, seconds in timings.items():
        _emit(f.STAGE_SECONDS, seconds, {"stage": stage})


def engine_latency(capability: str, engine: str, source: str, target: str, seconds: float) -> None:
    _emit(f.ENGINE_LATENCY, seconds, {"capability": capability, "engine": engine, "pair": pair(source, target)})


def engine_fallback(capability: str, engine: str, source: str, target: str, reason: str) -> None:
    _emit(f.ENGINE_FALLBACKS, 1, {"capability": capability, "engine": engine, "pair": pair(source, target), "reason": reason})


def webhook_delivery(outcome: str, lag_s: float | None = None) -> None:
    _emit(f.WEBHOOK_DELIVERIES, 1, {"outcome": outcome})
    if lag_s is not None:
        _emit(f.WEBHOOK_LAG, max(0.0, lag_s), {})


def voice_training(outcome: str) -> None:
    _emit(f.VOICE_TRAININGS, 1, {"outcome": outcome})


def grammar_latency(language: str, seconds: float) -> None:
    _emit(f.GRAMMAR_LATENCY, seconds, {"language": language})


class EngineObserver:
    """An engine layer's timings and hand-overs, recorded as one capability's metrics.

    Engines never import ``core``: the deployment hands them this object
    (``SafeTranslator(..., observer=EngineObserver("translation"))``).
    """

    def __init__(self, capability: str) -> None:
        self.capability = capability

    def engine_latency(self, engine: str, source: str, target: str, seconds: float) -> None:
        engine_latency(self.capability, engine, source, target, seconds)

    def engine_fallback(self, engine: str, source: str, target: str, reason: str) -> None:
        engine_fallback(self.capability, engine, source, target, reason)


def llm_completion(prompt_tokens: int, cached_tokens: int, completion_tokens: int, finish: str, seconds: float) -> None:
    """One finished completion of the embedded LLM server."""
    _emit(f.LLM_TOKENS, prompt_tokens, {"kind": "prompt"})
    if cached_tokens:
        _emit(f.LLM_TOKENS, cached_tokens, {"kind": "cached"})
    _emit(f.LLM_TOKENS, completion_tokens, {"kind": "completion"})
    _emit(f.LLM_REQUESTS, 1, {"finish": finish})
    _emit(f.LLM_REQUEST_SECONDS, seconds, {})


def llm_load(running: int, waiting: int, busy_seconds: float) -> None:
    """The embedded LLM server's slots in use and queue now, and the decode time since the last sample."""
    _emit(f.LLM_SLOTS_BUSY, running, {})
    _emit(f.LLM_WAITING, waiting, {})
    if busy_seconds > 0:
        _emit(f.LLM_BUSY_SECONDS, busy_seconds, {})
