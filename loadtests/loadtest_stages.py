"""The staged load profiles of ``make loadtest``: ramp, spike, soak, or all of them in turn.

A profile is a list of stages; each holds a user count, how fast users are started or
stopped, and how long game clients think between requests (the spike shortens it, so
many localization requests are in flight at once and the Translator's autoscaler acts).
Durations and user counts come from the environment (the driver sets them from its flags):

    LOADTEST_SHAPE        ramp | spike | soak | all (default all)
    LOADTEST_USERS        users at the steady level (default 12)
    LOADTEST_SPIKE_USERS  users during the spike (default 60)
    LOADTEST_RAMP_S, LOADTEST_SPIKE_S, LOADTEST_SOAK_S, LOADTEST_COOLDOWN_S   stage lengths in seconds
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

SHAPES = ("ramp", "spike", "soak", "all")

#: Think time of a game client outside the spike, and during it (seconds, uniform between the two).
CALM_GAME_THINK_S = (1.0, 3.0)
SPIKE_GAME_THINK_S = (0.0, 0.2)


@dataclasses.dataclass(frozen=True)
class Stage:
    name: str
    duration_s: float
    users: int
    spawn_rate: float
    game_think_s: tuple[float, float] = CALM_GAME_THINK_S


@dataclasses.dataclass(frozen=True)
class Settings:
    shape: str = "all"
    users: int = 12
    spike_users: int = 60
    ramp_s: float = 90.0
    spike_s: float = 90.0
    soak_s: float = 180.0
    cooldown_s: float = 60.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        defaults = cls()

        def number(key: str, default: float) -> float:
            value = float(env.get(key, "") or default)
            if value <= 0:
                raise ValueError(f"{key} must be positive, got {value}")
            return value

        shape = env.get("LOADTEST_SHAPE", "") or defaults.shape
        if shape not in SHAPES:
            raise ValueError(f"LOADTEST_SHAPE={shape!r}: expected one of {', '.join(SHAPES)}")
        return cls(
            shape=shape,
            users=int(number("LOADTEST_USERS", defaults.users)),
            spike_users=int(number("LOADTEST_SPIKE_USERS", defaults.spike_users)),
            ramp_s=number("LOADTEST_RAMP_S", defaults.ramp_s),
            spike_s=number("LOADTEST_SPIKE_S", defaults.spike_s),
            soak_s=number("LOADTEST_SOAK_S", defaults.soak_s),
            cooldown_s=number("LOADTEST_COOLDOWN_S", defaults.cooldown_s),
        )


def stages(settings: Settings) -> list[Stage]:
    """The stages of the chosen shape, in order."""
    s = settings
    # Reach the steady level at 80% of the ramp, so its last part is a short plateau.
    ramp = Stage("ramp", s.ramp_s, s.users, max(s.users / (0.8 * s.ramp_s), 0.1))
    spike = Stage("spike", s.spike_s, s.spike_users, 20.0, SPIKE_GAME_THINK_S)
    soak = Stage("soak", s.soak_s, s.users, 20.0)
    if s.shape == "ramp":
        return [ramp]
    if s.shape == "spike":
        # A short steady baseline before the spike, then a recovery long enough to see the scale-down.
        return [Stage("baseline", 30.0, s.users, 5.0), spike, Stage("recovery", max(s.cooldown_s, 90.0), s.users, 20.0)]
    if s.shape == "soak":
        return [Stage("soak", s.soak_s, s.users, max(s.users / 10.0, 1.0))]
    return [ramp, spike, soak, Stage("cooldown", s.cooldown_s, max(s.users // 10, 1), 5.0)]


def total_seconds(settings: Settings) -> float:
    return sum(stage.duration_s for stage in stages(settings))


def stage_at(plan: list[Stage], run_time_s: float) -> Stage | None:
    """The stage running ``run_time_s`` seconds into the test; None once the plan is over."""
    end = 0.0
    for stage in plan:
        end += stage.duration_s
        if run_time_s < end:
            return stage
    return None
