"""AI dubbing of a translated video: voices, synthesis, time fit, mix and mux (docs/dubbing.md)."""
