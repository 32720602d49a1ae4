"""The automation registry: ``@automation(name, version=N)`` and discovery from a module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError, UnknownAutomationError

AutomationFn = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class Automation:
    """A registered automation: its name, code version and coroutine function."""

    name: str
    version: int
    fn: AutomationFn

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
            raise UnknownAutomationError(name, list(self._by_name)) from None

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self._by_name)


default_registry = Registry()


def automation(name: str, *, version: int = 1, registry: Registry | None = None) -> Callable[[AutomationFn], AutomationFn]:
    """Register the decorated ``async def fn(ctx, trigger)`` as automation ``name`` at ``version``."""
    if not name or not isinstance(name, str):
        raise ConfigError("an automation needs a non-empty string name")
    if not isinstance(version, int) or version < 1:
        raise ConfigError(f"automation {name!r}: version must be an integer >= 1, got {version!r}")

    def decorate(fn: AutomationFn) -> AutomationFn:
        if not inspect.iscoroutinefunction(fn):
            raise ConfigError(f"automation {name!r}: {fn.__qualname__} must be an async function")
        (registry if registry is not None else default_registry).add(Automation(name, version, fn))
        return fn

    return decorate


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
