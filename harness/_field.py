"""Typed reads of JSON/TOML fields that name the file, line and field when a value is wrong."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from harness.errors import RecordingError
from queue_core.payload import json_type

JSONObject = dict[str, Any]
ErrorFactory = Callable[[str, int | None, str | None, str], Exception]

_MISSING = object()
type_name = json_type  # one naming of JSON types ("an array", "an object"), for every message


def parse_timestamp(text: str) -> datetime:
    """Parse an RFC 3339 timestamp that carries an offset; raise ValueError otherwise."""
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        raise ValueError("timestamp has no UTC offset")
    return value


def format_timestamp(value: datetime) -> str:
    """Format an aware datetime as RFC 3339 in UTC with a ``Z`` suffix (milliseconds kept)."""
    utc = value.astimezone(UTC)
    text = utc.isoformat(timespec="milliseconds" if utc.microsecond else "seconds")
    return text.replace("+00:00", "Z")


class FieldReader:
    """Read typed fields from one JSON object, raising an error that names file, line and field."""

    def __init__(
        self,
        obj: Mapping[str, Any],
        path: str,
        line: int | None,
        *,
        prefix: str = "",
        error: ErrorFactory = RecordingError,
    ) -> None:
        self.obj = obj
        self.path = path
        self.line = line
        self.prefix = prefix
        self.error = error

    def fail(self, name: str | None, message: str) -> Exception:
        """Build (not raise) the error for field ``name`` of this object."""
        field = f"{self.prefix}{name}" if name else (self.prefix.rstrip(".") or None)
        return self.error(self.path, self.line, field, message)

    def _get(self, name: str, required: bool) -> Any:
        value = self.obj.get(name, _MISSING)
        if value is _MISSING and required:
            raise self.fail(name, "required field is missing")
        return value

    def string(self, name: str, *, required: bool = True) -> str | None:
        """Return a string field; ``None`` when optional and absent or null."""
        value = self._get(name, required)
        if value is _MISSING or (value is None and not required):
            return None
        if not isinstance(value, str):
            raise self.fail(name, f"expected a string, got {type_name(value)}")
        if required and not value:
            raise self.fail(name, "expected a non-empty string")
        return value

    def obj_field(self, name: str, *, required: bool = True) -> JSONObject:
        """Return an object field; ``{}`` when optional and absent or null."""
        value = self._get(name, required)
        if value is _MISSING or (value is None and not required):
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(name, f"expected an object, got {type_name(value)}")
        return dict(value)

    def array(self, name: str, *, required: bool = True) -> list[Any]:
        """Return an array field; ``[]`` when optional and absent or null."""
        value = self._get(name, required)
        if value is _MISSING or (value is None and not required):
            return []
        if not isinstance(value, list):
            raise self.fail(name, f"expected an array, got {type_name(value)}")
        return value

    def strings(self, name: str, *, required: bool = True) -> list[str]:
        """Return an array of strings, naming the first element that is not a string."""
        items = self.array(name, required=required)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise self.fail(f"{name}[{index}]", f"expected a string, got {type_name(item)}")
        return list(items)

    def timestamp(self, name: str, *, required: bool = True) -> datetime | None:
        """Return an RFC 3339 timestamp field with an offset, e.g. ``2024-06-03T09:12:00Z``."""
        text = self.string(name, required=required)
        if text is None:
            return None
        try:
            return parse_timestamp(text)
        except ValueError:
            raise self.fail(name, f"expected an RFC 3339 timestamp with offset, got {text!r}") from None

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        """Return a string field that must be one of ``choices``."""
        value = self.string(name)
        assert value is not None
        if value not in choices:
            raise self.fail(name, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def nested(self, name: str, *, required: bool = True) -> FieldReader:
        """Return a reader over an object field, whose errors name the full dotted path."""
        return FieldReader(
            self.obj_field(name, required=required),
            self.path,
            self.line,
            prefix=f"{self.prefix}{name}.",
            error=self.error,
        )
