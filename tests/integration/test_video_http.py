"""Video translation end to end through the real Serve app: submit, poll, download, callbacks."""

from __future__ import annotations

import hashlib
import hmac
import io
import subprocess
import time
from pathlib import Path
from xml.etree import ElementTree

import httpx
import pysubs2
import pytest
import srt
import webvtt
from ttconv import model as ttml_model
from ttconv.imsc import reader as ttml_reader

from loadtests.qc_subtitles import read_cues
from pipelines.subtitles.presets import preset_for
from pipelines.subtitles.qc import check_cues
from tests.integration.conftest import Accounts
from tests.integration.test_platform_http import assert_error
from tests.support.http_server import loopback_server
from tests.support.media import make_video, not_a_video, silent_video
from tests.support.text import recall, words

pytestmark = [pytest.mark.serve, pytest.mark.models]

SPEECH = "The weather is nice today. We walk to the market and buy fresh bread and apples."
URL = "/v1/video/translate"


@pytest.fixture(scope="module")
def media_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("videos")


@pytest.fixture(scope="module")
def talk(media_dir: Path) -> Path:
    return make_video(media_dir / "talk.mp4", container="mp4", speech_text=SPEECH)


def submit(client: httpx.Client, headers: dict[str, str], video: Path | None = None, **fields: object) -> httpx.Response:
    data = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in fields.items()}
    files = {"file": (video.name, video.read_bytes(), "application/octet-stream")} if video else None
    return client.post(URL, data=data, files=files, headers=headers)


def wait_done(client: httpx.Client, headers: dict[str, str], task_id: str, timeout_s: float = 180) -> dict:
    deadline = time.monotonic() + timeout_s
    seen_progress: list[int] = []
    while time.monotonic() < deadline:
        task = client.get(f"/v1/video/task/{task_id}", headers=headers).json()
        seen_progress.append(task["progress"])
        if task["status"] in ("completed", "failed", "expired"):
            assert seen_progress == sorted(seen_progress), "progress went back"
            return task
        assert task["status"] in ("queued", "processing")
        if task["status"] == "processing":
            assert task["stage"] in (
                "validating", "extracting", "recognizing", "diarizing", "translating", "synthesizing", "packaging"
            )  # fmt: skip
            assert isinstance(task["estimated_seconds"], int)
        time.sleep(0.5)
    raise AssertionError(f"task {task_id} not finished after {timeout_s}s")


def _spans(element: ttml_model.ContentElement) -> list[ttml_model.Text]:
    """Every text node under ``element``."""
    if isinstance(element, ttml_model.Text):
        return [element]
    return [node for child in element for node in _spans(child)]


def download(client: httpx.Client, url: str) -> bytes:
    response = client.get(url)  # no Authorization: the signed link is the credential
    assert response.status_code == 200, response.text
    return response.content


def test_upload_to_srt(client: httpx.Client, auth: dict[str, str], talk: Path, tmp_path: Path) -> None:
    response = submit(client, auth, talk, target_lang="es")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "queued" and body["estimated_seconds"] >= 1 and body["created_at"].endswith("Z")
    task = wait_done(client, auth, body["task_id"])
    assert task["status"] == "completed", task
    assert task["progress"] == 100 and "completed_at" in task and "stage" not in task
    result = task["result"]
    assert result["source_lang"] == "en" and result["char_count"] > 20 and 5 < result["duration"] < 15
    text = download(client, result["subtitle_url"]).decode()
    cues = list(srt.parse(text))
    translated = " ".join(c.content for c in cues)
    assert len(words(translated)) >= 8 and recall(SPEECH, translated) < 0.5, translated  # Spanish, not the English heard
    # The task's quality report is what the QC script finds in the file it published.
    (tmp_path / "talk.srt").write_text(text, encoding="utf-8")
    own = check_cues(read_cues(tmp_path / "talk.srt"), preset_for("es"), result["qc"]["fps"])
    assert result["qc"]["preset"]["name"] == "standard" and result["qc"]["cues"] == len(cues) == len(own.cues)
    assert {k: v for k, v in result["qc"]["rules"].items() if k != "shot_change"} == {
        k: v for k, v in own.counts().items() if k != "shot_change"
    }


@pytest.mark.parametrize("output_format", ["vtt", "ass", "burned_video", "all", "ttml"])
def test_output_formats(client: httpx.Client, auth: dict[str, str], talk: Path, output_format: str) -> None:
    task_id = submit(client, auth, talk, target_lang="es", source_lang="en", output_format=output_format, bilingual=True).json()[
        "task_id"
    ]
    result = wait_done(client, auth, task_id)["result"]
    if output_format == "vtt":
        captions = list(webvtt.from_buffer(io.StringIO(download(client, result["subtitle_url"]).decode())))
        bilingual = " ".join(c.text for c in captions)
        assert recall(SPEECH, bilingual) >= 0.5, bilingual  # the recognised English is shown with the translation
    elif output_format == "ass":
        ass = pysubs2.SSAFile.from_string(download(client, result["subtitle_url"]).decode())
        assert ass.events and ass.info["PlayResX"] == "320"
    elif output_format == "ttml":
        document = ttml_reader.to_model(ElementTree.ElementTree(ElementTree.fromstring(download(client, result["subtitle_url"]))))
        assert document is not None and document.get_body() is not None
        shown = " ".join(span.get_text() for span in _spans(document.get_body()))
        assert recall(SPEECH, shown) >= 0.5, shown  # bilingual: the recognised English is in the document
    elif output_format == "burned_video":
        assert "subtitle_url" not in result
        assert download(client, result["video_url"])[4:8] == b"ftyp"
    else:
        assert set(result["files"]) == {"srt", "vtt", "ass", "burned_video", "ttml", "ebu_tt_d"}
        for url in result["files"].values():
            assert download(client, url)


@pytest.mark.parametrize(
    ("container", "codec"), [("mov", None), ("mkv", None), ("avi", None), ("webm", None), ("flv", None), ("wmv", None)]
)
def test_every_container(client: httpx.Client, auth: dict[str, str], media_dir: Path, container: str, codec: str | None) -> None:
    video = make_video(
        media_dir / f"clip.{container}", container=container, codec=codec, speech_text="Hello and welcome to the show."
    )
    response = submit(client, auth, video, target_lang="es", source_lang="en")
    assert response.status_code == 200, response.text
    task = wait_done(client, auth, response.json()["task_id"])
    assert task["status"] == "completed", task
    assert srt.parse(download(client, task["result"]["subtitle_url"]).decode())


def test_video_url_and_signed_callback(client: httpx.Client, accounts: Accounts, talk: Path, media_dir: Path) -> None:
    account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    (media_dir / "served").mkdir(exist_ok=True)
    (media_dir / "served" / "talk.mp4").write_bytes(talk.read_bytes())
    with loopback_server(media_dir / "served") as server:
        callback = server.url("/hook?task=1")
        response = submit(client, headers, video_url=server.url("/files/talk.mp4"), target_lang="es", callback_url=callback)
        assert response.status_code == 200, response.text
        task = wait_done(client, headers, response.json()["task_id"])
        assert task["status"] == "completed", task
        assert server.event.wait(30), "no callback arrived"
        hook = server.received[0]
        expected = "sha256=" + hmac.new(account.signing_secret.encode(), callback.encode(), hashlib.sha256).hexdigest()
        assert hook.headers["X-Signature"] == expected
        assert hook.headers["Content-Type"].startswith("application/json")
        payload = hook.json()
        assert payload["task_id"] == task["task_id"] and payload["status"] == "completed"
        assert payload["result"]["subtitle_url"] == task["result"]["subtitle_url"]

        missing = submit(client, headers, video_url=server.url("/files/nope.mp4"), target_lang="es", callback_url=callback)
        failed = wait_done(client, headers, missing.json()["task_id"])
        assert failed["status"] == "failed" and failed["error"]["code"] == "INVALID_URL"
        deadline = time.monotonic() + 30
        while len(server.received) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert server.received[1].json() == {"task_id": failed["task_id"], "status": "failed", "error": failed["error"]}


def test_submission_errors(client: httpx.Client, auth: dict[str, str], talk: Path, media_dir: Path, accounts: Accounts) -> None:
    assert_error(submit(client, {}, talk, target_lang="es"), 401, "UNAUTHORIZED")
    assert_error(submit(client, auth, talk), 400, "INVALID_PARAMETER")
    assert_error(submit(client, auth, None, target_lang="es"), 400, "INVALID_PARAMETER")
    assert_error(submit(client, auth, talk, target_lang="es", video_url="https://example.com/a.mp4"), 400, "INVALID_PARAMETER")
    assert_error(submit(client, auth, talk, target_lang="xx"), 400, "INVALID_LANG_CODE")
    assert_error(submit(client, auth, talk, target_lang="es", source_lang="zz"), 400, "INVALID_LANG_CODE")
    assert_error(submit(client, auth, talk, target_lang="auto"), 400, "INVALID_LANG_CODE")
    assert_error(submit(client, auth, talk, target_lang="ja", source_lang="en"), 400, "INVALID_LANG_CODE")
    for field, value in [
        ("subtitle_outline_width", 4.5),
        ("subtitle_max_duration", 11),
        ("subtitle_max_duration", 1.9),
        ("dubbing_speed", 2.5),
        ("dubbing_bg_music", -0.1),
        ("subtitle_color", "white"),
        ("subtitle_position", "left"),
        ("output_format", "mp3"),
        ("subtitle_preset", "cinema"),
        ("max_subtitle_length", 5),
        ("start_time", -1),
        ("unknown_field", 1),
        ("dubbing_speed", 1.2),  # dubbing parameters without enable_dubbing would have no effect
        ("dubbing_voice", "default-male"),
        ("speaker_count", 2),  # likewise without enable_diarization
    ]:
        assert_error(submit(client, auth, talk, target_lang="es", **{field: value}), 400, "INVALID_PARAMETER")
    for fields in (
        {"enable_dubbing": True, "dubbing_speed": 0.4},
        {"enable_dubbing": True, "dubbing_speed": 2.1},
        {"enable_dubbing": True, "dubbing_bg_music": 1.01},
        {"enable_dubbing": True, "dubbing_voice": "robot"},
        {"enable_diarization": True, "speaker_count": 0},
        {"enable_diarization": True, "speaker_count": 33},
        {"enable_diarization": True, "speaker_count": "two"},
    ):
        assert_error(submit(client, auth, talk, target_lang="es", **fields), 400, "INVALID_PARAMETER")
    assert_error(submit(client, auth, talk, target_lang="es", start_time=5, end_time=4), 400, "INVALID_PARAMETER")
    assert_error(submit(client, auth, silent_video(media_dir / "silent.mp4"), target_lang="es"), 400, "NO_AUDIO_TRACK")
    assert_error(submit(client, auth, not_a_video(media_dir / "notes.mp4"), target_lang="es"), 400, "UNSUPPORTED_VIDEO")
    assert_error(submit(client, auth, talk, target_lang="es", glossary_id="gl_missing"), 400, "GLOSSARY_NOT_FOUND")
    for url in (
        "ftp://example.com/a.mp4",
        "http://127.0.0.1:9/a.mp4",
        "http://10.1.2.3/a.mp4",
        "http://[::1]/a.mp4",
        "not a url",
    ):
        assert_error(submit(client, auth, None, target_lang="es", video_url=url), 400, "INVALID_URL")
    assert_error(submit(client, auth, talk, target_lang="es", callback_url="http://169.254.169.254/latest"), 400, "INVALID_URL")
    assert_error(client.post(URL, json={"target_lang": "es"}, headers=auth), 415, "UNSUPPORTED_MEDIA_TYPE")
    big = media_dir / "big.bin"
    big.write_bytes(b"\0" * (9 << 20))
    assert_error(submit(client, auth, big, target_lang="es"), 400, "VIDEO_TOO_LARGE")


def test_over_three_hours(client: httpx.Client, auth: dict[str, str], media_dir: Path) -> None:
    long = media_dir / "long.mkv"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "10900", "-c:a", "flac", str(long)],
        check=True,
        timeout=120,
    )
    assert_error(submit(client, auth, long, target_lang="es"), 400, "VIDEO_TOO_LARGE")


def test_quota_and_idempotency(client: httpx.Client, accounts: Accounts, talk: Path) -> None:
    _account, token = accounts.create(quotas={"video_tasks": 1})
    headers = {"Authorization": f"Bearer {token}"}
    first = submit(client, {**headers, "Idempotency-Key": "v-1"}, talk, target_lang="es")
    again = submit(client, {**headers, "Idempotency-Key": "v-1"}, talk, target_lang="es")
    assert first.status_code == 200 and again.json() == first.json()
    assert_error(submit(client, headers, talk, target_lang="es"), 402, "QUOTA_EXCEEDED")
    assert_error(submit(client, {**headers, "Idempotency-Key": "v-1"}, talk, target_lang="fr"), 409, "IDEMPOTENCY_KEY_REUSED")
    wait_done(client, headers, first.json()["task_id"])


def test_forged_and_expired_links(client: httpx.Client, auth: dict[str, str], talk: Path) -> None:
    task = wait_done(client, auth, submit(client, auth, talk, target_lang="es", source_lang="en").json()["task_id"])
    url = httpx.URL(task["result"]["subtitle_url"])
    forged = url.copy_set_param("sig", "A" * 43)
    assert_error(client.get(str(forged)), 410, "LINK_EXPIRED")
    expired = url.copy_set_param("expires", str(int(time.time()) - 10))
    assert_error(client.get(str(expired)), 410, "LINK_EXPIRED")


REAL_SPEECH = Path("/usr/share/codec2/raw/hts.raw")  # Debian codec2-examples: a real recorded English passage


def frame_gray(video: Path, at_s: float, size: str = "320x240") -> bytes:
    """One decoded frame as raw 8-bit gray pixels."""
    cmd = [
        "ffmpeg",
        "-v",
        "error",
        "-ss",
        f"{at_s}",
        "-i",
        str(video),
        "-frames:v",
        "1",
        "-s",
        size,
        "-f",
        "rawvideo",
        "-pix_fmt",
        "gray",
        "-",
    ]
    return subprocess.run(cmd, check=True, capture_output=True, timeout=60).stdout


def test_real_speech_burned_video(client: httpx.Client, auth: dict[str, str], media_dir: Path) -> None:
    assert REAL_SPEECH.is_file(), "codec2-examples is installed by `make setup`"
    wav = media_dir / "hts.wav"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "s16le", "-ar", "8000", "-ac", "1", "-i", str(REAL_SPEECH), str(wav)], check=True
    )
    video = media_dir / "real.mp4"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "color=c=gray:size=320x240:rate=10",
            "-i",
            str(wav),
            "-shortest",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            str(video),
        ],
        check=True,
    )
    task_id = submit(client, auth, video, target_lang="es", output_format="all", subtitle_size=28).json()["task_id"]
    task = wait_done(client, auth, task_id)
    assert task["status"] == "completed", task
    assert task["result"]["source_lang"] == "en"
    cues = list(srt.parse(download(client, task["result"]["files"]["srt"]).decode()))
    assert len(cues) >= 3 and task["result"]["char_count"] > 100
    burned = media_dir / "burned.mp4"
    burned.write_bytes(download(client, task["result"]["files"]["burned_video"]))
    shown = (cues[1].start + (cues[1].end - cues[1].start) / 2).total_seconds()
    gap_free_end = cues[-1].end.total_seconds() + 0.5
    differs = sum(a != b for a, b in zip(frame_gray(video, shown), frame_gray(burned, shown), strict=True))
    assert differs > 500, "subtitle pixels expected where a cue is shown"
    if gap_free_end < task["result"]["duration"] - 0.2:
        same = sum(
            abs(a - b) > 24 for a, b in zip(frame_gray(video, gap_free_end), frame_gray(burned, gap_free_end), strict=True)
        )
        assert same < 200, "no subtitle expected after the last cue"


def test_dubbing_with_diarization(client: httpx.Client, accounts: Accounts, media_dir: Path) -> None:
    """Two speakers dubbed with two voices, labelled in the subtitles, and the extras on the account's usage."""
    from tests.support.scenes import SceneLine, build_scene, scene_video

    lines = [
        SceneLine(0.5, "Where were you last night?", "en+m3"),
        SceneLine(3.2, "I was at home with my sister.", "en+f4"),
        SceneLine(6.4, "That is not what your brother said.", "en+m3"),
        SceneLine(9.8, "My brother was not there.", "en+f4"),
    ]
    video = scene_video(build_scene(lines, 13.0), media_dir / "dialogue.mp4")
    _account, token = accounts.create()
    headers = {"Authorization": f"Bearer {token}"}
    fields = {"target_lang": "es", "source_lang": "en", "enable_dubbing": True, "enable_diarization": True}
    response = submit(client, headers, video, **fields, dubbing_voice="professional-female", output_format="srt")
    assert response.status_code == 200, response.text
    task = wait_done(client, headers, response.json()["task_id"], timeout_s=300)
    assert task["status"] == "completed", task
    result = task["result"]
    cues = list(srt.parse(download(client, result["subtitle_url"]).decode()))
    text = " ".join(c.content for c in cues)
    assert "[Speaker 1]" in text and "[Speaker 2]" in text
    assert {s["speaker"] for s in result["speakers"]} == {"Speaker 1", "Speaker 2"}
    assert download(client, result["video_url"])[4:8] == b"ftyp"
    report = client.get(result["dubbing_report_url"]).json()
    voices = {name: (v["voice"], v["pitch_semitones"]) for name, v in report["voices"].items() if name != "default"}
    assert len(voices) == 2 and len(set(voices.values())) == 2  # a voice of their own for each speaker
    assert {line["speaker"] for line in report["lines"]} == {"Speaker 1", "Speaker 2"}
    usage = client.get("/v1/account", headers=headers).json()["usage"]
    assert usage["diarization_minutes"] == 1 and usage["dubbing_professional_seconds"] in (13, 14)  # started seconds
    assert usage["dubbing_seconds"] == 0 and usage["video_minutes"] == 1
