"""Which target languages of a multi-target localization are still sent, and which the service refused.

``POST /v1/game/localization`` refuses a whole request when one of its targets is not served (400
with code 1002, contract 7). :class:`LiveTargets` then asks again once per target, alone, to learn
which ones are refused; those are dropped from every later request, and the others' answers to
those lone requests are kept, so no text is translated twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from mediatrans_client.errors import InvalidRequestError, MediatransError
from mediatrans_client.models import LocalizationResult

#: Codes of the game localization group that refuse a language (contract 7: 400 1002).
LANGUAGE_ERROR_CODES = frozenset({1002})

Send = Callable[[list[str]], LocalizationResult]  # one request for these targets


def refuses_language(exc: MediatransError) -> bool:
    """Whether ``exc`` is the service refusing a language code or pair, not the request's other fields."""
    return isinstance(exc, InvalidRequestError) and exc.status == 400 and exc.code in LANGUAGE_ERROR_CODES


class LiveTargets:
    """The requested targets less those refused so far; safe to share between threads."""

    def __init__(self, requested: Sequence[str]) -> None:
        self.requested = list(dict.fromkeys(requested))
        self.refused: dict[str, MediatransError] = {}
        self._isolating = threading.Lock()

    def live(self) -> list[str]:
        return [lang for lang in self.requested if lang not in self.refused]

    def send(self, send: Send) -> tuple[LocalizationResult, list[str]] | None:
        """``send`` for the live targets: the answer and the targets it covers; None once none is left.

        A language refusal is worked out target by target (one batch at a time; the others wait and
        then send with what is left). Any other error, or a refusal that no target causes alone,
        is raised.
        """
        while True:
            targets = self.live()
            if not targets:
                return None
            try:
                return send(targets), targets
            except MediatransError as exc:
                if not refuses_language(exc):
                    raise
                with self._isolating:
                    if self.live() != targets:
                        continue  # another batch dropped a target meanwhile: send with what is left
                    answer = self._isolate(send, targets, exc)
                if answer is not None:
                    return answer

    def _isolate(self, send: Send, targets: list[str], refusal: MediatransError) -> tuple[LocalizationResult, list[str]] | None:
        if len(targets) == 1:
            self.refused[targets[0]] = refusal
            return None
        answers: dict[str, LocalizationResult] = {}
        for lang in targets:
            try:
                answers[lang] = send([lang])
            except MediatransError as exc:
                if not refuses_language(exc):
                    raise
                self.refused[lang] = exc
        if len(answers) == len(targets):
            raise refusal  # each target is served alone: the request as a whole was refused
        if not answers:
            return None
        first = next(iter(answers.values()))
        merged = LocalizationResult(
            original=first.original,
            translations={lang: answer.translations[lang] for lang, answer in answers.items() if lang in answer.translations},
            content_type=first.content_type,
            genre=first.genre,
            tone=first.tone,
            shortened=[lang for lang, answer in answers.items() if lang in (answer.shortened or [])],
        )
        return merged, list(answers)
