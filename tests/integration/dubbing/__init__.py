"""Integration tests of the dubbing audio operations (ffmpeg, DeepFilterNet)."""
