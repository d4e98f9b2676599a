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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.llm.service_key import bearer_header, configured_key  # noqa: E402
from loadtests.llama_direct import DirectLlama  # noqa: E402
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
    """Request ``i``: its own first words (no prompt cache can serve it), about 95 prompt tokens."""
    text = SENTENCES[i % len(SENTENCES)]
    return [
        {"role": "system", "content": f"Task {i}. {text} Translate it into German, French and Spanish, then explain."},
        {"role": "user", "content": f"Sentence {i}: {text}"},
    ]


def rates(runs: list[tuple[float, float]], n: int, prompt_tokens: float, new_tokens: int) -> tuple[float, float]:
    """(prompt tokens/s, generated tokens/s) from (prompt-only seconds, full seconds) runs: medians."""
    read = statistics.median(r for r, _ in runs)
    generate = statistics.median(full - r for r, full in runs)
    return prompt_tokens / read, n * new_tokens / generate


_fresh = iter(range(1000, 10**9))


def fresh(n: int) -> list[int]:
    """``n`` request numbers never used before in this run."""
    return [next(_fresh) for _ in range(n)]


# -- the bare loop -------------------------------------------------------------


class BareLoop:
    """llama.cpp's low-level API in a tight loop: the ceiling the server is measured against."""

    def __init__(self) -> None:
        self.llama = DirectLlama(MODEL, n_ctx=N_CTX, n_batch=N_BATCH, n_seq=SLOTS, threads=THREADS)

    def prompt(self, i: int) -> list[int]:
        return self.llama.prompt(messages(i))

    def run(self, prompts: list[list[int]], new_tokens: int) -> float:
        """Seconds to read every prompt (chunks of ``N_BATCH``) and make 1 + ``new_tokens`` tokens per sequence."""
        llama = self.llama
        for seq in range(SLOTS):
            llama.forget(seq)
        started = time.perf_counter()
        pending = [(seq, pos, token) for seq, tokens in enumerate(prompts) for pos, token in enumerate(tokens)]
        ends = {(seq, len(tokens) - 1) for seq, tokens in enumerate(prompts)}
        following: dict[int, int] = {}  # each sequence's next token, taken from the chunk its prompt ends in
        for start in range(0, len(pending), N_BATCH):
            rows = llama.decode(pending[start : start + N_BATCH], ends)
            following.update({seq: llama.argmax(row) for (seq, _), row in rows.items()})
        positions = {seq: len(tokens) for seq, tokens in enumerate(prompts)}
        for _ in range(new_tokens):
            step = [(seq, positions[seq], token) for seq, token in following.items()]
            rows = llama.decode(step, {(seq, pos) for seq, pos, _ in step})
            following = {seq: llama.argmax(row) for (seq, _), row in rows.items()}
            positions = {seq: pos + 1 for seq, pos in positions.items()}
        assert len(following) == len(prompts), "a sequence stopped generating"
        return time.perf_counter() - started

    def close(self) -> None:
        self.llama.close()


def bare_figures(repeats: int, new_tokens: int) -> dict[int, tuple[float, float]]:
    """Per concurrency: (prompt tokens/s, generated tokens/s) of the bare loop."""
    loop = BareLoop()
    figures = {}
    try:
        loop.run([loop.prompt(99)], 4)  # warm-up
        for n in CONCURRENCY:
            runs, size = [], 0
            for _ in range(repeats):
                prompts = [loop.prompt(i) for i in fresh(n)]
                runs.append((loop.run(prompts, 0), loop.run(prompts, new_tokens)))  # the loop clears its cache
                size += sum(map(len, prompts))
            figures[n] = rates(runs, n, size / repeats, new_tokens)
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

            def one(i: int, budget: int) -> int:  # returns the prompt's token count
                body = {"messages": messages(i), "temperature": 0, "max_tokens": budget, "ignore_eos": True}
                answer = client.post("/v1/chat/completions", json=body)
                answer.raise_for_status()
                return int(answer.json()["usage"]["prompt_tokens"])

            def wave(numbers: list[int], budget: int) -> tuple[float, int]:
                started = time.perf_counter()
                with ThreadPoolExecutor(len(numbers)) as pool:
                    tokens = sum(pool.map(lambda i: one(i, budget), numbers))
                return time.perf_counter() - started, tokens

            wave(fresh(1), 4)  # warm-up
            for n in CONCURRENCY:
                runs, size = [], 0
                for _ in range(repeats):  # fresh requests each time: the server's prefix cache must not help
                    read, tokens = wave(fresh(n), 1)
                    runs.append((read, wave(fresh(n), new_tokens + 1)[0]))
                    size += tokens
                figures[n] = rates(runs, n, size / repeats, new_tokens)
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
