"""LLM engine tests against a real OpenAI-compatible server and loopback fakes."""
