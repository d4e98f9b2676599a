"""Benchmark: speculative decoding of the translation LLM with a small draft model, on one sequence.

The 1.5B model (the CPU profile's translator) and a draft of the same family
and tokenizer (Qwen2.5-Coder-0.5B Q4_K_M) run through llama.cpp's low-level
API. For each devset sentence and target language, the plain translation
prompt is decoded twice:

* greedy by the 1.5B alone, token by token (the baseline);
* draft-then-verify: the draft proposes ``--draft-tokens`` tokens greedily,
  the 1.5B reads them in one batch and keeps the longest prefix that matches
  its own greedy choice, plus its own next token; rejected cells are removed
  from both KV caches.

Greedy verification keeps what greedy decoding of the 1.5B alone would give;
the answers are compared and every difference is printed (a batch of tokens
can give logits a hair apart from one token at a time). Printed per
language: acceptance rate (accepted ÷ proposed draft tokens), tokens per
verification, tokens/s of each and the ratio speculative ÷ greedy.

    .venv/bin/python loadtests/bench_speculative.py --draft models/qwen2.5-coder-0.5b-instruct/...gguf
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deployments.engines.translation.base import TranslationHints  # noqa: E402
from deployments.engines.translation.llm_prompts import plain_messages  # noqa: E402
from loadtests.llm_process import MODEL  # noqa: E402

LANGUAGES = ("de", "fr", "es", "ru", "zh", "ja")
MAX_TOKENS = 64


class Decoder:
    """One model, one sequence, one KV cache: decode tokens at positions, read greedy choices."""

    def __init__(self, path: Path, n_ctx: int = 2048, threads: int = 2) -> None:
        import llama_cpp
        from llama_cpp import _logger
        from llama_cpp._internals import LlamaBatch, LlamaContext, LlamaModel

        _logger.set_verbose(False)
        self.llama_cpp = llama_cpp
        params = llama_cpp.llama_model_default_params()
        params.n_gpu_layers = 0
        self.model = LlamaModel(path_model=str(path), params=params, verbose=False)
        ctx = llama_cpp.llama_context_default_params()
        ctx.n_ctx, ctx.n_batch, ctx.n_ubatch, ctx.n_threads, ctx.n_threads_batch = n_ctx, 512, 512, threads, threads
        self.context = LlamaContext(model=self.model, params=ctx, verbose=False)
        self.batch = LlamaBatch(n_tokens=512, embd=0, n_seq_max=1, verbose=False)
        self.n_vocab = self.model.n_vocab()

    def reset(self) -> None:
        self.llama_cpp.llama_memory_seq_rm(self.context.memory, 0, 0, -1)

    def cut(self, keep: int) -> None:
        """Forget every cell from position ``keep`` on."""
        self.llama_cpp.llama_memory_seq_rm(self.context.memory, 0, keep, -1)

    def decode(self, tokens: list[int], start: int, all_logits: bool = False) -> list[int]:
        """Decode ``tokens`` at positions ``start``…; the greedy next token after each (or after the last)."""
        batch = self.batch.batch
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, start + i, 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = all_logits or i == len(tokens) - 1
        if self.llama_cpp.llama_decode(self.context.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        rows = range(len(tokens)) if all_logits else [len(tokens) - 1]
        return [self._argmax(row) for row in rows]

    def _argmax(self, row: int) -> int:
        pointer = self.llama_cpp.llama_get_logits_ith(self.context.ctx, row)
        return int(np.argmax(np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))))

    def is_end(self, token: int) -> bool:
        return bool(self.llama_cpp.llama_vocab_is_eog(self.model.vocab, token))

    def prompt(self, messages: list[dict[str, str]], formatter: Any) -> list[int]:
        text = formatter(messages=messages).prompt
        return list(self.model.tokenize(text.encode(), add_bos=False, special=True))


@dataclass
class Run:
    tokens: list[int]
    seconds: float
    prompt_s: float = 0.0  # reading the prompt (both models' for speculative) and choosing the first token
    proposed: int = 0
    accepted: int = 0
    verifications: int = 0


def greedy(target: Decoder, prompt: list[int]) -> Run:
    target.reset()
    started = time.perf_counter()
    out = target.decode(prompt, 0)
    read = time.perf_counter() - started
    while not target.is_end(out[-1]) and len(out) < MAX_TOKENS:
        out += target.decode([out[-1]], len(prompt) + len(out) - 1)
    return Run(_until_end(target, out), time.perf_counter() - started, read)


def speculative(target: Decoder, draft: Decoder, prompt: list[int], k: int) -> Run:
    """Draft ``k`` tokens, verify them in one batch, keep the matching prefix and the target's own next token."""
    target.reset()
    draft.reset()
    started = time.perf_counter()
    out = target.decode(prompt, 0)
    draft.decode(prompt, 0)
    run = Run([], 0.0, time.perf_counter() - started)
    pos = len(prompt)  # where out[-1] (chosen, not yet in either cache) goes
    while not target.is_end(out[-1]) and len(out) < MAX_TOKENS:
        proposal: list[int] = []
        last = out[-1]
        for i in range(k):
            (nxt,) = draft.decode([last], pos + i)
            proposal.append(nxt)
            last = nxt
        checks = target.decode([out[-1], *proposal], pos, all_logits=True)
        kept = 0
        while kept < k and proposal[kept] == checks[kept] and not target.is_end(proposal[kept]):
            kept += 1
        run.proposed, run.accepted, run.verifications = run.proposed + k, run.accepted + kept, run.verifications + 1
        out += [*proposal[:kept], checks[kept]]
        target.cut(pos + kept + 1)
        if kept == k:  # the draft never read its own last proposal
            draft.decode([proposal[-1]], pos + k)
        draft.cut(pos + kept + 1)
        pos += kept + 1
    run.tokens = _until_end(target, out[:MAX_TOKENS])
    run.seconds = time.perf_counter() - started
    return run


def _until_end(model: Decoder, tokens: list[int]) -> list[int]:
    for i, token in enumerate(tokens):
        if model.is_end(token):
            return tokens[:i]
    return tokens


def sentences(count: int) -> list[str]:
    rows = [line.rstrip("\n").split("\t") for line in (ROOT / "configs" / "devset" / "en.tsv").open(encoding="utf-8")]
    return [row[2] for row in rows if len(row) > 2][:count]


def main(argv: list[str] | None = None) -> None:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", required=True, type=Path, help="the draft GGUF (same tokenizer as the model)")
    parser.add_argument("--draft-tokens", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    options = parser.parse_args(argv)
    target, draft = Decoder(MODEL), Decoder(options.draft)
    model = target.model
    template = model.metadata()["tokenizer.chat_template"]
    formatter = Jinja2ChatFormatter(template, eos_token=model.token_get_text(model.token_eos()), bos_token="")
    texts = sentences(options.sentences)
    print(f"draft {options.draft.name}, {options.draft_tokens} draft tokens, {len(texts)} sentences per language")
    print("| target | acceptance | tokens per verification | greedy tok/s | speculative tok/s | ratio "
          "| after the prompt: greedy | speculative | ratio | same answer |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for lang in options.languages.split(","):
        base, spec = [], []
        for text in texts:
            prompt = target.prompt(plain_messages(text, "en", lang, TranslationHints()), formatter)
            base.append(greedy(target, prompt))
            spec.append(speculative(target, draft, prompt, options.draft_tokens))
        same = sum(b.tokens == s.tokens for b, s in zip(base, spec))
        for b, s in zip(base, spec):
            if b.tokens != s.tokens:
                first = next((i for i, (x, y) in enumerate(zip(b.tokens, s.tokens)) if x != y), min(len(b.tokens), len(s.tokens)))
                print(f"  {lang}: answers part at token {first}: {_text(model, b.tokens)!r} / {_text(model, s.tokens)!r}")
        rate_b = sum(len(b.tokens) for b in base) / sum(b.seconds for b in base)
        rate_s = sum(len(s.tokens) for s in spec) / sum(s.seconds for s in spec)
        acceptance = sum(s.accepted for s in spec) / max(1, sum(s.proposed for s in spec))
        per_check = statistics.mean((s.accepted + s.verifications) / max(1, s.verifications) for s in spec)
        gen_b = sum(len(b.tokens) - 1 for b in base) / sum(b.seconds - b.prompt_s for b in base)
        gen_s = sum(len(s.tokens) - 1 for s in spec) / sum(s.seconds - s.prompt_s for s in spec)
        ratios.append(rate_s / rate_b)
        row = f"| {lang} | {acceptance:.2f} | {per_check:.2f} | {rate_b:.1f} | {rate_s:.1f} | {rate_s / rate_b:.2f} |"
        print(f"{row} {gen_b:.1f} | {gen_s:.1f} | {gen_s / gen_b:.2f} | {same}/{len(texts)} |")
    print(f"median ratio speculative / greedy: {statistics.median(ratios):.2f}")


def _text(model: Any, tokens: list[int]) -> str:
    return model.detokenize(tokens).decode("utf-8", errors="replace")


if __name__ == "__main__":
    main()
