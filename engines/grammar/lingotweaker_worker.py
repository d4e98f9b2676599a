"""One LanguageTool language in a process of its own (``lingotweaker_engine.py`` starts it).

Run as ``python -I lingotweaker_worker.py <LanguageTool code> [<variant>]`` (``pt pt-BR``: the variant's
rules and speller, without the other variants' rules). Loading a language
holds the interpreter lock for up to several seconds, so each language lives in
its own process: a load never pauses checks in other languages, and a language's
memory is that process's resident set (reported in the ready line).

Protocol, one JSON object per line: ``{"id": N, "text": "..."}`` → ``{"id": N,
"matches": [[rule_id, offset, length, issue_type, category_id, message,
[suggestions]], ...]}`` with LanguageTool's UTF-8 byte offsets, or ``{"id": N,
"error": "..."}``. The first line out is ``{"ready": true, "rules": count,
"rss_kb": resident set}`` or ``{"ready": false, "error": "..."}``. Requests are
checked on ``THREADS`` threads (the engine is thread-safe and releases the
interpreter lock while checking), so replies may come out of order.
"""

from __future__ import annotations

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

SUGGESTIONS = 5
THREADS = 2
_out = threading.Lock()


def _rss_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _send(reply: dict) -> None:
    line = json.dumps(reply, ensure_ascii=False) + "\n"
    with _out:
        sys.stdout.write(line)
        sys.stdout.flush()


def main() -> None:
    try:
        import lt_py

        engine = lt_py.Engine(sys.argv[1], variant=sys.argv[2] if len(sys.argv) > 2 else None)
    except Exception as exc:  # a missing data pack or an unknown code: the parent reports it
        _send({"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    _send({"ready": True, "rules": engine.rule_count, "rss_kb": _rss_kb()})
    with ThreadPoolExecutor(THREADS) as pool:
        for line in sys.stdin:
            pool.submit(_answer, engine, json.loads(line))


def _answer(engine, request: dict) -> None:  # type: ignore[no-untyped-def]
    try:
        matches = [
            [
                m["rule_id"],
                m["offset"],
                m["length"],
                m.get("issue_type") or "",
                m.get("category_id") or "",
                m.get("message") or "",
                list(m.get("suggestions") or [])[:SUGGESTIONS],
            ]
            for m in engine.check(request["text"])
        ]
        _send({"id": request["id"], "matches": matches})
    except Exception as exc:
        _send({"id": request["id"], "error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":
    main()
