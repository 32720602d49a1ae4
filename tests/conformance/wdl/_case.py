"""The shape of a pinned case, and the run state a case's expression reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

REF = "https://learn.microsoft.com/en-us/azure/logic-apps/workflow-definition-language-functions-reference"


@dataclass(frozen=True)
class Match:
    """An expected string matching ``pattern`` (a random GUID's shape)."""

    pattern: str

    def __call__(self, value: Any) -> bool:
        return isinstance(value, str) and re.fullmatch(self.pattern, value) is not None


@dataclass(frozen=True)
class OneOf:
    """An expected value that is one of ``values`` (``rand``)."""

    values: tuple[Any, ...]

    def __call__(self, value: Any) -> bool:
        return value in self.values and not isinstance(value, bool)


@dataclass(frozen=True)
class Fails:
    """The reference says the call fails: the action fails with an error holding ``text``."""

    text: str


@dataclass(frozen=True)
class Case:
    """``expression`` (an action input) evaluates to ``expected`` (the reference's ``source`` example)."""

    expression: str
    expected: Any
    source: str
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.source} {self.expression}"


class RunState:
    """The run-state readers an expression calls (``compat.power_automate.Run``'s interface), from a dict.

    Keys of ``state``: ``trigger`` (the trigger record), ``trigger_body``, ``outputs`` (per action),
    ``actions`` (records per action), ``variables``, ``parameters``, ``items`` (per Foreach),
    ``loops`` (innermost last), ``iterations`` (per Until), ``workflow``, ``now`` (ISO UTC).
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    def trigger(self) -> Any:
        return self.state.get("trigger", {"outputs": self.trigger_outputs()})

    def trigger_outputs(self) -> Any:
        return {"headers": {}, "body": self.trigger_body()}

    def trigger_body(self) -> Any:
        return self.state.get("trigger_body")

    def outputs(self, action: str) -> Any:
        return self.state.get("outputs", {}).get(action)

    def body(self, action: str) -> Any:
        found = self.outputs(action)
        return found.get("body") if isinstance(found, dict) else None

    def actions(self, action: str) -> Any:
        return {"name": action, "outputs": self.outputs(action), **self.state.get("actions", {}).get(action, {})}

    def result(self, scope: str) -> Any:
        return [self.actions(name) for name in self.state.get("members", {}).get(scope, [])]

    def variables(self, name: str) -> Any:
        return self.state["variables"][name]

    def parameters(self, name: str) -> Any:
        return self.state["parameters"][name]

    def item(self) -> Any:
        return self.state["items"][self.state["loops"][-1]]

    def items(self, loop: str) -> Any:
        return self.state["items"][loop]

    def iteration_indexes(self, loop: str) -> Any:
        return self.state["iterations"][loop]

    def workflow(self) -> Any:
        return self.state["workflow"]

    def now(self) -> datetime:
        return datetime.fromisoformat(self.state["now"])
