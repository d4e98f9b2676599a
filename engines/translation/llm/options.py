"""What the LLM translator accepts under ``options:`` (``engine: llm``); docs/llm.md explains each choice."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from engines.options import EngineOptions, ProjectPath
from engines.translation.languages import DEFAULT_LANGUAGES


class LLMOptions(EngineOptions):
    """Server, model, batching, retries and answer checks of the LLM translator."""

    base_url: str = Field(
        "http://127.0.0.1:8000",
        min_length=1,
        description="Server root, with or without /v1; a route prefix (/llm) is kept.",
    )
    model: str | None = Field(None, min_length=1, description="Served model id; None: the first one /v1/models lists.")
    api_key: SecretStr | None = Field(
        None,
        description="Bearer token; None: the service key MEDIATRANS_LLM_KEY (docs/llm.md); an empty key sends none.",
    )
    timeout_s: float = Field(60.0, gt=0, description="Deadline of one HTTP call (connect, read, write each).")
    max_retries: int = Field(3, ge=0, description="Extra attempts after 429, 5xx or a connection error.")
    backoff_s: float = Field(0.5, ge=0, description="First backoff step; doubles per attempt, with full jitter.")
    max_backoff_s: float = Field(30.0, ge=0, description="Cap on any single wait, Retry-After included.")
    batch_size: int = Field(16, ge=1, description="Segments per chat completion.")
    concurrency: int = Field(4, ge=1, description="Batches of one request in flight at once (started in order).")
    max_inflight: int = Field(
        16,
        ge=1,
        description="Calls in flight across all requests of the engine; never fewer than concurrency.",
    )
    max_tokens: int = Field(2048, ge=1, description="Completion budget per call; size it for batch_size segments.")
    temperature: float = Field(0.0, ge=0, description="Sampling temperature; 0 gives repeatable output.")
    structured_output: Literal["json_schema", "json_object"] | None = Field(
        None,
        description="Ask the server for guided decoding of the JSON answer; None sends no response_format.",
    )
    max_split_depth: int = Field(1, ge=0, description="How many times a batch that keeps failing is halved.")
    single_max_tokens: int = Field(256, ge=1, description="Completion budget of a one-segment plain answer.")
    startup_wait_s: float = Field(0.0, ge=0, description="How long start() waits for a server that is still loading.")
    output_checks: bool = Field(True, description="Judge every answer (language, tokens, echo, length) and re-ask on a bad one.")
    retry_temperature: float = Field(
        0.7,
        ge=0,
        description="Sampling temperature of a one-segment re-ask, so it does not repeat the greedy answer (a loop, an echo).",
    )
    max_token_run: int = Field(
        12,
        ge=0,
        description="Sent as the embedded server's max_token_run: an answer stuck in a loop (¡¡¡…, a phrase over "
        "and over) ends after this many tokens instead of at max_tokens; 0 sends nothing (vLLM ignores the field).",
    )
    retry_frequency_penalty: float = Field(
        1.0,
        ge=0,
        le=2,
        description="OpenAI frequency_penalty of that re-ask: a first answer that looped on one token (¡¡¡…) is not "
        "looped again.",
    )
    single_segment_targets: tuple[str, ...] = Field(
        (),
        description="Target languages sent one segment per call in plain text (where the JSON batch loses quality).",
    )
    plain_prompt_targets: tuple[str, ...] = Field(
        (),
        description="Target languages asked one segment per call with a plain prompt (no system rules, context or "
        "examples; only the rules a segment needs), where the full prompt scored under the bare model; "
        "professional requests keep the full prompt.",
    )
    examples: ProjectPath | None = Field(
        None,
        description="Folder of the in-context example bank (configs/translation-examples); None: no examples.",
    )
    example_count: int = Field(3, ge=0, le=8, description="Examples shown before each request (closest to it).")
    memory_example_count: int = Field(
        5,
        ge=0,
        le=16,
        description="Translation memory pairs shown before a batch (every segment's closest first), instead of the "
        "bank's examples, when the request carries them; 0 shows none.",
    )
    example_targets: tuple[str, ...] | None = Field(
        None,
        description="Target languages that get examples; None: every language of the bank.",
    )
    languages: tuple[str, ...] = Field(
        DEFAULT_LANGUAGES,
        min_length=1,
        description="API codes served; variants (pt-BR) are targets only.",
    )
