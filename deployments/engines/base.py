"""The protocol every engine implements.

An engine is a plain Python object: constructed cheaply from its options,
``start()`` loads models (heavy imports go there), ``health()`` raises
``EngineUnavailable`` when it cannot serve, ``shutdown()`` releases resources.
Serve deployments wrap one engine each and add only Serve concerns.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar


class Engine(abc.ABC):
    """Base class of all engines."""

    #: Registry name used in Serve configs (``engine: apertium``).
    name: ClassVar[str] = ""

    def __init__(self, **options: Any) -> None:
        self.options = options

    @abc.abstractmethod
    def start(self) -> None:
        """Load models and open connections. Called once, before any work."""

    def health(self) -> None:  # noqa: B027 - optional hook, healthy by default
        """Raise ``EngineUnavailable`` when the engine cannot serve."""

    def shutdown(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources. Safe to call more than once."""

    def describe(self) -> dict[str, Any]:
        """What produced a result: engine name and the options that matter."""
        return {"engine": self.name}
