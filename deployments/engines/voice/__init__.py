"""Voice samples and speakers: decoding, checks, denoising, speaker encoders, voice fitting."""
