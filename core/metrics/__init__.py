"""Service metrics through ``ray.util.metrics``: exported on every Ray node's Prometheus endpoint
next to Serve's own request, latency and queue metrics (docs/observability.md)."""

from core.metrics.bounded import BoundedLabel
from core.metrics.families import FAMILIES, LLM_FAMILIES, Family, exported_names
from core.metrics.record import (
    EngineObserver,
    account_request,
    engine_fallback,
    engine_latency,
    grammar_latency,
    http_request,
    llm_completion,
    llm_load,
    queue_state,
    quota_charged,
    quota_refused,
    stage_durations,
    task_finished,
    task_submitted,
    tasks_by_state,
    voice_training,
    webhook_delivery,
)

__all__ = [
    "FAMILIES",
    "LLM_FAMILIES",
    "BoundedLabel",
    "EngineObserver",
    "Family",
    "account_request",
    "engine_fallback",
    "engine_latency",
    "exported_names",
    "grammar_latency",
    "http_request",
    "llm_completion",
    "llm_load",
    "queue_state",
    "quota_charged",
    "quota_refused",
    "stage_durations",
    "task_finished",
    "task_submitted",
    "tasks_by_state",
    "voice_training",
    "webhook_delivery",
]
