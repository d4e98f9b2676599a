"""Request ids in log lines: ours at the edge and in a task's job, Serve's in the replicas it calls."""

from __future__ import annotations

import contextvars
import logging

from core.context import RequestIdFilter, adopt_request_id, current_request_id, request_id_var


def _in_fresh_context(fn):  # type: ignore[no-untyped-def]
    return contextvars.Context().run(fn)


def test_a_replica_without_our_id_logs_the_one_serve_carried() -> None:
    def replica() -> str:
        from ray.serve.context import _set_request_context

        assert current_request_id() == "-"
        _set_request_context(request_id="req-from-proxy")
        record = logging.LogRecord("mediatrans.test", logging.INFO, __file__, 1, "hello", None, None)
        RequestIdFilter().filter(record)
        return record.request_id

    assert _in_fresh_context(replica) == "req-from-proxy"


def test_a_task_adopts_its_request_id_for_itself_and_the_calls_it_makes() -> None:
    def job() -> tuple[str, str, str]:
        from ray.serve.context import _get_serve_request_context

        token = adopt_request_id("task-req-1")
        seen = (current_request_id(), _get_serve_request_context().request_id)
        request_id_var.reset(token)
        return (*seen, request_id_var.get())

    assert _in_fresh_context(job) == ("task-req-1", "task-req-1", "-")
