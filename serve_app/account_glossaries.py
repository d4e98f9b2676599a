"""An account's glossaries at the edge: create, list, read, update and delete.

A glossary's languages are fixed at creation: a concrete source (never
``auto``; a variant becomes its primary code) and a target the service can
translate into from it (400 1002 otherwise). Another account's glossary is
403 2003; the store enforces unique names (409 1003) and the account's
storage caps (456 4002, :mod:`core.caps`). Answers are the API
representation (:func:`serve_app.schemas.glossary.public`).
"""

from __future__ import annotations

from typing import Any

from core import caps
from core.accounts import Account
from core.errors import ApiError, ErrorKind
from serve_app.auth import require_owner
from serve_app.bodies import parse_model
from serve_app.schemas.glossary import GlossaryCreate, GlossaryListQuery, GlossaryUpdate, public
from serve_app.services import Services


async def with_canonical_languages(services: Services, body: GlossaryCreate) -> GlossaryCreate:
    """``body`` with its languages' canonical codes, once the service translates that pair."""
    if body.source_lang.strip().lower() == "auto":
        raise ApiError(
            ErrorKind.INVALID_PARAMETER,
            "A glossary needs a concrete source_lang, never auto.",
            details=[{"field": "source_lang", "message": "auto is not allowed"}],
        )
    source = services.catalog.resolve(body.source_lang, "source_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE, as_primary=True)
    target = services.catalog.resolve(body.target_lang, "target_lang", kind=ErrorKind.UNSUPPORTED_LANGUAGE)
    caps = await services.capabilities.get()
    if (source, target) not in caps.translation_pairs:
        raise ApiError(ErrorKind.UNSUPPORTED_LANGUAGE, caps.refusal(source, target))
    return body.model_copy(update={"source_lang": source, "target_lang": target})


async def create(services: Services, account: Account, body: GlossaryCreate) -> dict[str, Any]:
    """Store ``body`` (its languages already canonical) as a new glossary of the account."""
    record = await services.glossaries.create(account.id, body.model_dump(), caps.resolve(account))
    return public(record)


async def list_page(services: Services, account: Account, query: GlossaryListQuery) -> dict[str, Any]:
    """One page of the account's glossaries, oldest first, without entries."""
    try:
        page = await services.glossaries.page(account.id, limit=query.limit, cursor=query.cursor)
    except ValueError as exc:
        raise ApiError(ErrorKind.INVALID_PARAMETER, f"cursor: {exc}") from None
    body: dict[str, Any] = {"glossaries": [public(r, with_entries=False) for r in page.records], "total": page.total}
    if page.next_cursor:
        body["next_cursor"] = page.next_cursor
    return body


async def owned(services: Services, account: Account, glossary_id: str) -> dict[str, Any]:
    """The stored record; 404 when missing, 403 when another account's."""
    record = await services.glossaries.get(glossary_id)
    if record is None:
        raise _missing()
    require_owner(account, record["account_id"], "glossary")
    return record


async def update(services: Services, account: Account, record: dict[str, Any], body: GlossaryUpdate) -> dict[str, Any]:
    """Replace the fields ``body`` gives; the whole glossary is checked again (unique terms under the new case rule)."""
    changes = body.model_dump(exclude_unset=True)
    if any(v is None for k, v in changes.items() if k != "description"):
        raise ApiError(ErrorKind.INVALID_PARAMETER, "Only description may be set to null.")
    current = {k: record[k] for k in GlossaryCreate.model_fields if k in record}
    merged = parse_model(GlossaryCreate, {**current, **changes})
    updated = await services.glossaries.update(
        record["glossary_id"], merged.model_dump(include=set(changes)), caps.resolve(account)
    )
    return public(updated)


async def delete(services: Services, record: dict[str, Any]) -> dict[str, Any]:
    if not await services.glossaries.delete(record["glossary_id"]):
        raise _missing()
    return {"glossary_id": record["glossary_id"], "deleted": True}


def _missing() -> ApiError:
    return ApiError(ErrorKind.NOT_FOUND, "No such glossary.")
