"""Token choice for one sequence: greedy or temperature sampling, optionally under a grammar.

OpenAI's ``frequency_penalty`` and ``presence_penalty`` lower the logit of a
token already generated in this sequence by ``frequency × count + presence``
(only the tokens generated so far are touched, so the common step stays cheap).

A grammar (GBNF, compiled from a JSON schema) is enforced the way llama.cpp's
own samplers do it cheaply: the unconstrained choice is tried first and the
grammar only checks that one token; the whole vocabulary is filtered only
when that token is rejected. With a 151k-token vocabulary this keeps the
common step in the microseconds instead of tens of milliseconds.
"""

from __future__ import annotations

import ctypes
import json
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp.llama_grammar import json_schema_to_gbnf

#: numpy view of ``llama_token_data`` (id, logit, p).
TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])

#: Any JSON object: what ``response_format: {"type": "json_object"}`` asks for.
JSON_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}


def grammar_for(response_format: dict[str, Any] | None) -> str | None:
    """GBNF for an OpenAI ``response_format``, or None when the output is free text.

    Raises:
        ValueError: an unknown format type or a schema the converter cannot handle.
    """
    if not response_format:
        return None
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        schema = response_format.get("schema") or JSON_OBJECT_SCHEMA
    elif kind == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise ValueError("response_format.json_schema.schema must be an object")
    else:
        raise ValueError(f"unsupported response_format type {kind!r}")
    try:
        return json_schema_to_gbnf(json.dumps(schema))
    except Exception as exc:  # the converter asserts on schemas it does not know
        raise ValueError(f"response_format schema is not supported: {exc}") from exc


class TokenChooser:
    """Chooses the next token of one sequence and owns its grammar sampler."""

    def __init__(
        self,
        vocab: Any,
        n_vocab: int,
        grammar: str | None,
        temperature: float,
        seed: int,
        top_p: float = 1.0,
        *,
        frequency_penalty: float = 0.0,
        presence_penalty: float = 0.0,
    ) -> None:
        self.n_vocab = n_vocab
        self.temperature = temperature
        self.top_p = top_p
        self.frequency_penalty = frequency_penalty
        self.presence_penalty = presence_penalty
        self._counts: dict[int, int] = {}
        self._rng = np.random.default_rng(seed)
        self._grammar = None
        if grammar is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
            if not self._grammar:
                raise ValueError("the grammar does not compile")
        self._one = np.zeros(1, dtype=TOKEN_DATA)
        self._all: np.ndarray | None = None

    def choose(self, logits: np.ndarray) -> int:
        """The next token for these logits; the grammar (if any) accepts it."""
        logits = self._penalized(logits)
        token = self._pick(logits)
        if self._grammar is not None:
            if not self._allowed(token, float(logits[token])):
                token = self._pick(self._constrain(logits))
            llama_cpp.llama_sampler_accept(self._grammar, token)
        self._counts[token] = self._counts.get(token, 0) + 1
        return token

    def _penalized(self, logits: np.ndarray) -> np.ndarray:
        """``logits`` lowered for the tokens generated so far (a copy; the model's buffer is left alone)."""
        if not self._counts or (self.frequency_penalty == 0 and self.presence_penalty == 0):
            return logits
        tokens = np.fromiter(self._counts, dtype=np.int64, count=len(self._counts))
        counts = np.fromiter(self._counts.values(), dtype=np.float32, count=len(self._counts))
        out = logits.copy()
        out[tokens] -= self.frequency_penalty * counts + self.presence_penalty
        return out

    def close(self) -> None:
        if self._grammar is not None:
            llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()

    def _pick(self, logits: np.ndarray) -> int:
        if self.temperature <= 0:
            return int(np.argmax(logits))
        scaled = logits.astype(np.float64) / self.temperature
        scaled -= scaled.max()
        probs = np.exp(scaled)
        probs /= probs.sum()
        if self.top_p < 1.0:  # nucleus: the smallest set of tokens holding top_p of the mass
            order = np.argsort(probs)[::-1]
            keep = order[: int(np.searchsorted(np.cumsum(probs[order]), self.top_p)) + 1]
            return int(self._rng.choice(keep, p=probs[keep] / probs[keep].sum()))
        return int(self._rng.choice(len(probs), p=probs))

    def _allowed(self, token: int, logit: float) -> bool:
        self._one[0] = (token, logit, 0.0)
        self._apply(self._one)
        return bool(np.isfinite(self._one[0]["logit"]))

    def _constrain(self, logits: np.ndarray) -> np.ndarray:
        """Logits with every token the grammar forbids at -inf."""
        if self._all is None:
            self._all = np.zeros(self.n_vocab, dtype=TOKEN_DATA)
            self._all["id"] = np.arange(self.n_vocab, dtype=np.int32)
        self._all["logit"] = logits
        self._all["p"] = 0.0
        self._apply(self._all)
        return self._all["logit"].copy()

    def _apply(self, data: np.ndarray) -> None:
        array = llama_cpp.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(llama_cpp.llama_token_data)),
            size=len(data),
            selected=-1,
            sorted=False,
        )
        llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
