"""RFC 9457 problem bodies: every refusal of ``cutover serve`` is ``application/problem+json``.

A problem has ``type`` (``about:blank``: the status says it all), ``title`` (the status phrase),
``status`` and ``detail`` (a message a person can act on), and, for refused input, ``field``
(where: ``$.payload.a[3]`` or a parameter's name) and ``errors`` (every field at fault). No
problem ever quotes the refused value: bodies and tokens stay out of responses and logs.
"""

from __future__ import annotations

from http import HTTPStatus
from collections.abc import Mapping
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

MEDIA_TYPE = "application/problem+json"
SCHEMA_NAME = "Problem"
SCHEMA: dict[str, Any] = {
    "title": SCHEMA_NAME,
    "description": "An RFC 9457 problem. `field` names the part of the request at fault (a JSON path into "
                   "the body, or a parameter); the refused value is never quoted.",
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "field": {"type": "string"},
        "errors": {"type": "array", "items": {
            "type": "object", "required": ["field", "message"],
            "properties": {"field": {"type": "string"}, "message": {"type": "string"}}}},
    },
}


class ProblemResponse(JSONResponse):
    media_type = MEDIA_TYPE


def problem(status: int, detail: str, *, headers: Mapping[str, str] | None = None, **extra: Any) -> ProblemResponse:
    """Return the problem response for ``status`` with ``detail`` and extension members ``extra``."""
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    return ProblemResponse(body, status_code=status, headers=headers)


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    # ("body", "payload", 3) -> "$.payload[3]"; ("path", "job_id") -> "job_id"
    where, *rest = loc or ("body",)
    if where != "body":
        return ".".join(str(p) for p in rest) or str(where)
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest)


def validation_problem(exc: RequestValidationError) -> ProblemResponse:
    """Render FastAPI's validation errors without their ``input`` (which may be payload)."""
    errors = [{"field": _field(e.get("loc", ())), "message": str(e.get("msg", "is invalid"))} for e in exc.errors()]
    first = errors[0] if errors else {"field": "$", "message": "is invalid"}
    return problem(422, f"{first['field']}: {first['message']}", field=first["field"], errors=errors)


def describe(document: dict[str, Any]) -> None:
    """Make every 4xx/5xx response of ``document`` a problem, and add the Problem schema."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas[SCHEMA_NAME] = SCHEMA
    for name in ("HTTPValidationError", "ValidationError", "Error"):
        schemas.pop(name, None)
    ref = {"$ref": f"#/components/schemas/{SCHEMA_NAME}"}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for code, response in operation.get("responses", {}).items():
                if code[:1] in "45":
                    response["content"] = {MEDIA_TYPE: {"schema": ref}}
