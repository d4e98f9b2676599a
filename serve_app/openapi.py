"""OpenAPI 3.1 document generated from the routes' pydantic models and error kinds."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from starlette.routing import BaseRoute

from core.errors import ErrorKind, group_for_path, resolve
from core.specs.languages import CODE_OR_AUTO, LANGUAGE_CODE
from serve_app.openapi_examples import EXAMPLES
from serve_app.routing import ApiResource, ApiRoute, RouteDoc

TITLE = "Media Translation API"
VERSION = "1.0.0"
_REF = "#/components/schemas/{model}"

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message", "request_id"],
    "properties": {
        "code": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "Contract code of the endpoint group."},
        "message": {"type": "string"},
        "request_id": {"type": "string"},
        "details": {"type": "array", "items": {"type": "object"}},
    },
}


@dataclasses.dataclass(frozen=True)
class JsonOrFormDoc(RouteDoc):
    """An operation whose body is JSON (``body``) or multipart/form-data: ``form``'s text fields and ``form_files``."""

    form: type[BaseModel] | None = None


def openapi_document(routes: Iterable[BaseRoute], language_codes: Sequence[str] = ()) -> dict[str, Any]:
    """The document for ``routes``; fields marked as language codes list ``language_codes``."""
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}
    paths: dict[str, dict[str, Any]] = defaultdict(dict)
    for route in _operations(routes):
        for method in sorted((route.methods or set()) - {"HEAD"}):
            paths[_openapi_path(route.path)][method.lower()] = _operation(route, schemas)
    document = {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": dict(paths),
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
    _language_enums(document, list(language_codes))
    return document


def _operations(routes: Iterable[BaseRoute]) -> list[ApiRoute]:
    found: list[ApiRoute] = []
    for route in routes:
        if isinstance(route, ApiResource):
            found.extend(op for op in route.operations.values() if all(op is not seen for seen in found))
        elif isinstance(route, ApiRoute):
            found.append(route)
    return found


def _language_enums(node: Any, codes: list[str]) -> None:
    """Replace every language-code marker with the codes the service accepts (and ``auto`` where allowed)."""
    if isinstance(node, list):
        for item in node:
            _language_enums(item, codes)
        return
    if not isinstance(node, dict):
        return
    kind = node.pop(LANGUAGE_CODE, None)
    if kind is not None and codes:
        allowed = [*codes, "auto"] if kind == CODE_OR_AUTO else codes
        strings = [b for b in node.get("anyOf", []) if b.get("type") == "string"]
        for target in strings or [node]:
            target["enum"] = allowed
    for value in node.values():
        _language_enums(value, codes)


def _openapi_path(path: str) -> str:
    """``/v1/files/{key:path}`` → ``/v1/files/{key}`` (Starlette converters are not OpenAPI)."""
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", path)


def _operation(route: ApiRoute, schemas: dict[str, Any]) -> dict[str, Any]:
    doc = route.doc
    op: dict[str, Any] = {"summary": doc.summary, "tags": [doc.tag] if doc.tag else []}
    if doc.description:
        op["description"] = doc.description
    if doc.auth:
        op["security"] = [{"bearer": []}]
    params = _path_params(route.path) + (_query_params(doc.query) if doc.query else [])
    if doc.idempotent_create:
        params.append(
            {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string", "maxLength": 255}}
        )
    if params:
        op["parameters"] = params
    if doc.body:
        multipart = doc.body_content_type == "multipart/form-data"
        schema = _form_ref(doc.body, doc, schemas) if multipart else _ref(doc.body, schemas)
        content = {doc.body_content_type: _media(doc.body, schema)}
        if isinstance(doc, JsonOrFormDoc) and doc.form is not None:
            content["multipart/form-data"] = _media(doc.form, _form_ref(doc.form, doc, schemas))
        op["requestBody"] = {"required": True, "content": content}
    ok: dict[str, Any] = {"description": "Success"}
    if doc.response:
        ok["content"] = {"application/json": {"schema": _ref(doc.response, schemas)}}
    op["responses"] = {str(doc.status): ok, **_error_responses(route.path, doc.errors, doc.auth)}
    return op


def _media(model: type[BaseModel], schema: dict[str, Any]) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": schema}
    if model.__name__ in EXAMPLES:
        media["example"] = EXAMPLES[model.__name__]
    return media


def _ref(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template=_REF)
    for name, sub in schema.pop("$defs", {}).items():
        schemas[name] = sub
    schemas[model.__name__] = schema
    return {"$ref": _REF.format(model=model.__name__)}


def _form_ref(model: type[BaseModel], doc: RouteDoc, schemas: dict[str, Any]) -> dict[str, Any]:
    """A multipart body: text fields without ``null`` (an omitted field takes its default), file parts as binary."""
    schema = model.model_json_schema(ref_template=_REF)
    for name, sub in schema.pop("$defs", {}).items():
        schemas[name] = sub
    for name, prop in schema.get("properties", {}).items():
        branches = [b for b in prop.pop("anyOf", []) if b.get("type") != "null"]
        if len(branches) == 1:
            prop.update(branches[0])
        elif branches:
            prop["anyOf"] = branches
        if prop.get("default", 0) is None:
            del prop["default"]
        schema["properties"][name] = prop
    for name in doc.form_files:
        schema["properties"][name] = {"type": "string", "format": "binary", "description": f"The {name} to upload."}
    if doc.exactly_one_of:
        schema["oneOf"] = [{"required": [name]} for name in doc.exactly_one_of]
    if isinstance(doc, JsonOrFormDoc):  # the form's file parts are what it is for
        schema["required"] = [*schema.get("required", []), *doc.form_files]
    name = f"{model.__name__}Form"
    schemas[name] = schema
    return {"$ref": _REF.format(model=name)}


def _query_params(model: type[BaseModel]) -> list[dict[str, Any]]:
    schema = model.model_json_schema()
    required = set(schema.get("required", []))
    return [
        {"name": name, "in": "query", "required": name in required, "schema": prop, "description": prop.get("description", "")}
        for name, prop in schema.get("properties", {}).items()
    ]


def _path_params(path: str) -> list[dict[str, Any]]:
    names = [part[1:-1].split(":")[0] for part in path.split("/") if part.startswith("{")]
    return [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names]


def _error_responses(path: str, kinds: Iterable[ErrorKind], auth: bool) -> dict[str, Any]:
    # Any operation can fail inside (500) or be shed by the ingress's in-flight limit (503 + Retry-After).
    all_kinds = list(kinds) + ([ErrorKind.UNAUTHORIZED] if auth else []) + [ErrorKind.INTERNAL, ErrorKind.UNAVAILABLE]
    by_status: dict[int, list[str]] = defaultdict(list)
    for kind in dict.fromkeys(all_kinds):
        status, code = resolve(group_for_path(path), kind)
        by_status[status].append(f"{code} ({kind.value})")
    return {
        str(status): {
            "description": "; ".join(codes),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for status, codes in sorted(by_status.items())
    }
