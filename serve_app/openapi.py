"""OpenAPI 3.1 document generated from the routes' pydantic models and error kinds."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from starlette.routing import BaseRoute

from serve_app.errors import ErrorKind, group_for_path, resolve
from serve_app.routing import ApiRoute

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


def openapi_document(routes: Iterable[BaseRoute]) -> dict[str, Any]:
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}
    paths: dict[str, dict[str, Any]] = defaultdict(dict)
    for route in routes:
        if not isinstance(route, ApiRoute):
            continue
        for method in sorted((route.methods or set()) - {"HEAD"}):
            paths[_openapi_path(route.path)][method.lower()] = _operation(route, schemas)
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": dict(paths),
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


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
        op["requestBody"] = {"required": True, "content": {doc.body_content_type: {"schema": _ref(doc.body, schemas)}}}
    ok: dict[str, Any] = {"description": "Success"}
    if doc.response:
        ok["content"] = {"application/json": {"schema": _ref(doc.response, schemas)}}
    op["responses"] = {str(doc.status): ok, **_error_responses(route.path, doc.errors, doc.auth)}
    return op


def _ref(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template=_REF)
    for name, sub in schema.pop("$defs", {}).items():
        schemas[name] = sub
    schemas[model.__name__] = schema
    return {"$ref": _REF.format(model=model.__name__)}


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
    all_kinds = list(kinds) + ([ErrorKind.UNAUTHORIZED] if auth else []) + [ErrorKind.INTERNAL]
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


def render_docs_page(document: dict[str, Any]) -> str:
    """A self-contained HTML page (no external assets) listing every operation."""
    parts = [f"<h1>{html.escape(TITLE)} {VERSION}</h1>", "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p>"]
    for path, ops in sorted(document["paths"].items()):
        for method, op in ops.items():
            parts.append(_render_operation(method, path, op))
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:auto}code{background:#eee}td,th{border:1px solid #ccc;padding:2px 6px}"
    )
    head = f"<meta charset='utf-8'><title>{TITLE}</title><style>{style}</style>"
    return f"<!doctype html><html><head>{head}</head><body>{''.join(parts)}</body></html>"


def _render_operation(method: str, path: str, op: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td><code>{html.escape(p['name'])}</code></td><td>{p['in']}</td><td>{'yes' if p['required'] else 'no'}</td>"
        f"<td>{html.escape(str(p.get('description', '')))}</td></tr>"
        for p in op.get("parameters", [])
    )
    errors = "".join(
        f"<tr><td>{status}</td><td>{html.escape(resp['description'])}</td></tr>" for status, resp in op["responses"].items()
    )
    auth = "Bearer token" if op.get("security") else "none"
    params = f"<table><tr><th>name</th><th>in</th><th>required</th><th>about</th></tr>{rows}</table>" if rows else ""
    return (
        f"<h2><code>{method.upper()} {html.escape(path)}</code></h2><p>{html.escape(op['summary'])}. "
        f"{html.escape(op.get('description', ''))} Auth: {auth}.</p>{params}"
        f"<table><tr><th>status</th><th>codes</th></tr>{errors}</table>"
    )
