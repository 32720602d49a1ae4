"""Load a mutant of an automation module as a module object, never as a file.

The mutated code is compiled from its tree (:mod:`harness.mutate.mutator`) under the original
file's name and executed in a new module object named like the original, which is not put in
``sys.modules``: the user's file, its ``__pycache__`` and the imported module stay as they were.
While it executes, the ``@automation`` decorator registers into a registry of its own (the
default registry is swapped out for that moment), so the mutant never replaces the real
automation anywhere but in the registry the measurement replays with.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from queue_core import registry as _registry
from queue_core.registry import Automation, Registry


@contextmanager
def _own_default_registry() -> Iterator[Registry]:
    scratch = Registry()
    saved = _registry.default_registry
    _registry.default_registry = scratch
    try:
        yield scratch
    finally:
        _registry.default_registry = saved


def load_mutant(code: types.CodeType, module_name: str, filename: str,
                names: Mapping[str, Any] | None = None) -> list[Automation]:
    """Execute ``code`` as a fresh module ``module_name``; return the automations it declares.

    ``names`` are put in the module's globals first (the deadline its guarded loops call, see
    :mod:`harness.mutate.deadline`). The module's own exceptions propagate (a mutant that cannot
    even be imported is killed).
    """
    module = types.ModuleType(module_name)
    module.__file__ = filename
    module.__package__ = module_name.rpartition(".")[0]
    module.__dict__.update(names or {})
    with _own_default_registry() as scratch:
        exec(code, module.__dict__)  # noqa: S102 - the project's own module, changed by one mutation
    return scratch.automations()


class SwappableRegistry(Registry):
    """The measurement's registry: the project's automations, one module's swapped for its mutant's."""

    def __init__(self, automations: list[Automation]) -> None:
        super().__init__()
        self.originals = {a.name: a for a in automations}
        for auto in automations:
            self.add(auto)

    @contextmanager
    def swapped(self, mutants: list[Automation]) -> Iterator[None]:
        """Register ``mutants`` in place of the automations of the same names, for the block."""
        try:
            for auto in mutants:
                self.add(auto)
            yield
        finally:
            for auto in mutants:
                if auto.name in self.originals:
                    self.add(self.originals[auto.name])
