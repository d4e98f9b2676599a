"""The cloners' typed options: defaults are the fit budget's and the sample contract's, the inner engine gets its share."""

from __future__ import annotations

import pytest

from engines.options import OptionsError
from engines.tts.kokoro import KokoroOptions
from engines.tts.xtts import XttsOptions
from engines.voice.fitting import FitBudget
from engines.voice.kokoro_cloner import KokoroCloner, KokoroFitOptions
from engines.voice.sample import SampleLimits
from engines.voice.xtts_cloner import XttsCloner


def test_kokoro_fit_defaults_are_the_fit_budget_and_sample_contract() -> None:
    cloner = KokoroCloner()
    assert cloner.standard == FitBudget.standard()
    assert cloner.enhanced == FitBudget.enhanced()
    assert cloner.limits == SampleLimits()
    assert (cloner.options.fit_encoder, cloner.options.judge_encoder) == ("voicefilter", "resemblyzer")


def test_kokoro_fit_budget_options_change_only_the_evaluations() -> None:
    cloner = KokoroCloner(evaluations=4, enhanced_evaluations=6, min_snr_db=15)
    assert cloner.standard == FitBudget(evaluations=4)
    assert (cloner.enhanced.evaluations, cloner.enhanced.probes) == (6, FitBudget.enhanced().probes)
    assert cloner.limits.min_snr_db == 15.0


def test_kokoro_fit_passes_model_dir_and_threads_to_its_kokoro() -> None:
    cloner = KokoroCloner(KokoroFitOptions(model_dir="/models/kokoro", threads=3))
    assert cloner.kokoro.options == KokoroOptions(model_dir="/models/kokoro", threads=3)
    described = cloner.describe()
    assert described["engine"] == "kokoro-fit" and described["fit_encoder"] == "voicefilter"
    assert described["judge_encoder"] == "resemblyzer" and described["model_dir"] == "/models/kokoro"


def test_a_judge_that_is_the_fit_encoder_is_refused() -> None:
    with pytest.raises(OptionsError, match="must differ"):
        KokoroCloner(fit_encoder="resemblyzer")


def test_an_unknown_encoder_is_refused() -> None:
    with pytest.raises(OptionsError, match="judge_encoder"):
        XttsCloner(judge_encoder="ecapa")


def test_xtts_clone_passes_weights_and_device_to_its_xtts() -> None:
    cloner = XttsCloner(device="cuda:1")
    assert cloner.xtts.options == XttsOptions(model_dir="/models/xtts-v2", device="cuda:1")
    assert cloner.limits == SampleLimits()
