"""Audio of voice samples: decoding, voice activity, signal-to-noise, denoising, shared signal helpers."""
