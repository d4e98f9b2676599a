"""Speaker diarization: who speaks when, behind one engine interface (CPU embedded and GPU pyannote)."""
