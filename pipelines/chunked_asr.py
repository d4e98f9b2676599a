"""Long audio → chunks cut at silences → parallel transcription with Ray Data → one transcript.

Chunks travel as rows of a Ray Data dataset; up to ``concurrency`` Ray tasks
forward chunks to the ASR deployment, which autoscales and does the decoding.
Every chunk is transcribed with the chunk's start as ``offset``, so timestamps
land on the file's timeline, and :func:`merge_transcripts` joins them so no
word at a seam is lost or doubled.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from engines.asr.audio import SAMPLE_RATE, ChunkingOptions, merge_transcripts, split_at_silences
from engines.asr.types import Transcript


@dataclasses.dataclass(frozen=True)
class ChunkedAsrOptions:
    """How a long recording is split and fanned out.

    Attributes:
        target_chunk_s / max_chunk_s: chunk length target and hard maximum.
        concurrency: chunks in flight at once (ASR replicas can take them).
        app_name / deployment: where the ASR deployment lives.

    The first three come from the profile's ``asr:`` (``AsrArgs``, where their defaults are).
    """

    target_chunk_s: float
    max_chunk_s: float
    concurrency: int
    app_name: str = "mediatrans"
    deployment: str = "ASR"


def _transcribe_row(row: dict[str, Any]) -> dict[str, Any]:
    """Ray Data task: sends one chunk to the ASR deployment and returns its transcript.

    A plain function (not an actor class) so it runs in Ray's pooled workers
    instead of starting a new process for every job.
    """
    from ray import serve

    handle = serve.get_deployment_handle(row["deployment"], app_name=row["app_name"])
    audio = np.asarray(row["audio"], dtype=np.float32)
    transcript = handle.transcribe.remote(audio, row["language"], float(row["offset"])).result()
    return {"index": row["index"], "transcript": pickle.dumps(transcript)}


def _echo(row: dict[str, Any]) -> dict[str, Any]:
    return row


def warm_up() -> None:
    """Import Ray Data and run one tiny dataset, so the first long video does not pay for it."""
    import ray.data

    ray.data.from_items([{"index": 0}]).map(_echo, num_cpus=0.05).take_all()


def transcribe_long(
    audio: np.ndarray,
    *,
    language: str | None,
    offset: float = 0.0,
    options: ChunkedAsrOptions,
    on_chunk: Callable[[int, int], None] | None = None,
    on_prefix: Callable[[Transcript, float], None] | None = None,
) -> Transcript:
    """Transcribe ``audio`` (16 kHz mono) whose first sample is at ``offset`` seconds.

    ``on_prefix(transcript, until)``, when given, receives the merged transcript of chunks
    0..k each time k grows (chunks finish in any order) and the file time where chunk k ends,
    except for the last prefix, which is the result.
    """
    import ray.data

    chunks = split_at_silences(audio, options=ChunkingOptions(options.target_chunk_s, options.max_chunk_s))
    rows = [
        {
            "index": i,
            "offset": offset + c.start,
            "audio": c.slice(audio, SAMPLE_RATE),
            "language": language,
            "app_name": options.app_name,
            "deployment": options.deployment,
        }
        for i, c in enumerate(chunks)
    ]
    dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map(
        _transcribe_row, concurrency=max(1, min(options.concurrency, len(rows))), num_cpus=0.05
    )
    parts: dict[int, Transcript] = {}
    front = 0  # chunks 0..front-1 are all done
    for row in dataset.iter_rows():
        parts[int(row["index"])] = pickle.loads(row["transcript"])
        if on_chunk is not None:
            on_chunk(len(parts), len(rows))
        grown = front
        while grown in parts:
            grown += 1
        if on_prefix is not None and front < grown < len(rows):
            on_prefix(merge_transcripts([parts[i] for i in range(grown)]), offset + chunks[grown - 1].end)
        front = grown
    return merge_transcripts(sorted(parts.values(), key=lambda t: t.offset))
