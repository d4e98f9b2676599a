"""What running a job came to: one explicit outcome, settled in one place (``JobRunner.settle``).

* :class:`Done`: the task completes with ``result``;
* :class:`Failed`: the task fails with ``error`` (the contract's code and a message);
* :class:`RetryLater`: a transient cause (an engine busy or down): the task goes
  back to ``queued`` and its job stays pending, so it is delivered again after
  ``reclaim_after_s`` (counting towards ``max_deliveries``);
* :class:`Skip`: nothing to run (the task is gone or already finished): the job is dropped.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Done:
    result: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Failed:
    error: dict[str, str]


@dataclasses.dataclass(frozen=True)
class RetryLater:
    reason: str


@dataclasses.dataclass(frozen=True)
class Skip:
    reason: str


Outcome = Done | Failed | RetryLater | Skip
