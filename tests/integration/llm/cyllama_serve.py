"""Run cyllama's OpenAI-compatible server (its own CLI) with one slot fix.

cyllama 0.2.18's ``ServerSlot.reset()`` zeroes the token counter but leaves
the KV cache filled, so every request after a slot's first fails to decode
and comes back as an empty completion with HTTP 200. Clearing the cache on
reset makes the server answer more than once; everything else, argument
parsing included, is cyllama's ``python -m cyllama.llama.server``.
"""

from __future__ import annotations

import sys

from cyllama.llama.server import python as python_server
from cyllama.llama.server.__main__ import main

_original_reset = python_server.ServerSlot.reset


def _reset_with_cache_clear(self: python_server.ServerSlot) -> None:
    _original_reset(self)
    self.context.kv_cache_clear()


if __name__ == "__main__":
    python_server.ServerSlot.reset = _reset_with_cache_clear  # type: ignore[method-assign]
    sys.exit(main())
