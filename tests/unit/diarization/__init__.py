"""Unit tests of speaker diarization: clustering, speaker assignment, engine availability."""
