"""Reading the LLM translator's answers: exactly one translation per segment, or ``OutputMismatch``.

A batch is answered as JSON (``{"translations": [...]}``), which small models
wrap in code fences, precede with chatter or replace with numbered lines; a
single one-line segment is answered as plain text, sometimes labelled or
quoted. Anything that does not hold exactly the expected count is refused, so
a wrong count never silently misaligns subtitles.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any


class OutputMismatch(ValueError):
    """The model's answer does not hold exactly one string per segment."""


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_NUMBERED = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)[.):])\s?(.*)$")

#: Why an answer was refused (an output check's reason), as told to the model in the re-ask.
PROBLEMS = {
    "language": "translation {n} is not written in the target language ({lang})",
    "echo": "translation {n} repeats the source text instead of translating it",
    "markup": "translation {n} changed, added or dropped tokens like <x0/>",
    "length": "translation {n} is far longer or shorter than its source",
    "empty": "translation {n} is empty",
}


def parse_translations(content: str, expected: int) -> list[str]:
    """Exactly ``expected`` translations from an answer, or ``OutputMismatch``.

    JSON is tried first (inside code fences or after leading chatter), then
    numbered lines, because small models drift between the two.
    """
    found = _json_items(content)
    if found is None:
        found = _numbered_items(content)
    if found is None:
        raise OutputMismatch("no JSON list of translations and no numbered lines found")
    if len(found) != expected:
        raise OutputMismatch(f"expected {expected} translations, got {len(found)}")
    return found


def is_plain(texts: list[str]) -> bool:
    """One single-line segment is asked and answered as plain text."""
    return len(texts) == 1 and "\n" not in texts[0] and "\r" not in texts[0]


def plain_answer(answer: str, source: str) -> list[str]:
    """The translation in a plain answer: labels and quotes the source did not have are dropped.

    A JSON answer of the batch shape is accepted too (servers or models that
    answer JSON anyway).
    """
    try:
        return parse_translations(answer, 1)
    except OutputMismatch:
        pass
    text = answer.strip()
    text = re.sub(r"^(?:translation|traducción|traduction|übersetzung)\s*:\s*", "", text, flags=re.IGNORECASE)
    for left, right in ('""', "“”", "«»", "「」", "''"):
        if len(text) >= 2 and text[0] == left and text[-1] == right and not source.startswith(left):
            text = text[1:-1].strip()
    if not text:
        raise OutputMismatch("the answer is empty")
    return [text]


def _json_items(content: str) -> list[str] | None:
    """The first JSON value in the text that has the translations shape."""
    for candidate in (*_FENCE.findall(content), content):
        for value in _json_values(candidate):
            items = _translations_of(value)
            if items is not None:
                return items
    return None


def _json_values(text: str) -> Iterator[Any]:
    """Each outermost JSON object or array in ``text``, left to right.

    Values nested in one already decoded are skipped, so a rejected object
    cannot smuggle in one of its inner lists.
    """
    decoder = json.JSONDecoder()
    end = 0
    for match in re.finditer(r"[\[{]", text):
        if match.start() < end:
            continue
        try:
            value, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        yield value


def _translations_of(value: Any) -> list[str] | None:
    """The list in ``{"translations": [...]}``, or a bare list of strings.

    Numbers are accepted only under the explicit key: a bare ``[4]`` is more
    likely a ``[4] ...`` line marker than an answer.
    """
    if isinstance(value, list):
        return value if all(isinstance(v, str) for v in value) else None
    if not isinstance(value, dict):
        return None
    items = value.get("translations", _single_list(value))
    if not isinstance(items, list) or not all(_is_scalar(v) for v in items):
        return None
    return [v if isinstance(v, str) else str(v) for v in items]


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _single_list(obj: dict[str, Any]) -> Any:
    """Tolerate a renamed key when the object holds exactly one list."""
    lists = [v for v in obj.values() if isinstance(v, list)]
    return lists[0] if len(obj) == 1 and lists else None


def _numbered_items(content: str) -> list[str] | None:
    """Items of a ``1. ...`` / ``2) ...`` / ``[3] ...`` list numbered from 1 in order."""
    items: list[str] = []
    for line in content.splitlines():
        match = _NUMBERED.match(line)
        number = int(match.group(1) or match.group(2)) if match else None
        if match and number == len(items) + 1:
            items.append(match.group(3))
        elif items and match is None:
            items[-1] += "\n" + line
        elif match:
            return None
    return [_unquote(i.rstrip()) for i in items] or None


def _unquote(item: str) -> str:
    """Undo the JSON quoting that the prompt used for each segment, if echoed."""
    if len(item) >= 2 and item[0] == item[-1] == '"':
        try:
            value = json.loads(item)
        except ValueError:
            return item
        return value if isinstance(value, str) else item
    return item
