"""Local LLM serving: llama.cpp continuous batching behind an OpenAI-compatible API."""
