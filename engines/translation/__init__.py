"""Translator engines: apertium (CPU profile) and an OpenAI-compatible LLM (GPU profile)."""
