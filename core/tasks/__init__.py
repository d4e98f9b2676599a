"""Asynchronous tasks: the record and its states, the store, the job stream, speed estimates."""

from core.tasks.model import InvalidTransition, Task, TaskState, iso
from core.tasks.queue import Job, JobQueue
from core.tasks.speed import SpeedStats
from core.tasks.store import TaskStore

__all__ = ["InvalidTransition", "Job", "JobQueue", "SpeedStats", "Task", "TaskState", "TaskStore", "iso"]
