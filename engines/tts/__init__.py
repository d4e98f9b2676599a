"""Speech synthesis engines (Kokoro, Piper, espeak-ng; XTTS in the cluster profile)."""
