"""The audio side of AI dubbing: time fitting, tempo, speech/background separation, loudness, mixdown and mux."""
