"""Polling with a progress callback, failed tasks, result downloads and streamed speech."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from conftest import LoopbackServer, Recorded, Reply, task_record
from mediatrans_client import AsyncClient, Client, Task, TaskFailedError, WaitTimeoutError

SEQUENCE = [
    task_record("t1", "queued", 0),
    task_record("t1", "processing", 5, "extracting"),
    task_record("t1", "processing", 5, "extracting"),  # unchanged: not reported
    task_record("t1", "processing", 40, "recognizing"),
    task_record("t1", "processing", 35, "recognizing"),  # stale answer going backwards: not reported
    task_record("t1", "processing", 70, "translating"),
    task_record("t1", "processing", 70, "synthesizing"),  # stage change at the same progress: reported
    task_record(
        "t1",
        "completed",
        100,
        result={"subtitle_url": "/v1/files/t1/subtitles.srt?expires=1&sig=x", "duration": 61.5, "char_count": 812},
    ),
]


def serve_sequence(server: LoopbackServer, task_id: str, records: list[dict]) -> None:
    state = {"i": 0}

    def handler(request: Recorded) -> Reply:
        record = records[min(state["i"], len(records) - 1)]
        state["i"] += 1
        return Reply(200, record)

    server.route("GET", f"/v1/video/task/{task_id}")(handler)


def test_wait_reports_only_changes_with_monotonic_progress(server: LoopbackServer, client: Client) -> None:
    serve_sequence(server, "t1", SEQUENCE)
    seen: list[Task] = []
    task = client.video.wait("t1", on_progress=seen.append, poll_interval=0.01)
    assert task.status == "completed" and task.result is not None and task.result.duration == 61.5
    progress = [t.progress for t in seen]
    assert progress == [0, 5, 40, 70, 70, 100]
    assert progress == sorted(progress)
    assert [t.stage for t in seen] == [None, "extracting", "recognizing", "translating", "synthesizing", None]
    assert len(server.requests_to("GET", "/v1/video/task/t1")) == len(SEQUENCE)


def test_translate_with_wait_submits_then_polls(server: LoopbackServer, client: Client) -> None:
    server.route("POST", "/v1/video/translate")(lambda r: Reply(200, task_record("t1", "queued", estimated_seconds=30)))
    serve_sequence(server, "t1", SEQUENCE)
    progress: list[int] = []
    task = client.video.translate(
        "https://cdn.example.com/v.mp4",
        target_lang="fr",
        wait=True,
        poll_interval=0.01,
        on_progress=lambda t: progress.append(t.progress or 0),
    )
    assert task.status == "completed" and progress[-1] == 100 and progress == sorted(progress)


def test_failed_task_raises_with_its_code(server: LoopbackServer, client: Client) -> None:
    failed = task_record("t2", "failed", 10, error={"code": "NO_AUDIO_TRACK", "message": "The video has no audio track."})
    serve_sequence(server, "t2", [task_record("t2", "processing", 10, "extracting"), failed])
    with pytest.raises(TaskFailedError) as info:
        client.video.wait("t2", poll_interval=0.01)
    assert info.value.code == "NO_AUDIO_TRACK" and info.value.task.status == "failed"


def test_wait_timeout(server: LoopbackServer, client: Client) -> None:
    serve_sequence(server, "t3", [task_record("t3", "processing", 10, "recognizing")])
    with pytest.raises(WaitTimeoutError) as info:
        client.video.wait("t3", poll_interval=0.05, timeout=0.2)
    assert info.value.task.progress == 10


def test_download_streams_every_result_link(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    payloads = {
        "/v1/files/t4/subtitles.srt": b"1\n00:00:00,000 --> 00:00:01,000\nBonjour\n",
        "/v1/files/t4/burned.mp4": b"\x00mp4" * 5000,
    }
    for path, data in payloads.items():
        server.route("GET", path)(lambda r, data=data: Reply(200, data))
    base = server.base_url
    task = Task.model_validate(
        task_record(
            "t4",
            "completed",
            100,
            result={
                "subtitle_url": f"{base}/v1/files/t4/subtitles.srt?expires=1&sig=a",
                "files": {
                    "srt": f"{base}/v1/files/t4/subtitles.srt?expires=1&sig=a",
                    "burned_video": f"{base}/v1/files/t4/burned.mp4?sig=b",
                },
            },
        )
    )
    paths = client.video.download(task, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["burned.mp4", "subtitles.srt"]
    for p in paths:
        assert p.read_bytes() == payloads[f"/v1/files/t4/{p.name}"]
    assert not list((tmp_path / "out").glob("*.part"))


def test_async_wait_and_download(server: LoopbackServer, tmp_path: Path) -> None:
    serve_sequence(server, "t1", SEQUENCE)
    server.route("GET", "/v1/files/t1/subtitles.srt")(lambda r: Reply(200, b"WEBVTT-ish"))

    async def run() -> tuple[list[int], list[Path]]:
        seen: list[int] = []
        async with AsyncClient(server.base_url, "tok") as c:
            task = await c.video.wait("t1", on_progress=lambda t: seen.append(t.progress or 0), poll_interval=0.01)
            return seen, await c.video.download(task, tmp_path)

    seen, paths = asyncio.run(run())
    assert seen == [0, 5, 40, 70, 70, 100]
    assert [p.read_bytes() for p in paths] == [b"WEBVTT-ish"]


def test_tts_streams_audio_to_file(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    audio = b"ID3" + bytes(range(256)) * 100
    server.route("POST", "/v1/tts")(lambda r: Reply(200, audio, {"Content-Type": "audio/mpeg", "X-Voice": "v1"}))
    out = client.tts.synthesize("Bonjour", "v1", tmp_path / "hello.mp3", speed=1.2)
    assert out.read_bytes() == audio
    assert b'"speed":1.2' in server.requests_to("POST", "/v1/tts")[0].body


def test_voice_clone_uploads_sample(server: LoopbackServer, client: Client, tmp_path: Path) -> None:
    server.route("POST", "/v1/voice/clone")(
        lambda r: Reply(
            200, {"voice_id": "vc_1", "voice_name": "narrator", "lang": "en", "status": "ready", "quality_score": 0.91}
        )
    )
    server.route("GET", "/v1/voice/clone")(
        lambda r: Reply(200, {"voices": [{"voice_id": "vc_1", "status": "ready"}], "total": 1, "quota": 10})
    )
    sample = tmp_path / "sample.wav"
    sample.write_bytes(b"RIFF" + b"\x00" * 1000)
    voice = client.voice.clone(sample, "narrator", "en", noise_reduction=False)
    assert voice.voice_id == "vc_1" and voice.quality_score == 0.91
    sent = server.requests_to("POST", "/v1/voice/clone")[0]
    assert b'filename="sample.wav"' in sent.body and b"false" in sent.body and sent.headers.get("idempotency-key")
    listed = client.voice.list(status="ready")
    assert listed.total == 1 and listed.quota == 10
    assert server.requests_to("GET", "/v1/voice/clone")[0].query == {"status": ["ready"]}


def test_the_qc_report_is_summarised_in_one_line() -> None:
    qc = {
        "preset": {"name": "standard", "language": "zh"},
        "cues": 40,
        "failing": 3,
        "rules": {"line_length": 0, "reading_speed": 2, "shot_change": 1},
    }
    line = Task.model_validate({"task_id": "t", "status": "completed", "result": {"qc": qc}}).result.qc_summary()
    assert line == "standard zh: 3 of 40 cues (7.5 %) break a rule (reading_speed 2, shot_change 1)"
    assert Task.model_validate({"task_id": "t", "status": "completed", "result": {}}).result.qc_summary() is None
