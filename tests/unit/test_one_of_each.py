"""One of each: every exception class lives in its package's errors module, and no class name
is defined twice across queue_core and harness (ISSUE22 part 6)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections import defaultdict
from pathlib import Path

import harness
import queue_core

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (queue_core, harness)


def _modules(package: object) -> list[str]:
    names = [package.__name__]  # type: ignore[attr-defined]
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):  # type: ignore[attr-defined]
        if not info.name.endswith(".__main__"):
            names.append(info.name)
    return names


def test_every_exception_class_is_defined_in_its_packages_errors_module() -> None:
    misplaced = []
    for package in PACKAGES:
        home = f"{package.__name__}.errors"
        for name in _modules(package):
            module = importlib.import_module(name)
            for attr, obj in vars(module).items():
                if (inspect.isclass(obj) and issubclass(obj, BaseException)
                        and obj.__module__ == name and name != home):
                    misplaced.append(f"{name}.{attr}")
    assert misplaced == [], f"exception classes outside the errors modules: {misplaced}"


def test_the_errors_module_docstring_draws_every_class_it_defines() -> None:
    for package in PACKAGES:
        module = importlib.import_module(f"{package.__name__}.errors")
        doc = module.__doc__ or ""
        missing = [n for n, obj in vars(module).items()
                   if inspect.isclass(obj) and obj.__module__ == module.__name__ and f" {n} " not in doc]
        assert missing == [], f"{module.__name__} docstring does not draw {missing}"


def test_no_class_name_is_defined_twice_across_the_packages() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for package in ("queue_core", "harness"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef):
                    where[node.name].append(str(path.relative_to(ROOT)))
    duplicated = {name: files for name, files in where.items() if len(files) > 1}
    assert duplicated == {}, f"class names defined more than once: {duplicated}"
