"""The protocol every engine implements.

An engine is a plain Python object: constructed cheaply from its typed
options (``Options``, a model in ``engines/options.py``'s style),
``start()`` loads models (heavy imports go there), ``health()`` raises
``EngineUnavailable`` when it cannot serve, ``shutdown()`` releases resources.
Serve deployments wrap one engine each and add only Serve concerns. Engines
import nothing above them: no ``core``, ``pipelines``, ``serve_app`` or
deployment module (tests/unit/test_import_graph.py).
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from engines.options import EngineOptions, validate_options


class Engine(abc.ABC):
    """Base class of all engines.

    Construct with a validated options model, with keyword options, or both
    (keywords override the model's fields): ``LLMEngine(batch_size=4)``.
    """

    #: Registry name used in Serve configs (``engine: apertium``).
    name: ClassVar[str] = ""
    #: What the engine accepts under ``options:``; its defaults are the only defaults.
    Options: ClassVar[type[EngineOptions]] = EngineOptions

    def __init__(self, options: EngineOptions | None = None, /, **overrides: Any) -> None:
        if overrides:
            base = options.model_dump(exclude_unset=True) if options is not None else {}
            options = validate_options(self.name or type(self).__name__, self.Options, {**base, **overrides})
        self.options: Any = validate_options(self.name or type(self).__name__, self.Options, options)

    @abc.abstractmethod
    def start(self) -> None:
        """Load models and open connections. Called once, before any work."""

    def health(self) -> None:  # noqa: B027 - optional hook, healthy by default
        """Raise ``EngineUnavailable`` when the engine cannot serve."""

    def shutdown(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources. Safe to call more than once."""

    def describe(self) -> dict[str, Any]:
        """What produced a result: engine name and its effective options (engines add what they found at start)."""
        return {"engine": self.name, **self.options.public()}
