"""The runtime of automations scaffolded from Power Automate flows (``cutover scaffold power-automate``).

A flow (the Workflow Definition Language, WDL) runs its actions in ``runAfter`` order; every
action ends with a status (``Succeeded``, ``Failed``, ``Skipped``, ``TimedOut``) and outputs, and
an expression reads them back (``body('Get_items')``, ``outputs('Compose')``,
``variables('count')``, ``items('Apply_to_each')``, ``triggerBody()``). A scaffolded automation
keeps that model: a ``Run`` holds, per action name, its evaluated ``inputs``, its ``outputs``
(exactly as the run history records them: ``{"statusCode", "headers", "body"}`` for a call, the
composed value itself for a Compose), its ``status`` and its ``error``; the flow's variables; the
current item of every enclosing Foreach. Generated code names the run ``run``; an expression is
Python reading ``run`` (``harness.platforms.power_automate.translate.expr`` builds it, the WDL
functions are ``queue_core.compat._wdl``).

A Foreach iteration gets its own ``Run`` (``run.child(foreach, item)``): the actions inside it
record their outputs per iteration (so ``body('X')`` inside the loop is this iteration's), and
read the outer run's through it; variables are the flow's, shared, as in Power Automate.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["Run"]


class Run:
    """One run of a scaffolded flow: what its expressions read, and what it records.

    - ``trigger_name``: the trigger's name in the definition (``manual``, ``Recurrence``);
    - ``trigger_outputs``: the trigger's outputs, ``{"headers", "body", "queries"?, ...}``
      (``triggerOutputs()``; ``triggerBody()`` is its ``body``, ``run.trigger_body``);
    - ``inputs``, ``outputs``, ``status``, ``errors``: per action name (``actions('X')`` is
      ``run.action('X')``); a Foreach child run keeps its own and falls back to its parent's;
    - ``variables``: the flow's variables by name (shared by every child run);
    - ``items``: the current item per enclosing Foreach name (``items('F')``), and ``loops`` the
      enclosing Foreach names, innermost last (``item()`` is ``run.items[run.loops[-1]]``);
    - ``iterations``: per enclosing Until name, its iteration index from 0 (``iterationIndexes``);
    - ``members``: per Scope / Foreach / Until / If / Switch name, the names of the actions directly
      inside it (``result('Scope')``), set once by the generated code;
    - ``parameters``: the definition's parameters (``parameters('p')``), their default values;
    - ``workflow``: what ``workflow()`` returns (``{"name", "run": {"name"}}``).
    """

    def __init__(self, ctx: Any, trigger: Any = None, *, trigger_name: str = "manual",
                 parameters: dict[str, Any] | None = None, members: dict[str, list[str]] | None = None,
                 workflow: str = "") -> None:
        self.ctx = ctx
        self.parent: Run | None = None
        self.trigger_name = trigger_name
        self.trigger_outputs: dict[str, Any] = trigger_outputs(trigger)
        self.inputs: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.status: dict[str, str] = {}
        self.errors: dict[str, dict[str, Any]] = {}
        self.variables: dict[str, Any] = {}
        self.items: dict[str, Any] = {}
        self.loops: tuple[str, ...] = ()
        self.iterations: dict[str, int] = {}
        self.members: dict[str, list[str]] = dict(members or {})
        self.parameters: dict[str, Any] = dict(parameters or {})
        self.workflow: dict[str, Any] = {"name": workflow, "run": {"name": str(getattr(ctx, "job_id", ""))}}

    @property
    def trigger_body(self) -> Any:
        """Return ``triggerBody()``: the trigger's outputs' body (None when it has none)."""
        return self.trigger_outputs.get("body")

    def child(self, foreach: str, item: Any) -> Run:
        """Return the run one iteration of Foreach ``foreach`` sees: ``item`` current, outputs its own."""
        run = Run.__new__(Run)
        run.__dict__.update(self.__dict__)
        run.parent = self
        run.inputs, run.outputs, run.status, run.errors = {}, {}, {}, {}
        run.items = {**self.items, foreach: item}
        run.loops = (*self.loops, foreach)
        run.iterations = dict(self.iterations)
        return run

    def _lookup(self, table: str, action: str) -> tuple[bool, Any]:
        run: Run | None = self
        while run is not None:
            values = getattr(run, table)
            if action in values:
                return True, values[action]
            run = run.parent
        return False, None

    def output(self, action: str) -> Any:
        """Return ``outputs('action')`` (None when it has not run)."""
        return self._lookup("outputs", action)[1]

    def state(self, action: str) -> str | None:
        """Return the status ``action`` ended with (None when it has not run: runAfter waits on it)."""
        return self._lookup("status", action)[1]

    def action(self, action: str) -> dict[str, Any]:
        """Return ``actions('action')``: its name, inputs, outputs, status, code and error."""
        out: dict[str, Any] = {"name": action, "status": self.state(action)}
        for key, table in (("inputs", "inputs"), ("outputs", "outputs"), ("error", "errors")):
            found, value = self._lookup(table, action)
            if found:
                out[key] = value
        outputs = out.get("outputs")
        if isinstance(outputs, dict) and "statusCode" in outputs:
            out["code"] = str(outputs["statusCode"])
        return out

    def now(self) -> datetime:
        """Return ``utcNow()``'s instant: the job's clock (the trigger's time in a shadow replay)."""
        return self.ctx.now()  # type: ignore[no-any-return]


def trigger_outputs(trigger: Any) -> dict[str, Any]:
    """Return a trigger's outputs as WDL reads them: ``{"headers", "body"}`` of the delivery.

    A recorded run whose trigger outputs were imported whole (``{"headers", "body"}``) is the
    same shape; a delivery's body is the trigger's ``body``.
    """
    if trigger is None:
        return {"headers": {}, "body": None}
    return {"headers": dict(getattr(trigger, "headers", None) or {}), "body": getattr(trigger, "body", None)}
