"""Locust users per endpoint with a staged load shape.

Run in its own process (locust and ray.init in one process hang):

    MEDIATRANS_TOKEN=mt_... .venv/bin/locust -f loadtests/locustfile.py --host http://127.0.0.1:8000 --headless
"""

from __future__ import annotations

import os

from locust import HttpUser, LoadTestShape, between, task

TOKEN = os.environ.get("MEDIATRANS_TOKEN", "")
UI_STRING = (
    "Welcome back, {player}! Your <color=#ffd700>daily reward</color> of %d gold is ready. "
    "Press [b]Claim[/b] before midnight to keep your streak alive."
)


class LanguageListUser(HttpUser):
    """Anonymous clients refreshing the language list (mostly cache hits via ETag)."""

    wait_time = between(0.5, 2)
    weight = 3

    def on_start(self) -> None:
        self.etag = ""

    @task(3)
    def languages(self) -> None:
        with self.client.get("/v1/languages", headers={"If-None-Match": self.etag}, catch_response=True) as r:
            if r.status_code in (200, 304):
                self.etag = r.headers.get("ETag", self.etag)
                r.success()

    @task(1)
    def pairs(self) -> None:
        self.client.get("/v1/languages?source=en", name="/v1/languages?source")


class GameClient(HttpUser):
    """Authenticated API clients localizing UI strings into several languages."""

    wait_time = between(0.2, 1)
    weight = 2

    def on_start(self) -> None:
        self.client.headers["Authorization"] = f"Bearer {TOKEN}"

    @task(5)
    def localize(self) -> None:
        body = {"text": UI_STRING, "content_type": "ui", "source_lang": "en", "target_langs": ["es", "pt-BR", "ca", "fr", "it"]}
        self.client.post("/v1/game/localization", json=body)

    @task(1)
    def account(self) -> None:
        self.client.get("/v1/account")


class Staged(LoadTestShape):
    """Ramp up, hold, spike, recover; stops by itself."""

    stages = ((30, 10, 2), (90, 30, 5), (120, 60, 10), (150, 10, 5))

    def tick(self) -> tuple[int, float] | None:
        run_time = self.get_run_time()
        for end, users, rate in self.stages:
            if run_time < end:
                return users, rate
        return None
