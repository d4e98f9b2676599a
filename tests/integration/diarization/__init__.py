"""Diarization quality on real and synthetic dialogues (real models)."""
