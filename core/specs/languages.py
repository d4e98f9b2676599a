"""Language-code fields, marked so the API document can list every code the service knows.

Validation of a code happens where the catalogue is (the HTTP edge); the
marker lets the API document replace it with an ``enum`` of the
catalogue's codes and regional variants, so generated clients offer exactly
the values the service accepts.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

#: JSON-schema key of the marker; its value says whether ``auto`` (detect) is allowed too.
LANGUAGE_CODE = "x-language-code"
CODE = "code"
CODE_OR_AUTO = "code-or-auto"

#: A catalogue code or regional variant (``en``, ``pt-BR``).
LanguageCode = Annotated[str, Field(min_length=1, max_length=16, json_schema_extra={LANGUAGE_CODE: CODE})]
