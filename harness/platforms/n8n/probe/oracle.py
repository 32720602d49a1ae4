"""Evaluate a workflow's translated conditions on a candidate trigger (for ``probe-triggers``).

The oracle is the scaffold of the definition itself: ``build`` translates the workflow with
n8n's condition semantics (``queue_core.compat.n8n``), and ``Oracle.run`` executes that code in
this process on one trigger, offline: a call is answered with what the legacy run of the
recorded trigger returned for that step (as the dry run answers it), else an empty JSON object
— no mutation of the trigger changes a provider's answer, which is why a condition on a
response is reported as not reachable by mutating the trigger. A sleep returns at once, the
clock is the trigger's arrival time. The run's ``Flow`` says which outputs of each branch node received items: that
is the branch the definition predicts for the trigger.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from queue_core import registry as registry_module
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.errors import Filtered
from queue_core.registry import Registry

from harness.errors import ProbeError
from harness.recording import RecordedTrigger
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.definition import Workflow


class _Stub:
    """The answer to a call of an offline evaluation: 200 with the recorded JSON (or ``{}``)."""

    status_code = 200
    headers: dict[str, str] = {}

    def __init__(self, body: Any) -> None:
        self._body = body
        self.text = json.dumps(body)

    def json(self) -> Any:
        return self._body

    def raise_for_status(self) -> None:
        return None


class _ProbeContext:
    """The part of the Context a scaffolded automation uses, offline and at a fixed time."""

    def __init__(self, received_at: datetime, answers: Mapping[str, Any]) -> None:
        self.job_id = uuid.UUID(int=0)
        self._answers = answers
        self.decisions: dict[str, Any] = {}
        self.n8n_flows: list[n8n.Flow] = []
        self._now = received_at

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        return self._now

    async def sleep(self, seconds: float) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str = "", **kwargs: Any) -> _Stub:
        return _Stub(self._answers.get(step, {}))


@dataclass(frozen=True)
class Evaluation:
    """What the translated workflow did with one trigger: the outputs each branch node filled."""

    selected: dict[str, frozenset[int]] = field(default_factory=dict)
    error: str | None = None

    def took(self, node: str, output: int) -> bool:
        """Return whether output ``output`` (0-based) of ``node`` received items."""
        return output in self.selected.get(node, frozenset())


class Oracle:
    """The translated workflow, compiled once, run on as many candidate triggers as needed."""

    def __init__(self, workflow: Workflow, responses: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Scaffold and compile ``workflow``; raise ProbeError when the generated code does not load.

        ``responses`` maps a recorded trigger's id to its legacy run's outputs by step.
        """
        scaffold = build(workflow, "probe-oracle", {})
        namespace: dict[str, Any] = {}
        saved = registry_module.default_registry
        registry_module.default_registry = Registry()
        try:
            exec(compile(scaffold.source, f"<translated {workflow.path or workflow.name}>", "exec"), namespace)
            self._function = registry_module.default_registry.get("probe-oracle").fn
        except Exception as exc:  # the generated module is ours, but a definition can still break it
            raise ProbeError(f"{workflow.path}: the translated workflow does not load ({exc})") from None
        finally:
            registry_module.default_registry = saved
        self.workflow = workflow
        self._responses = dict(responses or {})

    def run(self, trigger: RecordedTrigger, answers_for: str | None = None) -> Evaluation:
        """Run the translated workflow on ``trigger``; never raises for what the workflow does.

        Calls are answered with the recorded responses of trigger ``answers_for`` (default: its own id).
        """
        ctx = _ProbeContext(trigger.received_at, self._responses.get(answers_for or trigger.id, {}))
        error = None
        payload = Trigger(trigger.id, trigger.received_at.isoformat(), dict(trigger.headers), trigger.body,
                          trigger.source)
        try:
            _drive(self._function(ctx, payload))
        except Exception as exc:  # a failing node (strict types, a TODO) is an outcome, not a bug
            error = f"{type(exc).__name__}: {exc}"
        flow = ctx.n8n_flows[0] if ctx.n8n_flows else None
        selected: dict[str, frozenset[int]] = {}
        if flow is not None:
            for name, outputs in flow.outputs.items():
                selected[name] = frozenset(i for i, items in enumerate(outputs) if items)
        return Evaluation(selected, error)


def _drive(awaitable: Awaitable[Any]) -> None:
    """Run a coroutine that never really suspends (every await of the probe context returns at once)."""
    coroutine: Any = awaitable
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise ProbeError("the translated workflow waited on something an offline evaluation cannot run")
