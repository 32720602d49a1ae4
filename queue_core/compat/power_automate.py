"""The runtime of automations scaffolded from Power Automate flows (``cutover scaffold power-automate``).

A flow (the Workflow Definition Language, WDL) runs its actions in ``runAfter`` order; every
action ends with a status (``Succeeded``, ``Failed``, ``Skipped``, ``TimedOut``) and outputs, and
an expression reads them back (``body('Get_items')``, ``outputs('Compose')``,
``variables('count')``, ``items('Apply_to_each')``, ``triggerBody()``). A scaffolded automation
keeps that model: a ``FlowRun`` holds, per action name, its evaluated ``inputs``, its ``outputs``
(exactly as the run history records them: ``{"statusCode", "headers", "body"}`` for a call, the
composed value itself for a Compose), its ``status`` and its ``error``; the flow's variables; the
current item of every enclosing Foreach. Generated code names the run ``run``; an expression is
Python reading ``run`` (``harness.platforms.power_automate.translate.expr`` builds it, the WDL
functions are ``queue_core.compat._wdl``).

A Foreach iteration gets its own ``FlowRun`` (``run.child(foreach, item)``): the actions inside it
record their outputs per iteration (so ``body('X')`` inside the loop is this iteration's), and
read the outer run's through it; variables are the flow's, shared, as in Power Automate.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from ..errors import ActionFailed, FlowTerminated, StepMismatchError, TerminalError, TodoAction
from ._pa_graph import channel_card, channel_message, graph_mail, path_segment, sharepoint_item_url, site_url, team_member
from ._pa_actions import (
    NO_OUTPUTS, append_array, append_string, compose, decrement, http, increment, initialize, join, parse_json, query,
    path, respond, select, set_variable, split_on, table, terminate, text, todo, truth, wait,
)

from . import _wdl as wdl

__all__ = [
    "NO_OUTPUTS", "ActionFailed", "FlowTerminated", "FlowRun", "TodoAction", "append_array", "append_string", "channel_card", "channel_message", "compose",
    "decrement", "graph_mail", "path_segment", "sharepoint_item_url", "site_url", "team_member",
    "http", "increment", "initialize", "join", "parse_json", "path", "query", "respond", "select", "set_variable",
    "split_on", "table",
    "terminate", "text", "todo", "truth", "wait", "wdl",
]

Body = Callable[["FlowRun"], Awaitable[Any]]
FAILED = ("Failed", "TimedOut")



class FlowRun:
    """One run of a scaffolded flow: what its expressions read (the methods, one per WDL
    function that reads the run), and what it records (the tables).

    Tables, per action name (a Foreach child run keeps its own and falls back to its parent's):
    ``inputs_of``, ``outputs_of`` (as the run history records them), ``status_of``
    (``Succeeded``/``Failed``/``Skipped``/``TimedOut``), ``errors_of`` (``{"code", "message"}``).
    ``vars`` holds the flow's variables (shared by every child run); ``loop_items`` the current
    item per enclosing Foreach and ``loops`` their names, innermost last; ``indexes`` the
    iteration index (from 0) per enclosing Until or Foreach; ``members`` the names of the actions
    directly inside each Scope / Foreach / Until / If / Switch (``result()``), set once by the
    generated code; ``params`` the definition's parameters (their default values).
    """

    def __init__(self, ctx: Any, trigger: Any = None, *, trigger_name: str = "manual",
                 parameters: dict[str, Any] | None = None, members: dict[str, list[str]] | None = None,
                 workflow: str = "") -> None:
        self.ctx = ctx
        self.parent: FlowRun | None = None
        self.trigger_name = trigger_name
        self.trigger_record: dict[str, Any] = {"name": trigger_name, "outputs": trigger_outputs(trigger),
                                               "status": "Succeeded"}
        self.inputs_of: dict[str, Any] = {}
        self.outputs_of: dict[str, Any] = {}
        self.status_of: dict[str, str] = {}
        self.errors_of: dict[str, dict[str, Any]] = {}
        self.vars: dict[str, Any] = {}
        self.loop_items: dict[str, Any] = {}
        self.loops: tuple[str, ...] = ()
        self.indexes: dict[str, int] = {}
        self.members: dict[str, list[str]] = dict(members or {})
        self.params: dict[str, Any] = dict(parameters or {})
        self.info: dict[str, Any] = {"name": workflow, "run": {"name": str(getattr(ctx, "job_id", ""))}}
        self.after_of: dict[str, dict[str, list[str]]] = {}
        self.types: dict[str, str] = {}  # variable -> its declared type (shared, as vars)
        self.top: list[str] = []
        watchers = getattr(ctx, "pa_runs", None)  # a context that keeps the runs (conformance cases)
        if isinstance(watchers, list):
            watchers.append(self)

    def define(self, *, trigger: str = "manual", members: dict[str, list[str]] | None = None,
               parameters: dict[str, Any] | None = None, workflow: str = "", top: list[str] | None = None) -> None:
        """Set what the generated code knows of its flow: the trigger's name, which actions sit in
        which container (``result()``, skipping a branch), the parameters, the flow's name, and
        its top-level actions (whose failures fail the run)."""
        self.trigger_name = trigger
        self.trigger_record["name"] = trigger
        self.members = dict(members or {})
        self.params = dict(parameters or {})
        self.info["name"] = workflow
        self.top = list(top or [])

    # -- what expressions read (the WDL functions that read the run) ---------------------

    def trigger(self) -> dict[str, Any]:
        """Return ``trigger()``: the trigger's record (name, outputs, status)."""
        return self.trigger_record

    def trigger_outputs(self) -> Any:
        """Return ``triggerOutputs()``: ``{"headers", "body"}`` of the delivery."""
        return self.trigger_record.get("outputs")

    def trigger_body(self) -> Any:
        """Return ``triggerBody()``: the trigger's outputs' body (None when it has none)."""
        outputs = self.trigger_outputs()
        return outputs.get("body") if isinstance(outputs, dict) else None

    def outputs(self, action: str) -> Any:
        """Return ``outputs('action')`` (None when it has not run)."""
        return self._lookup("outputs_of", action)[1]

    def body(self, action: str) -> Any:
        """Return ``body('action')``: its outputs' body (a Compose's outputs have none: None)."""
        outputs = self.outputs(action)
        return outputs.get("body") if isinstance(outputs, dict) else None

    def actions(self, action: str) -> dict[str, Any]:
        """Return ``actions('action')``: its name, inputs, outputs, status, code and error."""
        out: dict[str, Any] = {"name": action, "status": self.state(action)}
        for key, table in (("inputs", "inputs_of"), ("outputs", "outputs_of"), ("error", "errors_of")):
            found, value = self._lookup(table, action)
            if found:
                out[key] = value
        outputs = out.get("outputs")
        if isinstance(outputs, dict) and "statusCode" in outputs:
            out["code"] = str(outputs["statusCode"])
        return out

    def result(self, scope: str) -> list[dict[str, Any]]:
        """Return ``result('scope')``: the records of the actions directly inside it that ran."""
        return [self.actions(n) for n in self.members.get(scope, []) if self.state(n) is not None]

    def variables(self, name: str) -> Any:
        """Return ``variables('name')``."""
        return self.vars.get(name)

    def item(self) -> Any:
        """Return ``item()``: the current item of the innermost Foreach (None outside one)."""
        return self.loop_items.get(self.loops[-1]) if self.loops else None

    def items(self, loop: str) -> Any:
        """Return ``items('loop')``: the current item of that enclosing Foreach."""
        return self.loop_items.get(loop)

    def iteration_indexes(self, loop: str) -> int | None:
        """Return ``iterationIndexes('loop')``: the iteration (from 0) of that Until."""
        return self.indexes.get(loop)

    def parameters(self, name: str) -> Any:
        """Return ``parameters('name')``: the definition's parameter (its default value)."""
        return self.params.get(name)

    def workflow(self) -> dict[str, Any]:
        """Return ``workflow()``: the flow's name and this run's name (the job id)."""
        return self.info

    def now(self) -> datetime:
        """Return ``utcNow()``'s instant: the job's clock (the trigger's time in a shadow replay)."""
        return self.ctx.now()  # type: ignore[no-any-return]

    # -- the run's own bookkeeping --------------------------------------------------------

    def child(self, loop: str, item: Any, index: int) -> FlowRun:
        """Return the run one iteration of Foreach ``loop`` sees: ``item`` current, outputs its own."""
        run = FlowRun.__new__(FlowRun)
        run.__dict__.update(self.__dict__)
        run.parent = self
        run.inputs_of, run.outputs_of, run.status_of, run.errors_of, run.after_of = {}, {}, {}, {}, {}
        run.loop_items = {**self.loop_items, loop: item}
        run.loops = (*self.loops, loop)
        run.indexes = {**self.indexes, loop: index}
        return run

    def _lookup(self, table: str, action: str) -> tuple[bool, Any]:
        run: FlowRun | None = self
        while run is not None:
            values = getattr(run, table)
            if action in values:
                return True, values[action]
            run = run.parent
        return False, None

    def state(self, action: str) -> str | None:
        """Return the status ``action`` ended with (None when it has not run)."""
        found: str | None = self._lookup("status_of", action)[1]
        return found

    # -- running actions in runAfter order ------------------------------------------------

    def ready(self, action: str, after: dict[str, list[str]]) -> bool:
        """Return whether ``action`` runs: every action of its ``runAfter`` ended with one of the
        statuses listed for it (an action with none runs first in its scope). When it does not,
        it is ``Skipped``, and so is everything inside it."""
        self.after_of[action] = after
        if all(self.state(before) in statuses for before, statuses in after.items()):
            return True
        self.skip(action)
        return False

    def skip(self, *actions: str) -> None:
        """Mark ``actions`` and every action inside them ``Skipped`` (an If branch not taken)."""
        for action in actions:
            self.status_of[action] = "Skipped"
            self.skip(*self.members.get(action, []))

    async def act(self, action: str, after: dict[str, list[str]], body: Body) -> None:
        """Run one action when its ``runAfter`` holds: its outputs are what ``body`` returns, its
        status ``Succeeded``, or ``Failed`` when it raised an action failure (a TerminalError:
        an error answer, a WDL function given what it cannot take); anything else (a retry, a
        wait, a TODO, Terminate) goes on up."""
        if not self.ready(action, after):
            return
        try:
            outputs = await body(self)
        except TerminalError as exc:
            if isinstance(exc, TodoAction | FlowTerminated | StepMismatchError):  # not a failure of the flow
                raise
            self.status_of[action] = "Failed"
            code = exc.code if isinstance(exc, ActionFailed) else "ActionFailed"
            self.errors_of[action] = {"code": code, "message": str(exc)}
            if isinstance(exc, ActionFailed) and exc.outputs is not None:
                self.outputs_of[action] = exc.outputs
            return
        if outputs is not NO_OUTPUTS:
            self.outputs_of[action] = outputs
            self._record(action, outputs)
        self.status_of[action] = "Succeeded"

    def _record(self, action: str, outputs: Any) -> None:
        """Keep an action's outputs in the job's trace, as ``cutover import power-automate`` keeps the
        legacy run's (the body of ``{statusCode, headers, body}``, else the outputs), so a shadow run
        compares them where the history holds them. An action inside a Foreach is left out (its
        iterations are not one output)."""
        trace = getattr(self.ctx, "trace", None)
        kept = getattr(trace, "outputs", None)
        if self.parent is not None or not isinstance(kept, dict):
            return
        body = outputs["body"] if isinstance(outputs, dict) and "body" in outputs and \
            set(outputs) <= {"body", "headers", "statusCode"} else outputs
        kept[action] = json.loads(json.dumps(body, default=str))

    def unhandled(self, actions: list[str]) -> list[str]:
        """Return the actions among ``actions`` that failed with no action run after them on that status.

        A failure is *handled* when an action of the same scope whose ``runAfter`` lists the
        failed action with its status ran (did not end ``Skipped``): the try/catch of a flow.
        """
        out = []
        for action in actions:
            status = self.status_of.get(action)
            if status not in FAILED:
                continue
            handlers = [a for a in actions if status in self.after_of.get(a, {}).get(action, [])]
            if not any(self.status_of.get(h) not in (None, "Skipped") for h in handlers):
                out.append(action)
        return out

    def settle(self, scope: str) -> Any:
        """End a Scope, If or Switch: ``Failed`` (ActionFailed) when an action inside it failed unhandled."""
        failed = self.unhandled(self.members.get(scope, []))
        if failed:
            raise ActionFailed("An action failed. No dependent actions succeeded.", "ActionFailed")
        return NO_OUTPUTS

    def decide(self, decision: str, value: str) -> None:
        """Record the branch an If (``true``/``false``) or a Switch (its case, or ``default``) took."""
        self.ctx.decide(decision, value)

    async def foreach(self, loop: str, items: Any, body: Body) -> Any:
        """Run ``body`` once per item, in item order, each iteration with its own child run.

        An iteration that fails does not stop the others; the Foreach then ends ``Failed``.
        (Power Automate may run iterations at the same time: see the translator's row note.)
        """
        if items is None:
            items = []
        if not isinstance(items, list):
            raise ActionFailed(f"The execution of template action '{loop}' failed: the result of the evaluation "
                               f"of 'foreach' expression is of type '{type(items).__name__}'. The result must be "
                               "a valid array.", "InvalidTemplate")
        failed, last = False, None
        for index, item in enumerate(items):
            last = self.child(loop, item, index)
            await body(last)
            failed = failed or bool(last.unhandled(self.members.get(loop, [])))
        if last is not None:  # after the loop, the actions inside it read as their last iteration left them
            for table in ("inputs_of", "outputs_of", "status_of", "errors_of"):
                getattr(self, table).update(getattr(last, table))
        if failed:
            raise ActionFailed("An action failed. No dependent actions succeeded.", "ActionFailed")
        return NO_OUTPUTS

    async def until(self, loop: str, body: Body, done: Callable[[FlowRun], Any], count: int = 60,
                    timeout: float | None = None) -> Any:
        """Run ``body`` until ``done`` holds after an iteration, at most ``count`` times (Logic Apps'
        default 60) and, with ``timeout`` (seconds, the ``limit.timeout``), no new iteration once that
        long has passed on the job's clock since the loop began (``run.now()``: the real clock live,
        advanced by durable sleeps). As Logic Apps documents it, an action failing in an iteration
        does not stop the loop: the next iteration runs, and the Until ends ``Failed`` only when an
        action of its last iteration failed unhandled."""
        started = self.now()
        for index in range(max(int(count), 1)):
            self.indexes[loop] = index
            await body(self)
            if truth(done(self), loop):
                break
            if timeout is not None and (self.now() - started).total_seconds() >= timeout:
                break
        if self.unhandled(self.members.get(loop, [])):
            raise ActionFailed("An action failed. No dependent actions succeeded.", "ActionFailed")
        return NO_OUTPUTS

    async def main(self, body: Body, top: list[str]) -> None:
        """Run the flow's top-level actions; end as Power Automate ends the run.

        A Terminate ends it at once (``Succeeded``: a success; ``Failed``/``Cancelled``: a
        failure with its message). Otherwise the run fails when a top-level action failed and
        no action ran after it on that failure.
        """
        try:
            await body(self)
        except FlowTerminated as stop:
            if stop.status == "Succeeded":
                return
            raise TerminalError(f"Terminate: {stop.status}" + (f": {stop.code}" if stop.code else "")
                                + (f": {stop.message}" if stop.message else "")) from None
        failed = self.unhandled(top)
        if failed:
            error = self.errors_of.get(failed[0], {})
            raise TerminalError(f"action {failed[0]!r} failed: {error.get('code', 'ActionFailed')}: "
                                f"{error.get('message', '')}".rstrip(": "))


def trigger_outputs(trigger: Any) -> dict[str, Any]:
    """Return a trigger's outputs as WDL reads them: ``{"headers", "body"}`` of the delivery.

    A recorded run whose trigger outputs were imported whole (``{"headers", "body"}``) is the
    same shape; a delivery's body is the trigger's ``body``.
    """
    if trigger is None:
        return {"headers": {}, "body": None}
    return {"headers": dict(getattr(trigger, "headers", None) or {}), "body": getattr(trigger, "body", None)}
