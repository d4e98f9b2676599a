"""A GGUF chat model: its own chat template over the batched llama.cpp runner.

The template is the one stored in the GGUF (``tokenizer.chat_template``),
rendered with the same sandboxed Jinja environment llama-cpp-python uses,
so prompts match what the model was trained on.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from llama_cpp.llama_chat_format import Jinja2ChatFormatter

if TYPE_CHECKING:
    from llama_cpp.llama_types import ChatCompletionRequestMessage

from engines.llm.batched import BatchedLlama
from engines.llm.completion import Generated
from engines.llm.sampling import grammar_for

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatModelConfig:
    """What the OpenAI-compatible server runs.

    Attributes:
        model_path: the GGUF file.
        model_id: the id clients pass as ``model`` and ``/v1/models`` lists.
        slots: requests decoded together.
        n_ctx: KV cells shared by all slots.
        threads: llama.cpp threads for decoding.
        threads_batch: llama.cpp threads for reading prompts (default: ``threads``).
        n_batch: prompt tokens read per step.
        max_tokens: completion cap when a request names none.
    """

    model_path: str
    model_id: str = "translator-llm"
    slots: int = 4
    n_ctx: int = 8192
    threads: int = 2
    threads_batch: int | None = None
    n_batch: int = 256
    max_tokens: int = 1024


class ChatModel:
    """Formats chat messages with the model's template and completes them."""

    def __init__(self, config: ChatModelConfig, on_finish: Callable[[Generated], None] | None = None) -> None:
        """``on_finish`` sees every completion ``complete`` returns (metrics), off the decode thread; its errors
        are logged, never raised."""
        if not os.path.isfile(config.model_path):
            raise FileNotFoundError(f"model file {config.model_path} is missing; run `make setup`")
        self.config = config
        self.model_id = config.model_id
        self.runner = BatchedLlama(
            config.model_path,
            slots=config.slots,
            n_ctx=config.n_ctx,
            threads=config.threads,
            threads_batch=config.threads_batch,
            n_batch=config.n_batch,
        )
        self._on_finish = on_finish
        metadata = self.runner.model.metadata()
        template = metadata.get("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{config.model_path} has no chat template")
        model = self.runner.model
        self._formatter = Jinja2ChatFormatter(
            template,
            eos_token=model.token_get_text(model.token_eos()),
            bos_token=model.token_get_text(model.token_bos()),
        )

    def prompt_tokens(self, messages: list[dict[str, Any]]) -> list[int]:
        """The model's token sequence for a conversation, ready for the assistant turn."""
        # OpenAI-shaped message dicts: the formatter reads them as llama_cpp's message TypedDicts
        chat = cast("list[ChatCompletionRequestMessage]", messages)
        return self.runner.tokenize(self._formatter(messages=chat).prompt)

    def submit(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None,
        temperature: float,
        top_p: float,
        seed: int,
        stop: tuple[str, ...],
        response_format: dict[str, Any] | None,
        ignore_eos: bool = False,
        frequency_penalty: float = 0.0,
        presence_penalty: float = 0.0,
        max_token_run: int = 0,
    ) -> Future[Generated]:
        """Queue a completion. Raises ``ValueError`` for a bad format and ``ContextFull`` when too long."""
        grammar = grammar_for(response_format)
        return self.runner.submit(
            self.prompt_tokens(messages),
            max_tokens=max_tokens or self.config.max_tokens,
            grammar=grammar,
            temperature=temperature,
            top_p=top_p,
            seed=seed,
            stop=stop,
            ignore_eos=ignore_eos,
            frequency_penalty=frequency_penalty,
            presence_penalty=presence_penalty,
            max_token_run=max_token_run,
        )

    async def complete(self, messages: list[dict[str, Any]], **options: Any) -> Generated:
        """``submit`` awaited; cancelling the caller cancels the generation."""
        future = self.submit(messages, **options)
        try:
            result = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        if self._on_finish is not None:
            try:
                self._on_finish(result)
            except Exception:
                log.warning("on_finish failed", exc_info=True)
        return result

    def load(self) -> dict[str, int]:
        """Running and waiting requests."""
        return self.runner.load()

    def alive(self) -> bool:
        """False once the scheduler thread has stopped."""
        return self.runner.alive()

    def close(self) -> None:
        self.runner.close()
