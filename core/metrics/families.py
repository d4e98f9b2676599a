"""Every metric family the service exports: name, kind, labels and buckets, in one table.

Ray exports an application metric named ``x`` as ``ray_x`` on each node's
metrics endpoint; counters gain ``_total`` and histograms ``_bucket``,
``_sum`` and ``_count`` there. The dashboard (cluster/grafana/) and the
tests read the names from here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

PREFIX = "mediatrans_"
EXPORT_PREFIX = "ray_"

LATENCY_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
STAGE_S = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0)
LAG_S = (0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)


@dataclass(frozen=True)
class Family:
    name: str
    kind: str  # counter | gauge | histogram
    description: str
    tags: tuple[str, ...]
    buckets: tuple[float, ...] = ()

    def exported(self) -> tuple[str, ...]:
        """The series names Prometheus sees for this family."""
        base = EXPORT_PREFIX + self.name
        if self.kind == "counter":
            return (base + "_total",)
        if self.kind == "histogram":
            return (base + "_bucket", base + "_sum", base + "_count")
        return (base,)


def _family(name: str, kind: str, description: str, tags: tuple[str, ...], buckets: tuple[float, ...] = ()) -> Family:
    return Family(PREFIX + name, kind, description, tags, buckets)


HTTP_REQUESTS = _family(
    "http_requests",
    "counter",
    "Requests answered by the ingress, by endpoint group, status and contract code.",
    ("group", "method", "status", "code"),
)
HTTP_LATENCY = _family("http_request_seconds", "histogram", "Ingress latency by endpoint group.", ("group",), LATENCY_S)
ACCOUNT_REQUESTS = _family(
    "account_requests",
    "counter",
    "Authenticated requests per account (bounded: later accounts read _other).",
    ("account", "group"),
)
QUOTA_CHARGED = _family(
    "quota_charged", "counter", "Quota units charged per account and metric (bounded).", ("account", "metric")
)
QUOTA_REFUSED = _family("quota_refused", "counter", "Requests refused with QUOTA_EXCEEDED per metric.", ("metric",))
TASKS_SUBMITTED = _family("tasks_submitted", "counter", "Tasks accepted, by kind.", ("kind",))
TASKS_FINISHED = _family("tasks_finished", "counter", "Tasks that reached a final state, by kind and state.", ("kind", "state"))
TASKS = _family("tasks", "gauge", "Unfinished tasks by state (queued, processing), sampled from Redis.", ("state",))
QUEUE_DEPTH = _family("queue_depth", "gauge", "Jobs in the job stream not yet claimed by a worker.", ())
QUEUE_IN_FLIGHT = _family("queue_in_flight", "gauge", "Jobs claimed by a worker and not yet acknowledged.", ())
QUEUE_OLDEST_AGE = _family("queue_oldest_age_seconds", "gauge", "Age of the oldest job not yet claimed (0 when none).", ())
STAGE_SECONDS = _family("video_stage_seconds", "histogram", "Seconds per stage of completed video tasks.", ("stage",), STAGE_S)
ENGINE_LATENCY = _family(
    "engine_latency_seconds",
    "histogram",
    "Engine call latency by capability, engine and language pair (bounded).",
    ("capability", "engine", "pair"),
    LATENCY_S,
)
ENGINE_FALLBACKS = _family(
    "engine_fallbacks",
    "counter",
    "Engine calls that failed or were rejected and handed to the next engine.",
    ("capability", "engine", "pair", "reason"),
)
WEBHOOK_DELIVERIES = _family("webhook_deliveries", "counter", "Webhook delivery attempts by outcome.", ("outcome",))
WEBHOOK_LAG = _family(
    "webhook_delivery_lag_seconds", "histogram", "Seconds from the task's end to the callback's acceptance.", (), LAG_S
)
VOICE_TRAININGS = _family("voice_trainings", "counter", "Voice clone trainings finished, by outcome.", ("outcome",))
GRAMMAR_LATENCY = _family("grammar_check_seconds", "histogram", "Grammar check latency by language.", ("language",), LATENCY_S)

# The embedded LLM server (the ``llm`` application of the CPU profile); the GPU profile's vLLM exports its own.
LLM_TOKENS = _family(
    "llm_tokens", "counter", "Tokens of finished completions: prompt, cached (prompt reused) and completion.", ("kind",)
)
LLM_REQUESTS = _family("llm_requests", "counter", "Completions finished, by finish reason (stop, length).", ("finish",))
LLM_REQUEST_SECONDS = _family("llm_request_seconds", "histogram", "Seconds from queueing to the last token.", (), LATENCY_S)
LLM_SLOTS_BUSY = _family("llm_slots_busy", "gauge", "Slots decoding a request, sampled every few seconds.", ())
LLM_WAITING = _family("llm_waiting", "gauge", "Requests queued for a free slot, sampled every few seconds.", ())
LLM_BUSY_SECONDS = _family("llm_busy_seconds", "counter", "Seconds the scheduler spent in decode steps.", ())

#: Exported only where the embedded LLM server runs.
LLM_FAMILIES: tuple[Family, ...] = (LLM_TOKENS, LLM_REQUESTS, LLM_REQUEST_SECONDS, LLM_SLOTS_BUSY, LLM_WAITING, LLM_BUSY_SECONDS)

FAMILIES: tuple[Family, ...] = (
    HTTP_REQUESTS, HTTP_LATENCY, ACCOUNT_REQUESTS, QUOTA_CHARGED, QUOTA_REFUSED, TASKS_SUBMITTED, TASKS_FINISHED,
    TASKS, QUEUE_DEPTH, QUEUE_IN_FLIGHT, QUEUE_OLDEST_AGE, STAGE_SECONDS, ENGINE_LATENCY, ENGINE_FALLBACKS,
    WEBHOOK_DELIVERIES, WEBHOOK_LAG, VOICE_TRAININGS, GRAMMAR_LATENCY,
)  # fmt: skip


def exported_names(families: tuple[Family, ...] = FAMILIES) -> frozenset[str]:
    return frozenset(name for family in families for name in family.exported())


_made: dict[str, Any] = {}
_lock = threading.Lock()


def instrument(family: Family) -> Any:
    """This process's ``ray.util.metrics`` object for ``family`` (made once, on first use)."""
    metric = _made.get(family.name)
    if metric is not None:
        return metric
    with _lock:
        if family.name not in _made:
            _made[family.name] = _build(family)
        return _made[family.name]


def _build(family: Family) -> Any:
    from ray.util import metrics

    if family.kind == "counter":
        return metrics.Counter(family.name, description=family.description, tag_keys=family.tags)
    if family.kind == "gauge":
        return metrics.Gauge(family.name, description=family.description, tag_keys=family.tags)
    return metrics.Histogram(family.name, description=family.description, boundaries=list(family.buckets), tag_keys=family.tags)
