"""What a client steers a translation with (docs/steering.md): context, instructions, glossaries, a memory.

One definition, shared by every request that translates: game localization (JSON), video and subtitle
submissions (forms), added languages (JSON). Forms cannot carry lists, so there ``glossary_ids`` is
comma-separated and ``instructions`` is given once per instruction (the form field repeated) or as one JSON
array; :func:`form_lists` turns both into lists before validation.

* ``context``: what the text is (product, scene, audience); shown to the translating model, never translated
  and never charged.
* ``instructions``: how to translate ("Use informal tú"); shown to the model as the client's rules.
* ``glossary_ids``: up to five glossaries; each applies to the target it is for, and two that give one
  source term different targets for the same pair are refused.
* ``memory_id``: a translation memory of the pair (docs/memories.md): exact matches are used verbatim, the
  closest pairs are shown to the model as examples, and revisions teach it.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

MAX_CONTEXT_CHARS = 2000
MAX_INSTRUCTIONS = 10
MAX_INSTRUCTION_CHARS = 300
MAX_GLOSSARIES = 5
#: Ids of stored resources (glossaries, memories): what their stores mint, with room to spare.
_ID = r"^[A-Za-z0-9_-]{1,64}$"
#: Control characters other than TAB and line breaks.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _printable(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    return value


def _one_line(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("an instruction must not be empty")
    if "\n" in value or "\r" in value or _CONTROL.search(value):
        raise ValueError("an instruction is one line, without control characters")
    return value


Instruction = Annotated[str, Field(max_length=MAX_INSTRUCTION_CHARS), AfterValidator(_one_line)]
ResourceId = Annotated[str, Field(pattern=_ID)]


def _distinct(ids: list[str]) -> list[str]:
    if len(set(ids)) != len(ids):
        raise ValueError("names a glossary more than once")
    return ids


class SteeringOptions(BaseModel):
    """The steering fields of a translating request (extensions; docs/steering.md)."""

    context: Annotated[str, AfterValidator(_printable)] | None = Field(
        None,
        max_length=MAX_CONTEXT_CHARS,
        description="Extension: what the text is (product, scene, audience), at most 2,000 characters. Shown to the "
        "translating model; never translated, never charged.",
    )
    instructions: list[Instruction] = Field(
        default_factory=list,
        max_length=MAX_INSTRUCTIONS,
        description='Extension: at most 10 instructions of at most 300 characters each, e.g. "Use informal tú". '
        "In a form: the field once per instruction, or one JSON array.",
    )
    glossary_ids: Annotated[list[ResourceId], AfterValidator(_distinct)] = Field(
        default_factory=list,
        max_length=MAX_GLOSSARIES,
        description="Extension: at most 5 glossaries (a form: comma-separated); each applies to the target it is for.",
    )
    memory_id: str | None = Field(
        None, pattern=_ID, description="Extension: a translation memory of this account for the pair (docs/memories.md)."
    )


def named_glossaries(glossary_id: str | None, glossary_ids: list[str]) -> list[str]:
    """Every glossary a request names, ``glossary_id`` (the contract's field) first, each once."""
    return list(dict.fromkeys(([glossary_id] if glossary_id else []) + list(glossary_ids)))


def form_lists(data: Any) -> Any:
    """Form conventions → lists: ``glossary_ids`` comma-separated; ``instructions`` repeated or a JSON array."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    ids = data.get("glossary_ids")
    if isinstance(ids, str):
        data["glossary_ids"] = [part.strip() for part in ids.split(",") if part.strip()]
    given = data.get("instructions")
    if isinstance(given, str):
        data["instructions"] = _instruction_list(given)
    return data


def _instruction_list(raw: str) -> Any:
    """One form value: a JSON array of strings, or one instruction."""
    text = raw.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError:
            raise ValueError("instructions: not a JSON array of strings") from None
        return parsed
    return [text] if text else []
