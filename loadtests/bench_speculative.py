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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.translation.base import TranslationHints  # noqa: E402
from engines.translation.llm.prompts import plain_messages  # noqa: E402
from loadtests.llama_direct import DirectLlama  # noqa: E402
from loadtests.llm_process import MODEL  # noqa: E402

LANGUAGES = ("de", "fr", "es", "ru", "zh", "ja")
MAX_TOKENS = 64


class Decoder(DirectLlama):
    """One sequence of a model: decode tokens at positions, read the greedy choices."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, n_ctx=2048, n_batch=512)

    def reset(self) -> None:
        self.forget(0)

    def cut(self, keep: int) -> None:
        """Forget every cell from position ``keep`` on."""
        self.forget(0, keep)

    def next_tokens(self, tokens: list[int], start: int, every: bool = False) -> list[int]:
        """Decode ``tokens`` at positions ``start``…; the greedy next token after each (``every``) or after the last."""
        wanted = range(start, start + len(tokens)) if every else [start + len(tokens) - 1]
        rows = self.decode([(0, start + i, t) for i, t in enumerate(tokens)], {(0, pos) for pos in wanted})
        return [self.argmax(rows[(0, pos)]) for pos in wanted]


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
    out = target.next_tokens(prompt, 0)
    read = time.perf_counter() - started
    while not target.is_end(out[-1]) and len(out) < MAX_TOKENS:
        out += target.next_tokens([out[-1]], len(prompt) + len(out) - 1)
    return Run(_until_end(target, out), time.perf_counter() - started, read)


def speculative(target: Decoder, draft: Decoder, prompt: list[int], k: int) -> Run:
    """Draft ``k`` tokens, verify them in one batch, keep the matching prefix and the target's own next token."""
    target.reset()
    draft.reset()
    started = time.perf_counter()
    out = target.next_tokens(prompt, 0)
    draft.next_tokens(prompt, 0)
    run = Run([], 0.0, time.perf_counter() - started)
    pos = len(prompt)  # where out[-1] (chosen, not yet in either cache) goes
    while not target.is_end(out[-1]) and len(out) < MAX_TOKENS:
        proposal: list[int] = []
        last = out[-1]
        for i in range(k):
            (nxt,) = draft.next_tokens([last], pos + i)
            proposal.append(nxt)
            last = nxt
        checks = target.next_tokens([out[-1], *proposal], pos, every=True)
        kept = 0
        while kept < k and proposal[kept] == checks[kept] and not target.is_end(proposal[kept]):
            kept += 1
        run.proposed, run.accepted, run.verifications = run.proposed + k, run.accepted + kept, run.verifications + 1
        out += [*proposal[:kept], checks[kept]]
        target.cut(pos + kept + 1)
        if kept == k:  # the draft never read its own last proposal
            draft.next_tokens([proposal[-1]], pos + k)
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", required=True, type=Path, help="the draft GGUF (same tokenizer as the model)")
    parser.add_argument("--draft-tokens", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    options = parser.parse_args(argv)
    target, draft = Decoder(MODEL), Decoder(options.draft)
    texts = sentences(options.sentences)
    print(f"draft {options.draft.name}, {options.draft_tokens} draft tokens, {len(texts)} sentences per language")
    print("| target | acceptance | tokens per verification | greedy tok/s | speculative tok/s | ratio "
          "| after the prompt: greedy | speculative | ratio | same answer |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for lang in options.languages.split(","):
        base, spec = [], []
        for text in texts:
            prompt = target.prompt(plain_messages(text, "en", lang, TranslationHints()))
            base.append(greedy(target, prompt))
            spec.append(speculative(target, draft, prompt, options.draft_tokens))
        same = sum(b.tokens == s.tokens for b, s in zip(base, spec))
        for b, s in zip(base, spec):
            if b.tokens != s.tokens:
                first = next((i for i, (x, y) in enumerate(zip(b.tokens, s.tokens)) if x != y), min(len(b.tokens), len(s.tokens)))
                print(
                    f"  {lang}: answers part at token {first}: {target.detokenize(b.tokens)!r} / {target.detokenize(s.tokens)!r}"
                )
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


if __name__ == "__main__":
    main()
