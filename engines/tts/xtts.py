"""XTTS-v2 through ``coqui-tts`` (GPU cluster profile): cloned voices from speaker conditioning.

A cloned voice's style is ``{"xtts": {"gpt_cond_latent": [...], "speaker_embedding": [...]}}``,
computed once from the sample by :class:`~engines.voice.xtts_cloner.XttsCloner`;
synthesis runs ``Xtts.inference`` with those latents. Weights come from the
GPU image (``model_dir`` holding ``config.json``, ``model.pth``, ``vocab.json``),
never from a hub at run time. Options: ``XttsOptions``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import Field

from engines.errors import EngineUnavailable, InvalidInput, UnsupportedLanguage
from engines.options import EngineOptions, ProjectPath
from engines.tts.base import NativeVoice, TtsEngine, VoiceStyle

SAMPLE_RATE = 24_000
LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "pl", "tr", "ru", "nl", "cs", "ar", "zh", "ja", "hu", "ko", "hi")


def load_xtts(model_dir: str, device: str) -> Any:
    """The XTTS model from a local folder; EngineUnavailable when coqui-tts or the weights are missing."""
    try:
        from TTS.tts.configs.xtts_config import XttsConfig
        from TTS.tts.models.xtts import Xtts
    except ImportError as exc:
        raise EngineUnavailable("coqui-tts is not installed (GPU image only)") from exc
    config = XttsConfig()
    config.load_json(f"{model_dir}/config.json")
    model = Xtts.init_from_config(config)
    model.load_checkpoint(config, checkpoint_dir=model_dir, use_deepspeed=False)
    return model.to(device)


class XttsOptions(EngineOptions):
    """Where the XTTS weights are and where the model runs."""

    model_dir: ProjectPath = Field(
        "/models/xtts-v2",
        min_length=1,
        description="Folder with config.json, model.pth and vocab.json; relative to the project root.",
    )
    device: str = Field("cuda", min_length=1, description="torch device the model runs on.")


class XttsEngine(TtsEngine):
    """Speaks cloned voices (XTTS latents); it has no native voices of its own."""

    name = "xtts"
    supports_styles = True
    Options = XttsOptions
    options: XttsOptions

    def __init__(self, options: XttsOptions | None = None, /, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.model: Any = None
        self._lock = threading.Lock()

    def start(self) -> None:
        self.model = load_xtts(self.options.model_dir, self.options.device)

    def health(self) -> None:
        if self.model is None:
            raise EngineUnavailable("XTTS is not started")

    def voices(self) -> Sequence[NativeVoice]:
        return ()

    def languages(self) -> Sequence[str]:
        return LANGUAGES

    def speak(self, text: str, voice: str | VoiceStyle, lang: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        import torch

        self.health()
        if lang not in LANGUAGES:
            raise UnsupportedLanguage(f"XTTS does not speak {lang!r}", target=lang)
        latents = voice.extra.get("xtts") if isinstance(voice, VoiceStyle) else None
        if not latents:
            raise InvalidInput("XTTS speaks cloned voices only")
        device = self.options.device
        gpt = torch.tensor(latents["gpt_cond_latent"], device=device)
        speaker = torch.tensor(latents["speaker_embedding"], device=device)
        with self._lock, torch.inference_mode():
            out = self.model.inference(text, "zh-cn" if lang == "zh" else lang, gpt, speaker, speed=speed)
        return np.asarray(out["wav"], dtype=np.float32), SAMPLE_RATE
