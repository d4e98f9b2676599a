"""Python client of the media-translation API: video translation, voice cloning, TTS, grammar, game localization."""

from mediatrans_client._rate_limit import RateLimit
from mediatrans_client._requests import __version__
from mediatrans_client.async_client import AsyncClient
from mediatrans_client.client import Client
from mediatrans_client.errors import (
    AuthenticationError,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    LinkExpiredError,
    MediatransError,
    NotFoundError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitedError,
    ServerError,
    ServiceBusyError,
    TaskFailedError,
    WaitTimeoutError,
)
from mediatrans_client.models import (
    AccountInfo,
    GrammarIssue,
    GrammarResult,
    Language,
    LanguageList,
    LocalizationResult,
    NativeVoice,
    NativeVoiceList,
    Task,
    TaskResult,
    Voice,
    VoiceList,
)
from mediatrans_client.webhooks import verify_signature

__all__ = [
    "AccountInfo",
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "ConflictError",
    "ConnectionFailedError",
    "GrammarIssue",
    "GrammarResult",
    "InvalidRequestError",
    "Language",
    "LanguageList",
    "LinkExpiredError",
    "LocalizationResult",
    "MediatransError",
    "NativeVoice",
    "NativeVoiceList",
    "NotFoundError",
    "PermissionDeniedError",
    "QuotaExceededError",
    "RateLimit",
    "RateLimitedError",
    "ServerError",
    "ServiceBusyError",
    "Task",
    "TaskFailedError",
    "TaskResult",
    "Voice",
    "VoiceList",
    "WaitTimeoutError",
    "__version__",
    "verify_signature",
]
