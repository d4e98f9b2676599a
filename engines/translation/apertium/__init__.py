"""The Apertium translator: installed modes and routes, stream framing, the engine."""
