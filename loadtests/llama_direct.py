"""A GGUF model driven through llama.cpp's low-level API, for benchmarks that bypass the server.

``DirectLlama`` holds the model, one context and one batch, and knows the
model's chat template, so a benchmark can build the same prompts the server
reads and decode them its own way (``bench_llm_anchor.py``,
``bench_speculative.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


class DirectLlama:
    """One model, one context of ``n_ctx`` cells shared by ``n_seq`` sequences, one batch of ``n_batch`` tokens."""

    def __init__(self, path: Path, *, n_ctx: int, n_batch: int, n_seq: int = 1, threads: int = 2) -> None:
        import llama_cpp
        from llama_cpp import _logger
        from llama_cpp._internals import LlamaBatch, LlamaContext, LlamaModel
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        _logger.set_verbose(False)
        self.llama_cpp = llama_cpp
        params = llama_cpp.llama_model_default_params()
        params.n_gpu_layers = 0
        self.model = LlamaModel(path_model=str(path), params=params, verbose=False)
        ctx = llama_cpp.llama_context_default_params()
        ctx.n_ctx, ctx.n_batch, ctx.n_ubatch, ctx.n_seq_max, ctx.kv_unified = n_ctx, n_batch, n_batch, n_seq, True
        ctx.n_threads = ctx.n_threads_batch = threads
        self.context = LlamaContext(model=self.model, params=ctx, verbose=False)
        self.batch = LlamaBatch(n_tokens=n_batch, embd=0, n_seq_max=n_seq, verbose=False)
        self.n_vocab = self.model.n_vocab()
        model = self.model
        eos, bos = model.token_get_text(model.token_eos()), model.token_get_text(model.token_bos())
        self._formatter = Jinja2ChatFormatter(model.metadata()["tokenizer.chat_template"], eos_token=eos, bos_token=bos)

    def prompt(self, messages: list[dict[str, str]]) -> list[int]:
        """The tokens the server would read for ``messages`` (the model's own chat template)."""
        text = self._formatter(messages=messages).prompt
        return list(self.model.tokenize(text.encode(), add_bos=self.model.add_bos_token(), special=True))

    def forget(self, seq: int, keep: int = 0) -> None:
        """Drop sequence ``seq``'s cells from position ``keep`` on."""
        self.llama_cpp.llama_memory_seq_rm(self.context.memory, seq, keep, -1)

    def decode(self, entries: list[tuple[int, int, int]], want: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """Decode ``(seq, pos, token)`` entries; returns the batch row of each wanted ``(seq, pos)``'s logits."""
        batch = self.batch.batch
        batch.n_tokens = 0
        rows = {}
        for i, (seq, pos, token) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, pos, 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = (seq, pos) in want
            if batch.logits[i]:
                rows[(seq, pos)] = i
            batch.n_tokens += 1
        if self.llama_cpp.llama_decode(self.context.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        return rows

    def argmax(self, row: int) -> int:
        """The greedy choice at a batch row whose logits were asked for."""
        pointer = self.llama_cpp.llama_get_logits_ith(self.context.ctx, row)
        return int(np.argmax(np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))))

    def is_end(self, token: int) -> bool:
        return bool(self.llama_cpp.llama_vocab_is_eog(self.model.vocab, token))

    def detokenize(self, tokens: list[int]) -> str:
        return self.model.detokenize(tokens).decode("utf-8", errors="replace")

    def close(self) -> None:
        self.batch.close()
        self.context.close()
        self.model.close()

    def __enter__(self) -> DirectLlama:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
