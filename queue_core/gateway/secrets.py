"""The secrets a gateway knows, for redaction: every provider's ``*_env`` values and the
credential headers automations have sent (queue_core.redaction's value rule).

Asked several times a call (the intent, the record, each write of the job's store), so the
answer is cheap when nothing changed: the names are worked out once per set of providers, the
values read from ``os.environ``'s own table of encoded names and values (which every write
through ``os.environ`` updates, so a value set, changed or removed there is seen at the next
ask, as ``os.environ.get`` would see it) and decoded only when they changed, and the Redactor
built once per set of values.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..provider import ProviderConfig
from ..redaction import Redactor


class KnownSecrets:
    """The redaction of what one gateway knows; values read at each ask (as calls read them)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        # os.environ's table of encoded names and values; None for any other mapping (read through it)
        # (bytes on POSIX; os.environ's encodekey/decodevalue are the table's own, whatever it holds)
        self._table: Mapping[Any, Any] | None = getattr(environ, "_data", None) if environ is os.environ else None
        self._sent: set[str] = set()  # credential header values automations passed to call()
        self._names: tuple[tuple[ProviderConfig, ...], tuple[str, ...], tuple[Any, ...]] = ((), (), ())
        self._raw: tuple[tuple[Any, ...] | None, tuple[str | None, ...]] = (None, ())
        self._built: tuple[tuple[str | None, ...], Redactor] = ((), Redactor())
        self._built_env: tuple[str | None, ...] | None = None  # the _values() tuple _built was made with
        self._sorted: tuple[str, ...] | None = ()  # _sent sorted; None when it changed

    def add_sent(self, values: Iterable[str]) -> None:
        """Know these credential header values too (what an automation sent)."""
        for value in values:
            if value not in self._sent:
                self._sent.add(value)
                self._sorted = None

    def redactor(self, providers: Mapping[str, ProviderConfig]) -> Redactor:
        """The Redactor of every ``providers``' ``*_env`` value (read now) and the headers sent."""
        env = self._values(providers)
        if env is self._built_env and self._sorted is not None:  # nothing changed since the last ask
            return self._built[1]
        if self._sorted is None:
            self._sorted = tuple(sorted(self._sent))
        values = (*env, *self._sorted)
        if self._built[0] != values:  # built once per set of secrets: every settle asks
            self._built = (values, Redactor.of(values))
        self._built_env = env
        return self._built[1]

    def _values(self, providers: Mapping[str, ProviderConfig]) -> tuple[str | None, ...]:
        names = self._secret_names(providers)
        if self._table is None:
            return tuple(self._environ.get(name) for name in names)
        table = self._table
        raw = tuple(table.get(key) for key in self._names[2])
        if raw != self._raw[0]:  # decoded only when they changed since the last read
            decode: Callable[[Any], str] = os.environ.decodevalue
            self._raw = (raw, tuple(None if v is None else decode(v) for v in raw))
        return self._raw[1]

    def _secret_names(self, providers: Mapping[str, ProviderConfig]) -> tuple[str, ...]:
        """The ``*_env`` names of every provider, worked out again only when the providers change."""
        configs = tuple(providers.values())
        if self._names[0] != configs:  # the same config objects compare equal by identity, cheaply
            names = tuple(name for config in configs for name in config.secret_env_names())
            encoded = tuple(os.environ.encodekey(n) for n in names) if self._table is not None else ()
            self._names = (configs, names, encoded)
        return self._names[1]
