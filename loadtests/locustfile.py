"""Locust users of the realistic mix, under the staged shape of ``make loadtest``.

Users: anonymous clients revalidating the language list with ``If-None-Match`` (each from its
own loopback address, as distinct clients are rate limited apart); game studios localizing
UI strings and dialogue; writers checking grammar; apps reading short notices aloud with
``POST /v1/tts``; one video client at a time that uploads a few-second generated MP4 and polls
its task to the end; and one voice cloner at a time that clones a voice from a generated WAV
sample (loadtests/voice_sample.py), speaks a sentence with it and deletes it again (the
account holds at most 10 voices).

Every failed request is appended to ``errors.csv`` (time, request name, HTTP status, the
contract ``code`` of the JSON error body); every stage change to ``stages.csv``; every video
task's outcome to ``tasks.csv`` — all in ``$LOADTEST_OUT`` (default ``var/loadtest``). The
shape comes from ``LOADTEST_SHAPE`` and the other variables of loadtests/loadtest_stages.py.

Run in its own process (locust and ray.init in one process hang); ``make loadtest`` runs it
through loadtests/loadtest.py. By hand:

    MEDIATRANS_TOKEN=mt_... LOADTEST_SHAPE=spike .venv/bin/locust -f loadtests/locustfile.py \
        --host http://127.0.0.1:8000 --headless
"""

from __future__ import annotations

import csv
import itertools
import json
import logging
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from locust import HttpUser, LoadTestShape, between, constant, events, task
from locust.clients import LocustHttpAdapter
from urllib3 import PoolManager

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loadtests.loadtest_stages import Settings, Stage, stage_at, stages  # noqa: E402
from loadtests.voice_sample import make_voice_sample  # noqa: E402

log = logging.getLogger("loadtest")

TOKEN = os.environ.get("MEDIATRANS_TOKEN", "")
OUT = Path(os.environ.get("LOADTEST_OUT", ROOT / "var" / "loadtest"))
TIMEOUT_S = 30  # the contract's recommended client timeout
GAME_TARGETS = [t for t in os.environ.get("LOADTEST_GAME_TARGETS", "pt-BR,ca").split(",") if t]
DIALOGUE_TARGETS = [t for t in os.environ.get("LOADTEST_DIALOGUE_TARGETS", "es").split(",") if t]
VIDEO_TARGET = os.environ.get("LOADTEST_VIDEO_TARGET", "pt")
VIDEO_PAUSE_S = float(os.environ.get("LOADTEST_VIDEO_PAUSE_S", "20"))
VIDEO_POLL_S = 3.0
VIDEO_GIVE_UP_S = 180.0
TTS_LANG = os.environ.get("LOADTEST_TTS_LANG", "en")
CLONE_USERS = int(os.environ.get("LOADTEST_CLONE_USERS", "1"))  # 0: the cloner stays idle
CLONE_PAUSE_S = float(os.environ.get("LOADTEST_CLONE_PAUSE_S", "30"))
CLONE_TIMEOUT_S = 120  # a synchronous clone fits the voice before it answers

UI_STRINGS = (
    "Welcome back, {player}! Your <color=#ffd700>daily reward</color> of %d gold is ready.",
    "Press [b]Claim[/b] before midnight to keep your streak alive.",
    "Not enough mana: {0} more needed.",
    "Inventory full. Sell or drop items to pick up {item}.",
    "Quest complete! You earned %d XP and a {rarity} chest.",
)
DIALOGUE = (
    "You came back. I knew you would, even when the others said the bridge had fallen.",
    "Keep your voice down. The guards change shifts at midnight, and that is our only chance.",
)
GRAMMAR_TEXTS = (
    {"text": "Their going too the store tomorow, and they has forgot the list.", "auto_correct": True},
    {"text": "I could of went to the meeting but it were cancelled at the last minute.", "lang": "en"},
    {"text": "Les enfant sont allé à l'école ce matin malgré la pluie.", "lang": "fr"},
    {"text": "Ich habe gestern einen sehr interresanten Artikel gelesen.", "lang": "de"},
    {"text": "Mañana vamos a la playa si no llueve demasiado, pero quizas no.", "lang": "es"},
)
NOTICES = (
    "Your order has shipped and will arrive on Thursday.",
    "The train to Central Station is delayed by about ten minutes. We apologise for the inconvenience.",
    "You have three new messages.",
    "Welcome back! Your next lesson starts in five minutes.",
)
SPEECH = "Hello and welcome. This short clip checks the video translation service under load. Thank you for watching."


class CsvLog:
    """Appends rows to one CSV file, flushed at once (other processes read it while the test runs)."""

    def __init__(self, path: Path, header: list[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("w", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)
        self.write(*header)

    def write(self, *row: Any) -> None:
        if self.file.closed:  # a straggler after the run
            return
        self.writer.writerow(row)
        self.file.flush()

    def close(self) -> None:
        self.file.close()


ERRORS: CsvLog | None = None
STAGES: CsvLog | None = None
TASKS: CsvLog | None = None
VIDEO: Path | None = None
VOICE_SAMPLE: Path | None = None
CURRENT = Stage("before", 0, 0, 1)


def contract_code(text: str) -> str:
    """The ``code`` of a JSON error body (``error.code`` accepted too); a marker when there is none."""
    try:
        body = json.loads(text)
    except ValueError:
        return "no JSON body"
    if isinstance(body, dict):
        code = body.get("code")
        if code is None and isinstance(body.get("error"), dict):
            code = body["error"].get("code")
        if code is not None:
            return str(code)
    return "no code"


@events.request.add_listener
def record_failure(name: str, response: Any = None, exception: BaseException | None = None, **_: Any) -> None:
    if exception is None or ERRORS is None:
        return
    status = int(getattr(response, "status_code", 0) or 0)
    if status == 0:  # no answer: connection refused or reset, client timeout
        code = type(getattr(response, "error", None) or exception).__name__
    elif status >= 400:
        code = contract_code(response.text)
    else:
        code = f"unexpected {status}"
    ERRORS.write(f"{time.time():.3f}", name, status, code)


def call(client: Any, method: str, path: str, *, ok: tuple[int, ...] = (200,), **kwargs: Any) -> Any:
    """One request; a status outside ``ok`` fails with the contract code in locust's failure table."""
    kwargs.setdefault("timeout", TIMEOUT_S)
    with client.request(method, path, catch_response=True, **kwargs) as response:
        if response.status_code in ok:
            response.success()
        elif response.status_code == 0:
            response.failure(f"no response: {type(response.error).__name__}")
        else:
            response.failure(f"HTTP {response.status_code} code {contract_code(response.text)}")
    return response


def make_test_video(folder: Path) -> Path | None:
    """A few-second H.264/AAC MP4: a test pattern with spoken English (a tone without espeak-ng)."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        return None
    espeak = shutil.which("espeak-ng")
    if espeak:
        wav = folder / "speech.wav"
        subprocess.run([espeak, "-v", "en", "-s", "150", "-w", str(wav), SPEECH], check=True, capture_output=True, timeout=60)
        audio = ["-i", str(wav)]
    else:
        audio = ["-f", "lavfi", "-i", "sine=frequency=440:duration=5"]
    clip = folder / "clip.mp4"
    video = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25"]
    codecs = ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-t", "12"]
    subprocess.run([ffmpeg, "-y", "-loglevel", "error", *video, *audio, *codecs, str(clip)], check=True, timeout=120)
    return clip


@events.init.add_listener
def open_logs(**_: Any) -> None:
    """Before the shape's first tick (which comes before ``test_start``), so the first stage is logged too."""
    global ERRORS, STAGES, TASKS, VIDEO, VOICE_SAMPLE
    ERRORS = CsvLog(OUT / "errors.csv", ["timestamp", "name", "status", "code"])
    STAGES = CsvLog(OUT / "stages.csv", ["timestamp", "stage"])
    TASKS = CsvLog(OUT / "tasks.csv", ["timestamp", "task_id", "status", "seconds", "code"])
    folder = Path(tempfile.mkdtemp(prefix="loadtest-video-"))
    try:
        VIDEO = make_test_video(folder)
    except (subprocess.SubprocessError, OSError) as exc:
        log.warning("no test video (%s): the video client stays idle", exc)
    if VIDEO is None:
        shutil.rmtree(folder, ignore_errors=True)
    if CLONE_USERS > 0:
        VOICE_SAMPLE = make_voice_sample(Path(tempfile.mkdtemp(prefix="loadtest-voice-")))


@events.quitting.add_listener
def close_logs(**_: Any) -> None:
    for sink in (ERRORS, STAGES, TASKS):
        if sink is not None:
            sink.close()
    for made in (VIDEO, VOICE_SAMPLE):
        if made is not None:
            shutil.rmtree(made.parent, ignore_errors=True)


_addresses = itertools.count()


def use_own_loopback_address(user: HttpUser) -> None:
    """Connect from a loopback address of the user's own (127.0.x.y), so each counts as one client."""
    if urlsplit(user.host or "").hostname not in ("127.0.0.1", "localhost") or os.environ.get("LOADTEST_SHARED_ADDRESS"):
        return
    n = next(_addresses)
    address = f"127.0.{1 + n // 200}.{2 + n % 200}"
    user.client.mount("http://", LocustHttpAdapter(pool_manager=PoolManager(source_address=(address, 0))))


class LanguageListUser(HttpUser):
    """Anonymous clients refreshing the language list; mostly ``304 Not Modified`` thanks to ``ETag``."""

    weight = 3
    wait_time = between(1, 3)

    def on_start(self) -> None:
        self.etags: dict[str, str] = {}
        use_own_loopback_address(self)

    def revalidate(self, path: str, name: str) -> None:
        headers = {"If-None-Match": self.etags[path]} if path in self.etags else {}
        response = call(self.client, "GET", path, name=name, ok=(200, 304), headers=headers)
        if response.headers.get("ETag"):
            self.etags[path] = response.headers["ETag"]

    @task(4)
    def languages(self) -> None:
        self.revalidate("/v1/languages", "/v1/languages")

    @task(1)
    def targets_of_english(self) -> None:
        self.revalidate("/v1/languages?source=en", "/v1/languages?source")


class AuthenticatedUser(HttpUser):
    abstract = True

    def on_start(self) -> None:
        self.client.headers["Authorization"] = f"Bearer {TOKEN}"


class GameClient(AuthenticatedUser):
    """Studios localizing UI strings (fast engines) and dialogue (the LLM); they barely think during the spike."""

    weight = 2

    def wait_time(self) -> float:
        return random.uniform(*CURRENT.game_think_s)

    @task(4)
    def localize_ui(self) -> None:
        body = {"text": random.choice(UI_STRINGS), "content_type": "ui", "source_lang": "en", "target_langs": GAME_TARGETS}
        call(self.client, "POST", "/v1/game/localization", json=body)

    @task(1)
    def localize_dialogue(self) -> None:
        if not DIALOGUE_TARGETS:
            return
        body = {
            "text": random.choice(DIALOGUE),
            "content_type": "dialogue",
            "source_lang": "en",
            "target_langs": DIALOGUE_TARGETS,
        }
        call(self.client, "POST", "/v1/game/localization", name="/v1/game/localization [dialogue]", json=body)

    @task(1)
    def account(self) -> None:
        call(self.client, "GET", "/v1/account")


class GrammarClient(AuthenticatedUser):
    weight = 1
    wait_time = between(1, 3)

    @task
    def check(self) -> None:
        call(self.client, "POST", "/v1/grammar", json=random.choice(GRAMMAR_TEXTS))


class SpeechClient(AuthenticatedUser):
    """Apps reading short notices aloud with a language's default voice (``POST /v1/tts``, the audio read whole)."""

    weight = 1
    wait_time = between(1, 3)

    @task
    def speak(self) -> None:
        body = {"text": random.choice(NOTICES), "lang": TTS_LANG, "output_format": random.choice(("mp3", "wav"))}
        call(self.client, "POST", "/v1/tts", json=body, headers={"Accept": "*/*"})


class VoiceCloneClient(AuthenticatedUser):
    """One voice at a time: clone it from the generated sample, speak with it, delete it, pause."""

    fixed_count = max(CLONE_USERS, 1)
    wait_time = constant(CLONE_PAUSE_S)

    @task
    def clone_speak_delete(self) -> None:
        if VOICE_SAMPLE is None:  # LOADTEST_CLONE_USERS=0: stays idle
            return
        form = {"voice_name": f"loadtest {uuid.uuid4().hex[:12]}", "lang": "en"}
        with VOICE_SAMPLE.open("rb") as sample:
            files = {"sample": ("sample.wav", sample, "audio/wav")}
            response = call(self.client, "POST", "/v1/voice/clone", files=files, data=form, timeout=CLONE_TIMEOUT_S)
        voice_id = response.json().get("voice_id") if response.status_code == 200 else None
        if not voice_id:
            return
        try:
            body = {"text": random.choice(NOTICES), "voice": voice_id, "output_format": "mp3"}
            call(self.client, "POST", "/v1/tts", name="/v1/tts [cloned voice]", json=body, headers={"Accept": "*/*"})
        finally:  # free the slot (10 voices per account) whatever the speech did
            call(self.client, "DELETE", f"/v1/voice/clone/{voice_id}", name="/v1/voice/clone/{id}")


class VideoClient(AuthenticatedUser):
    """One upload at a time: submit, poll until the task ends, pause, repeat."""

    fixed_count = 1
    wait_time = constant(VIDEO_PAUSE_S)

    @task
    def translate(self) -> None:
        if VIDEO is None:  # no ffmpeg: stays idle
            return
        started = time.time()
        form = {"target_lang": VIDEO_TARGET, "output_format": "srt"}
        with VIDEO.open("rb") as clip:
            files = {"file": ("clip.mp4", clip, "video/mp4")}
            response = call(self.client, "POST", "/v1/video/translate", files=files, data=form, timeout=60)
        if response.status_code != 200:
            return
        task_id = response.json()["task_id"]
        while time.time() - started < VIDEO_GIVE_UP_S:
            time.sleep(VIDEO_POLL_S)
            poll = call(self.client, "GET", f"/v1/video/task/{task_id}", name="/v1/video/task/{id}")
            state = poll.json() if poll.status_code == 200 else {}
            if state.get("status") in ("completed", "failed", "expired"):
                self.record(task_id, state, time.time() - started)
                return
        self.record(task_id, {"status": "gave up"}, time.time() - started)

    @staticmethod
    def record(task_id: str, state: dict[str, Any], seconds: float) -> None:
        error = state.get("error")
        code = str(error.get("code", "")) if isinstance(error, dict) else (str(error) if error else "")
        if TASKS is not None:
            TASKS.write(f"{time.time():.3f}", task_id, state.get("status"), f"{seconds:.1f}", code)
        if state.get("status") != "completed" and ERRORS is not None:
            ERRORS.write(f"{time.time():.3f}", "video task", "task", code or state.get("status"))


class StagedLoad(LoadTestShape):
    """The stages of ``LOADTEST_SHAPE``; logs each stage change and stops after the last one."""

    def __init__(self) -> None:
        super().__init__()
        self.plan = stages(Settings.from_env())
        self.logged = ""

    def tick(self) -> tuple[int, float] | None:
        global CURRENT
        stage = stage_at(self.plan, self.get_run_time())
        name = stage.name if stage else "end"
        if name != self.logged and STAGES is not None:
            STAGES.write(f"{time.time():.3f}", name)
            self.logged = name
        if stage is None:
            return None
        CURRENT = stage
        return stage.users, stage.spawn_rate
