"""The automation registry: ``@automation(name, version=N)`` and discovery from a module.

The decorator also declares an automation's schedule (``schedule="*/15 * * * *"``,
``timezone``, ``catch_up``, ``catch_up_max``; see queue_core.schedule) and its per-key
concurrency (``concurrency_key``: a payload field name, a JSON pointer such as
``"/customer/id"`` or a callable of the payload; ``concurrency_limit``: running jobs per key)
and the payload fields it cannot run without (``requires``: field names or JSON pointers).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError, MissingFieldError, UnknownAutomationError
from .suggest import closest

AutomationFn = Callable[..., Awaitable[Any]]
# How a job's concurrency key is read from its payload: a top-level field name, a JSON pointer
# ("/customer/id") or a function of the payload returning the key (None or "" is refused: every
# job of a keyed automation has a key, else it would run outside the limit).
KeySource = str | Callable[[Any], Any]
_ABSENT = object()


@dataclass(frozen=True)
class Automation:
    """A registered automation: its name, code version and coroutine function, with its
    schedule, per-key concurrency and required payload fields when declared."""

    name: str
    version: int
    fn: AutomationFn
    schedule: str | None = None
    timezone: str = "UTC"
    catch_up: str = "latest"
    catch_up_max: int = 100
    concurrency_key: KeySource | None = None
    concurrency_limit: int = 1
    requires: tuple[str, ...] = ()
    # An automation a job of this one starts when it fails for good (n8n's errorWorkflow).
    error_automation: str | None = None

    def key_of(self, payload: Any) -> str | None:
        """Return the concurrency key of a job of this automation with ``payload`` (None: unkeyed).

        Pure. Raises MissingFieldError when the declared field is absent, null or an empty string
        (or the key function returns None or ""): such a job would run outside the per-key limit.
        A key function's own exceptions propagate.
        """
        source = self.concurrency_key
        if source is None:
            return None
        value = source(payload) if callable(source) else field_value(payload, source)
        if value is _ABSENT or value is None or value == "":
            field = "concurrency_key" if callable(source) else source
            got = "no such field" if value is _ABSENT else "null" if value is None else "an empty string"
            raise MissingFieldError(self.name, field, (
                f"payload has no value for {field!r} ({got}), the concurrency key of automation "
                f"{self.name!r}: every job of a keyed automation needs its key (in the payload, or "
                "set per job as its concurrency key)"))
        return str(value)

    def check_required(self, payload: Any) -> None:
        """Raise MissingFieldError naming the first ``requires`` field that ``payload`` lacks.

        Pure. Absent and null both count as missing; a payload that is not an object lacks all.
        """
        for source in self.requires:
            value = field_value(payload, source)
            if value is _ABSENT or value is None:
                got = "null" if value is None else "missing"
                raise MissingFieldError(self.name, source, (
                    f"payload has no {source!r} ({got}), which automation {self.name!r} requires"))

    @property
    def source_hash(self) -> str:
        """Return a hash of the function's module source: the code version a gate verdict binds to."""
        import hashlib

        module = inspect.getmodule(self.fn)
        try:
            text = inspect.getsource(module) if module else inspect.getsource(self.fn)
        except (OSError, TypeError):
            text = self.fn.__qualname__
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class Registry:
    """Automations by name. The default registry collects every ``@automation`` in the process."""

    def __init__(self) -> None:
        self._by_name: dict[str, Automation] = {}

    def add(self, auto: Automation) -> None:
        """Register ``auto``; registering a different function under a taken name is an error."""
        existing = self._by_name.get(auto.name)
        if existing is not None and existing.fn is not auto.fn:
            if existing.fn.__qualname__ != auto.fn.__qualname__ or existing.fn.__module__ != auto.fn.__module__:
                raise ConfigError(
                    f"automation {auto.name!r} is defined twice: in {existing.fn.__module__} "
                    f"and in {auto.fn.__module__}"
                )
        self._by_name[auto.name] = auto

    def get(self, name: str) -> Automation:
        """Return the automation ``name``; raise UnknownAutomationError listing the known ones."""
        try:
            return self._by_name[name]
        except KeyError:
            known = list(self._by_name)
            near = closest(name, known) if isinstance(name, str) else None
            raise UnknownAutomationError(name, known, suggestion=near) from None

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def automations(self) -> list[Automation]:
        """Return the registered automations, by name."""
        return [self._by_name[n] for n in sorted(self._by_name)]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self._by_name)


default_registry = Registry()


def field_value(payload: Any, source: str) -> Any:
    """Return the value at ``source`` (a field name or a JSON pointer) in ``payload``, or the
    module's ``_ABSENT`` marker when a step of the path is missing or not an object. Pure."""
    value = payload
    for part in _pointer(source):
        if not isinstance(value, dict) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def _pointer(source: str) -> list[str]:
    """The path of a JSON pointer (``/a/b``, with ~1 and ~0 escapes) or of a bare field name."""
    if not source.startswith("/"):
        return [source]
    return [p.replace("~1", "/").replace("~0", "~") for p in source[1:].split("/")]


def automation(
    name: str, *, version: int = 1, registry: Registry | None = None, schedule: str | Sequence[str] | None = None,
    timezone: str = "UTC", catch_up: str = "latest", catch_up_max: int = 100,
    concurrency_key: KeySource | None = None, concurrency_limit: int = 1, requires: Sequence[str] = (),
    error_automation: str | None = None,
) -> Callable[[AutomationFn], AutomationFn]:
    """Register the decorated ``async def fn(ctx, trigger)`` as automation ``name`` at ``version``.

    ``schedule`` (cron, with ``timezone`` and ``catch_up``; or a tuple of crons, each its own
    schedule named ``name``, ``name#2``, …) makes workers enqueue a job of it on every tick; ``concurrency_key``/``concurrency_limit`` cap its running jobs per key (a job
    without its key is refused at enqueue). ``requires`` names the payload fields (names or JSON
    pointers) a job cannot run without: enqueue refuses a job lacking one, and a worker fails
    such a job once, terminally, without running it. ``error_automation`` names an automation
    that a job of this one starts (once, as its child keyed ``error-automation``) when it fails for
    good, with the failure as its payload (queue_core.executor.failure_payload). Raises
    ConfigError naming the automation and the parameter at fault.
    """
    fields = _check_declaration(name, version, concurrency_key, concurrency_limit, requires)

    def decorate(fn: AutomationFn) -> AutomationFn:
        if not inspect.iscoroutinefunction(fn):
            raise ConfigError(f"automation {name!r}: {fn.__qualname__} must be an async function")
        if error_automation is not None and (not isinstance(error_automation, str) or not error_automation
                                             or error_automation == name):
            raise ConfigError(f"automation {name!r}: error_automation must name another automation, "
                              f"got {error_automation!r}")
        auto = Automation(name, version, fn, schedule, timezone, catch_up, catch_up_max, concurrency_key,
                          concurrency_limit, fields, error_automation)
        if schedule is not None:
            from .schedule import declared

            declared([auto])  # a bad cron, timezone, catch-up or tick payload fails at import
        (registry if registry is not None else default_registry).add(auto)
        return fn

    return decorate


def _check_declaration(name: Any, version: Any, concurrency_key: Any, concurrency_limit: Any,
                       requires: Any) -> tuple[str, ...]:
    """Raise ConfigError for a bad decorator argument; return ``requires`` as a tuple."""
    if not name or not isinstance(name, str):
        raise ConfigError("an automation needs a non-empty string name")
    if not isinstance(version, int) or version < 1:
        raise ConfigError(f"automation {name!r}: version must be an integer >= 1, got {version!r}")
    if concurrency_key is not None and not (callable(concurrency_key) or (isinstance(concurrency_key, str) and concurrency_key)):
        raise ConfigError(f"automation {name!r}: concurrency_key must be a payload field, a JSON pointer or a function")
    if not isinstance(concurrency_limit, int) or isinstance(concurrency_limit, bool) or concurrency_limit < 1:
        raise ConfigError(f"automation {name!r}: concurrency_limit must be an integer >= 1, got {concurrency_limit!r}")
    if isinstance(requires, str) or not isinstance(requires, Sequence) \
            or not all(isinstance(f, str) and f for f in requires):
        raise ConfigError(f"automation {name!r}: requires must be a tuple of payload field names or JSON "
                          f"pointers, got {requires!r}" + (f" (write ({requires!r},))" if isinstance(requires, str) else ""))
    return tuple(requires)


def discover(module_name: str) -> Registry:
    """Import ``module_name`` (and, for a package, its submodules) and return the default registry.

    Raises ConfigError naming the module when it cannot be imported.
    """
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"cannot import automations module {module_name!r}: {exc}",
            source="pyproject.toml",
            field="tool.cutover.automations",
        ) from exc
    path = getattr(module, "__path__", None)
    if path is not None:
        for info in pkgutil.iter_modules(path, prefix=f"{module_name}."):
            importlib.import_module(info.name)
    return default_registry
