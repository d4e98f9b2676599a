"""Voice cloning: sample checks and preparation, fitting a voice to a speaker, the cloner engines."""
