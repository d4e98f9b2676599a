"""The LanguageTool server client (``languagetool-server``) against a stand-in LanguageTool server speaking the /v2 API.

No LanguageTool jar can be fetched on these machines (the cluster image runs the
real server), so a small HTTP server answers /v2/languages and /v2/check the way
LanguageTool does, offsets in UTF-16 code units as Java counts them. What is
tested is our side: the client, the mapping to types and rule ids, code-point
offsets, and errors when the server is away.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
import regex

from engines.errors import EngineUnavailable
from engines.grammar.languagetool_engine import LanguageToolEngine
from engines.grammar.types import CheckOptions
from engines.options import OptionsError
from tests.support.services import free_port

RULES = [  # (pattern, rule id, issue type, category, message, replacement)
    (r"\bteh\b", "MORFOLOGIK_RULE_EN_US", "misspelling", "TYPOS", "Possible spelling mistake found.", "the"),
    (r"\b(\w+) \1\b", "ENGLISH_WORD_REPEAT_RULE", "duplication", "MISC", "Possible typo: you repeated a word.", None),
    (r"\bin order to\b", "IN_ORDER_TO", "style", "REDUNDANCY", "Consider a shorter alternative.", "to"),
    (r" ,", "COMMA_PARENTHESIS_WHITESPACE", "whitespace", "TYPOGRAPHY", "Don't put a space before the comma.", ","),
]


def utf16(text: str, index: int) -> int:
    return len(text[:index].encode("utf-16-le")) // 2


class StandIn(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _json(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._json(
            [{"name": "English (US)", "code": "en", "longCode": "en-US"}, {"name": "German", "code": "de", "longCode": "de-DE"}]
        )

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        text = form["text"][0]
        matches = []
        for pattern, rule, issue_type, category, message, fix in RULES:
            for m in regex.finditer(pattern, text):
                matches.append(
                    {
                        "message": message,
                        "replacements": [{"value": fix if fix is not None else m.group(1)}],
                        "offset": utf16(text, m.start()),
                        "length": utf16(text, m.end()) - utf16(text, m.start()),
                        "context": {"text": text, "offset": 0, "length": 0},
                        "rule": {"id": rule, "issueType": issue_type, "category": {"id": category, "name": category}},
                    }
                )
        self._json({"matches": matches})


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_matches_become_issues_with_our_ids_types_and_code_point_offsets(server_url: str) -> None:
    engine = LanguageToolEngine(url=server_url, languages=["en", "de"])
    engine.start()
    text = "😀 東京 e\u0301 teh cat , in order to win win."
    issues = {i.rule_id: i for i in engine.check(text, CheckOptions("en"))}
    ids = {"MORFOLOGIK_RULE_EN_US", "ENGLISH_WORD_REPEAT_RULE", "IN_ORDER_TO", "COMMA_PARENTHESIS_WHITESPACE"}
    assert set(issues) == ids  # LanguageTool's own ids
    for issue in issues.values():
        assert text[issue.offset : issue.end] in ("teh", "win win", "in order to", " ,")
    speller = issues["MORFOLOGIK_RULE_EN_US"]
    assert (speller.type, speller.severity, speller.replacements, speller.also) == ("spelling", "error", ("the",), ("SPELLING",))
    assert issues["IN_ORDER_TO"].type == "wordiness" and issues["COMMA_PARENTHESIS_WHITESPACE"].type == "punctuation"
    assert [r.id for r in engine.rules()] == ["*"]  # the server's rule set is open-ended


def test_a_server_that_is_away_is_unavailable_not_a_crash() -> None:
    engine = LanguageToolEngine(url=f"http://127.0.0.1:{free_port()}", languages=["en"])
    with pytest.raises(EngineUnavailable):
        engine.start()
    with pytest.raises(OptionsError, match=r"option 'url': Field required"):
        LanguageToolEngine()
