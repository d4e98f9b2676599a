"""The /docs page: every operation of the OpenAPI document as self-contained HTML (no external assets)."""

from __future__ import annotations

import html
import json
from typing import Any

from serve_app.openapi import TITLE, VERSION

_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:auto}code{background:#eee}td,th{border:1px solid #ccc;padding:2px 6px}"
    "pre{background:#f6f6f6;padding:6px;overflow-x:auto}"
)


def render_docs_page(document: dict[str, Any]) -> str:
    """Parameters, request body fields with an example, and the error codes of each operation."""
    schemas = document.get("components", {}).get("schemas", {})
    parts = [f"<h1>{html.escape(TITLE)} {VERSION}</h1>", "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p>"]
    for path, ops in sorted(document["paths"].items()):
        for method, op in ops.items():
            parts.append(_operation(method, path, op, schemas))
    head = f"<meta charset='utf-8'><title>{TITLE}</title><style>{_STYLE}</style>"
    return f"<!doctype html><html><head>{head}</head><body>{''.join(parts)}</body></html>"


def _operation(method: str, path: str, op: dict[str, Any], schemas: dict[str, Any]) -> str:
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
        f"{html.escape(op.get('description', ''))} Auth: {auth}.</p>{params}{_body(op, schemas)}"
        f"<table><tr><th>status</th><th>codes</th></tr>{errors}</table>"
    )


def _body(op: dict[str, Any], schemas: dict[str, Any]) -> str:
    """The request body's fields (name, type, required, default, about) and its example."""
    content = op.get("requestBody", {}).get("content", {})
    if not content:
        return ""
    media_type, media = next(iter(content.items()))
    schema = _resolve(media.get("schema", {}), schemas)
    required = set(schema.get("required", []))
    rows = "".join(
        f"<tr><td><code>{html.escape(name)}</code></td><td>{html.escape(_type(prop, schemas))}</td>"
        f"<td>{'yes' if name in required else 'no'}</td>"
        f"<td>{html.escape(json.dumps(prop['default'])) if 'default' in prop else ''}</td>"
        f"<td>{html.escape(str(prop.get('description', '')))}</td></tr>"
        for name, prop in schema.get("properties", {}).items()
    )
    table = f"<table><tr><th>field</th><th>type</th><th>required</th><th>default</th><th>about</th></tr>{rows}</table>"
    example = media.get("example")
    shown = f"<p>Example:</p><pre>{html.escape(json.dumps(example, indent=2, ensure_ascii=False))}</pre>" if example else ""
    return f"<p>Body (<code>{html.escape(media_type)}</code>):</p>{table}{shown}"


def _resolve(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref", "")
    return schemas.get(ref.rsplit("/", 1)[-1], {}) if ref else schema


def _type(prop: dict[str, Any], schemas: dict[str, Any]) -> str:
    """A short type: ``string``, ``integer``, ``array of string``, ``one of a | b``, enum values, a model's name."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "enum" in prop:
        values = [str(v) for v in prop["enum"]]
        return " | ".join(values) if len(values) <= 8 else f"{' | '.join(values[:8])} | …"
    if "anyOf" in prop:
        return " or ".join(_type(branch, schemas) for branch in prop["anyOf"])
    if prop.get("type") == "array":
        return f"array of {_type(prop.get('items', {}), schemas)}"
    return str(prop.get("type", prop.get("format", "any")))
