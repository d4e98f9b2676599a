"""The LLM translator: prompts, batches, answers, the chat client, examples, options and the engine."""
