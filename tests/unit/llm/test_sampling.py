"""``sampling.py`` without a model: response formats to GBNF, and token choice.

``TokenChooser`` needs a llama.cpp vocabulary only to compile a grammar, so
greedy, temperature and nucleus choice are checked on synthetic logits. One
test at the end loads the SmolLM2 vocabulary alone (no weights) to check
that a grammar really constrains the choice; it skips without that package.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from engines.llm.sampling import TokenChooser, grammar_for
from tests.support.llm_models import smollm2_gguf

N_VOCAB = 64

TWO_STRINGS = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}},
    "required": ["items"],
}


def logits_with(peaks: dict[int, float], floor: float = -30.0) -> np.ndarray:
    """Float32 logits: ``floor`` everywhere except the given token ids."""
    logits = np.full(N_VOCAB, floor, dtype=np.float32)
    for token, value in peaks.items():
        logits[token] = value
    return logits


def chooser(temperature: float, seed: int = 0, top_p: float = 1.0) -> TokenChooser:
    return TokenChooser(None, N_VOCAB, None, temperature, seed, top_p)


# -- grammar_for -----------------------------------------------------------------------


@pytest.mark.parametrize("response_format", [None, {}, {"type": "text"}])
def test_free_text_formats_need_no_grammar(response_format: dict | None) -> None:
    assert grammar_for(response_format) is None


def test_json_schema_becomes_a_gbnf_grammar_with_a_root_rule() -> None:
    grammar = grammar_for({"type": "json_schema", "json_schema": {"name": "pair", "schema": TWO_STRINGS}})
    assert isinstance(grammar, str)
    assert "root ::=" in grammar
    assert '\\"items\\"' in grammar  # the required key is spelled out in the grammar


def test_json_object_becomes_a_grammar_for_any_object() -> None:
    grammar = grammar_for({"type": "json_object"})
    assert isinstance(grammar, str) and "root ::=" in grammar
    assert grammar != grammar_for({"type": "json_schema", "json_schema": {"schema": TWO_STRINGS}})


@pytest.mark.parametrize("kind", ["xml", "regex", None])
def test_unknown_format_type_is_a_value_error(kind: str | None) -> None:
    with pytest.raises(ValueError, match="unsupported response_format"):
        grammar_for({"type": kind})


@pytest.mark.parametrize(
    "response_format",
    [
        {"type": "json_schema"},
        {"type": "json_schema", "json_schema": {"name": "no-schema"}},
        {"type": "json_schema", "json_schema": {"schema": "not an object"}},
        {"type": "json_schema", "json_schema": "not an object"},
    ],
)
def test_json_schema_without_a_schema_object_is_a_value_error(response_format: dict) -> None:
    with pytest.raises(ValueError, match="schema must be an object"):
        grammar_for(response_format)


# -- TokenChooser without a grammar -------------------------------------------------------


def test_temperature_zero_returns_the_argmax() -> None:
    rng = np.random.default_rng(7)
    choose = chooser(0.0)
    for _ in range(20):
        logits = rng.normal(size=N_VOCAB).astype(np.float32)
        assert choose.choose(logits) == int(np.argmax(logits))


def test_sampling_with_a_fixed_seed_is_reproducible() -> None:
    logits = logits_with({3: 1.0, 9: 1.2, 40: 0.8})
    first = chooser(1.0, seed=123)
    second = chooser(1.0, seed=123)
    other = chooser(1.0, seed=124)
    a = [first.choose(logits) for _ in range(60)]
    b = [second.choose(logits) for _ in range(60)]
    c = [other.choose(logits) for _ in range(60)]
    assert a == b
    assert a != c  # 60 draws over three likely tokens: another seed differs


def test_sampling_returns_only_tokens_with_real_probability() -> None:
    likely = {3: 1.0, 9: 1.2, 40: 0.8}
    choose = chooser(0.8, seed=5)
    drawn = Counter(choose.choose(logits_with(likely)) for _ in range(400))
    assert set(drawn) <= set(likely)  # the rest sit e^-30 below
    assert len(drawn) == len(likely)  # it samples, it does not collapse to the argmax
    assert drawn.most_common(1)[0][0] == 9


def test_tiny_top_p_always_returns_the_argmax() -> None:
    logits = logits_with({3: 2.0, 9: 2.5, 40: 1.5}, floor=0.0)
    choose = chooser(1.5, seed=11, top_p=0.01)
    assert {choose.choose(logits) for _ in range(200)} == {9}


def test_top_p_keeps_the_nucleus_only() -> None:
    # At T=1 the two peaks hold ~97% of the mass (each ~49%) and the other 62
    # tokens ~3%, so top_p=0.9 keeps exactly tokens 1 and 2.
    logits = logits_with({1: 2.0, 2: 2.0}, floor=-5.0)
    choose = chooser(1.0, seed=3, top_p=0.9)
    assert {choose.choose(logits) for _ in range(200)} == {1, 2}


def test_frequency_penalty_lowers_each_use_of_a_token() -> None:
    logits = logits_with({3: 2.0, 9: 1.5, 40: 1.2})
    plain = chooser(0.0)
    assert [plain.choose(logits) for _ in range(3)] == [3, 3, 3]
    penalized = TokenChooser(None, N_VOCAB, None, 0.0, 0, frequency_penalty=0.4)
    # 3 after one use: 1.6 > 1.5; after two: 1.2 < 1.5, so 9 wins; then 9 (1.1) and 3 (1.2) trade places
    assert [penalized.choose(logits) for _ in range(4)] == [3, 3, 9, 3]
    assert logits[3] == 2.0  # the model's buffer is left alone


def test_presence_penalty_lowers_a_used_token_once() -> None:
    logits = logits_with({3: 2.0, 9: 1.5})
    penalized = TokenChooser(None, N_VOCAB, None, 0.0, 0, presence_penalty=1.0)
    assert [penalized.choose(logits) for _ in range(4)] == [3, 9, 3, 3]  # once used, both lose the same 1.0


def test_close_without_a_grammar_is_harmless() -> None:
    choose = chooser(0.0)
    choose.close()
    choose.close()
    assert choose.choose(logits_with({5: 1.0})) == 5


# -- TokenChooser with a grammar (SmolLM2's vocabulary, no weights) -----------------------


@pytest.fixture(scope="module")
def vocab_model():
    """SmolLM2 loaded with ``vocab_only``: tokenizer tables, no weights."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from llama_cpp._internals import LlamaModel

    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = LlamaModel(path_model=str(smollm2_gguf()), params=params, verbose=False)
    yield model
    model.close()


def test_a_grammar_overrides_the_unconstrained_choice(vocab_model) -> None:
    n_vocab = vocab_model.n_vocab()
    (yes,) = vocab_model.tokenize(b"yes", add_bos=False, special=False)
    (no,) = vocab_model.tokenize(b"no", add_bos=False, special=False)
    logits = np.zeros(n_vocab, dtype=np.float32)
    logits[no] = 10.0  # the model "wants" no
    logits[yes] = 1.0
    choose = TokenChooser(vocab_model.vocab, n_vocab, 'root ::= "yes"', 0.0, 0)
    try:
        assert choose.choose(logits) == yes
    finally:
        choose.close()
    free = TokenChooser(vocab_model.vocab, n_vocab, None, 0.0, 0)
    assert free.choose(logits) == no


def test_a_grammar_that_does_not_compile_is_a_value_error(vocab_model) -> None:
    with pytest.raises(ValueError, match="does not compile"):
        TokenChooser(vocab_model.vocab, vocab_model.n_vocab(), "root ::= (", 0.0, 0)
