"""Signed task callbacks: payloads and signatures, and the retrying sender."""

from core.webhooks.payloads import (
    backoff_delay,
    completion_payload,
    failure_payload,
    payload_for,
    sign,
    standard_headers,
    standard_signature,
)
from core.webhooks.sender import DELIVERED, GAVE_UP, PENDING, Outcome, WebhookSender

__all__ = [
    "DELIVERED",
    "GAVE_UP",
    "PENDING",
    "Outcome",
    "WebhookSender",
    "backoff_delay",
    "completion_payload",
    "failure_payload",
    "payload_for",
    "sign",
    "standard_headers",
    "standard_signature",
]
