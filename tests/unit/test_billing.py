"""Extra usage of video features (diarization, professional engine, dubbing) on top of video minutes."""

from __future__ import annotations

from core.accounts import QUOTA_METRICS
from core.specs.video import VideoOptions, feature_charges, processed_seconds


def test_features_are_charged_on_the_processed_range() -> None:
    plain = VideoOptions(target_lang="es")
    assert feature_charges(plain, 300.0) == []
    full = VideoOptions(
        target_lang="es", enable_diarization=True, engine="professional", enable_dubbing=True, start_time=10, end_time=100.5
    )
    assert processed_seconds(full, 300.0) == 90.5
    assert dict(feature_charges(full, 300.0)) == {"diarization_minutes": 2, "professional_minutes": 2, "dubbing_seconds": 91}
    pro_voice = VideoOptions(target_lang="es", enable_dubbing=True, dubbing_voice="professional-male", end_time=1000)
    assert dict(feature_charges(pro_voice, 61.2)) == {"dubbing_professional_seconds": 62}  # end_time past the end
    assert feature_charges(full, None) == []  # a URL: charged by the worker once probed
    for metric, _ in feature_charges(full, 300.0) + feature_charges(pro_voice, 61.2):
        assert metric in QUOTA_METRICS
