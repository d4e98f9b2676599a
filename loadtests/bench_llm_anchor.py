"""Benchmark: the embedded LLM server against a bare llama.cpp decode loop on the same GGUF.

The anchor is what llama.cpp itself does on these cores: the same model,
threads, context, batch size and unified KV cache, driven by the low-level
API in a tight loop (decode a batch, argmax each sequence's logits, decode
the next batch) with nothing else around it. The server is the same model
behind ``python -m deployments.llm_server``, asked through
``/v1/chat/completions`` with the same prompts by 1, 2, 4 and 6 concurrent
clients. For each concurrency both sides report

* prompt tokens/s: every sequence reads a distinct prompt and makes one token;
* generated tokens/s: every sequence then makes ``--tokens`` more (greedy,
  ``ignore_eos`` on the server, so both sides make exactly as many),
  measured as the extra time over the prompt-only run;

and the ratio server ÷ bare (goal ≥ 0.9). Medians of ``--repeats`` runs.

    .venv/bin/python loadtests/bench_llm_anchor.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deployments.engines.llm.service_key import bearer_header, configured_key  # noqa: E402
from loadtests.llm_process import MODEL, local_llm_server  # noqa: E402

CONCURRENCY = (1, 2, 4, 6)
N_CTX, N_BATCH, THREADS, SLOTS = 12288, 256, 2, 6  # configs/local.yaml's llm application

#: Distinct requests: each opens with its own words, so no two share a cached prefix worth reusing.
SENTENCES = [
    "The old lighthouse keeper counted the ships that passed each night.",
    "Our team shipped the new inventory screen two days before the deadline.",
    "Rain fell on the market square while the merchants packed their stalls.",
    "A dragon sleeps under the mountain, guarding gold that no one remembers.",
    "Please restart the application after installing the latest update.",
    "She trained every morning for the tournament in the northern capital.",
    "Twelve travellers crossed the desert with only three camels and a map.",
    "The museum opens late on Fridays, when the jazz band plays in the hall.",
    "Collect seven crystals to unlock the hidden door in the frozen cave.",
    "Grandfather's recipe needs fresh basil, ripe tomatoes and patience.",
    "Satellites photograph the glacier every week to measure how fast it melts.",
    "Your subscription renews next month unless you cancel it in settings.",
]


def messages(i: int) -> list[dict[str, str]]:
    """Request ``i``: its own first words, a translation task of about 90 prompt tokens."""
    text = SENTENCES[i % len(SENTENCES)]
    return [
        {"role": "system", "content": f"{text} Translate this sentence into German, French and Spanish, then explain."},
        {"role": "user", "content": f"Sentence {i}: {text}"},
    ]


def median_of(repeats: int, run: Callable[[], float]) -> float:
    return statistics.median(run() for _ in range(repeats))


# -- the bare loop -------------------------------------------------------------


class BareLoop:
    """llama.cpp's low-level API in a tight loop: the ceiling the server is measured against."""

    def __init__(self) -> None:
        import llama_cpp
        from llama_cpp import _logger
        from llama_cpp._internals import LlamaBatch, LlamaContext, LlamaModel
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        _logger.set_verbose(False)
        self.llama_cpp = llama_cpp
        params = llama_cpp.llama_model_default_params()
        params.n_gpu_layers = 0
        self.model = LlamaModel(path_model=str(MODEL), params=params, verbose=False)
        ctx = llama_cpp.llama_context_default_params()
        ctx.n_ctx, ctx.n_batch, ctx.n_ubatch, ctx.n_seq_max, ctx.kv_unified = N_CTX, N_BATCH, N_BATCH, SLOTS, True
        ctx.n_threads = ctx.n_threads_batch = THREADS
        self.context = LlamaContext(model=self.model, params=ctx, verbose=False)
        self.batch = LlamaBatch(n_tokens=N_BATCH, embd=0, n_seq_max=SLOTS, verbose=False)
        self.n_vocab = self.model.n_vocab()
        model = self.model
        template = model.metadata()["tokenizer.chat_template"]
        eos, bos = model.token_get_text(model.token_eos()), model.token_get_text(model.token_bos())
        self.formatter = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)

    def prompt(self, i: int) -> list[int]:
        text = self.formatter(messages=messages(i)).prompt
        return list(self.model.tokenize(text.encode(), add_bos=self.model.add_bos_token(), special=True))

    def run(self, prompts: list[list[int]], new_tokens: int) -> float:
        """Seconds to read every prompt (chunks of ``N_BATCH``) and make 1 + ``new_tokens`` tokens per sequence."""
        import numpy as np

        llama_cpp, ctx = self.llama_cpp, self.context.ctx
        for seq in range(SLOTS):
            llama_cpp.llama_memory_seq_rm(self.context.memory, seq, 0, -1)
        started = time.perf_counter()
        pending = [(seq, pos, token) for seq, tokens in enumerate(prompts) for pos, token in enumerate(tokens)]
        last = {seq: len(tokens) - 1 for seq, tokens in enumerate(prompts)}
        rows: dict[int, int] = {}
        for start in range(0, len(pending), N_BATCH):
            rows = self._decode(pending[start : start + N_BATCH], last)
        positions = {seq: len(tokens) for seq, tokens in enumerate(prompts)}
        for _ in range(new_tokens):
            step = []
            for seq, row in rows.items():
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, row), shape=(self.n_vocab,))
                step.append((seq, positions[seq], int(np.argmax(logits))))
                positions[seq] += 1
            rows = self._decode(step, {seq: pos for seq, pos, _ in step})
        return time.perf_counter() - started

    def _decode(self, entries: list[tuple[int, int, int]], want: dict[int, int]) -> dict[int, int]:
        """Decode ``(seq, pos, token)`` entries; rows of the logits wanted (``want``: seq -> pos)."""
        batch = self.batch.batch
        batch.n_tokens = 0
        rows = {}
        for i, (seq, pos, token) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, pos, 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = want.get(seq) == pos
            if batch.logits[i]:
                rows[seq] = i
            batch.n_tokens += 1
        if self.llama_cpp.llama_decode(self.context.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        return rows

    def close(self) -> None:
        self.batch.close()
        self.context.close()
        self.model.close()


def bare_figures(repeats: int, new_tokens: int) -> dict[int, tuple[float, float]]:
    """Per concurrency: (prompt tokens/s, generated tokens/s) of the bare loop."""
    loop = BareLoop()
    figures = {}
    try:
        loop.run([loop.prompt(99)], 4)  # warm-up
        for n in CONCURRENCY:
            prompts = [loop.prompt(n * 10 + i) for i in range(n)]
            read = median_of(repeats, lambda p=prompts: loop.run(p, 0))
            full = median_of(repeats, lambda p=prompts: loop.run(p, new_tokens))
            figures[n] = (sum(map(len, prompts)) / read, n * new_tokens / (full - read))
    finally:
        loop.close()
    return figures


# -- the server ---------------------------------------------------------------


def server_figures(repeats: int, new_tokens: int) -> dict[int, tuple[float, float]]:
    """Per concurrency: (prompt tokens/s, generated tokens/s) through HTTP, same prompts."""
    figures = {}
    with local_llm_server(slots=SLOTS, extra=["--n-ctx", str(N_CTX)]) as url:
        headers = bearer_header(configured_key())
        with httpx.Client(base_url=url, headers=headers, timeout=600) as client:

            def one(i: int, budget: int) -> int:
                body = {"messages": messages(i), "temperature": 0, "max_tokens": budget, "ignore_eos": True}
                answer = client.post("/v1/chat/completions", json=body)
                answer.raise_for_status()
                return int(answer.json()["usage"]["prompt_tokens"])

            def wave(n: int, budget: int) -> tuple[float, int]:
                started = time.perf_counter()
                with ThreadPoolExecutor(n) as pool:
                    tokens = sum(pool.map(lambda i: one(n * 10 + i, budget), range(n)))
                return time.perf_counter() - started, tokens

            wave(1, 4)  # warm-up
            for n in CONCURRENCY:
                read_runs = [wave(n, 1) for _ in range(repeats)]
                read = statistics.median(t for t, _ in read_runs)
                full = median_of(repeats, lambda n=n: wave(n, new_tokens + 1)[0])
                figures[n] = (read_runs[0][1] / read, n * new_tokens / (full - read))
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=64, help="generated tokens per sequence")
    options = parser.parse_args(argv)
    bare = bare_figures(options.repeats, options.tokens)
    served = server_figures(options.repeats, options.tokens)
    print(f"\nQwen2.5-Coder-1.5B Q4_K_M, {THREADS} threads, n_ctx {N_CTX}, n_batch {N_BATCH}; medians of {options.repeats}")
    print("| sequences | bare prompt tok/s | server prompt tok/s | ratio | bare gen tok/s | server gen tok/s | ratio |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in CONCURRENCY:
        (bp, bg), (sp, sg) = bare[n], served[n]
        print(f"| {n} | {bp:.1f} | {sp:.1f} | {sp / bp:.2f} | {bg:.1f} | {sg:.1f} | {sg / bg:.2f} |")
    print("goal: server / bare >= 0.9 at every concurrency")


if __name__ == "__main__":
    main()
