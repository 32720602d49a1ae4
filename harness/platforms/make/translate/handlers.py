"""A Make module's error handler route (``onerror``): its modules, then the directive that ends it.

Make runs the route when the module errs: the route's modules (mapping ``{{<id>.error.message}}``
of the failed module), then its directive (https://help.make.com/overview-of-error-handling):

- ``builtin:Ignore`` (and a route that ends with no directive, which Make handles as Ignore): the
  bundle goes no further, the run goes on and succeeds;
- ``builtin:Resume``: the directive's mapping stands in for the module's output and the flow goes on;
- ``builtin:Commit``: the run stops here and succeeds;
- ``builtin:Rollback``: the run stops and fails (no retry);
- ``builtin:Break``: the run is completed again later, ``count`` times ``interval`` minutes apart
  (the job is retried with that delay; its recorded steps are not run again).

A TODO module's failure is never handled (it reaches the person), and a retryable error (a 5xx)
is retried by the queue before any handler but Break or Rollback sees it (``make.Run.caught``).
"""

from __future__ import annotations

import ast

from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold import _code
from harness.scaffold._code import call, name, stmts

__all__ = ["DIRECTIVES", "emitted", "ending", "route_of"]

DIRECTIVES = ("builtin:Ignore", "builtin:Resume", "builtin:Commit", "builtin:Rollback", "builtin:Break")
_NOTES = {"builtin:Ignore": "the bundle stops here, the run goes on", "builtin:Resume": "its output stands in",
          "builtin:Commit": "the run stops here and succeeds", "builtin:Rollback": "the run fails (no retry)",
          "builtin:Break": "the run is retried later, count times"}


def route_of(module: Module) -> tuple[list[Module], Module | None]:
    """Return the handler route's modules before its directive, and the directive (None: Ignore)."""
    route = list(module.onerror)
    if route and route[-1].app in DIRECTIVES:
        return route[:-1], route[-1]
    return route, None


def ending(directive: Module, failed: int) -> list[ast.stmt]:
    """Return the statements of a directive that ends the run (Commit, Rollback, Break) or the
    handler route (Ignore: nothing more), inside the except block of module ``failed``."""
    exc = name(f"exc_{failed}")
    if directive.app == "builtin:Commit":
        return stmts("return")
    if directive.app == "builtin:Rollback":
        return [ast.Expr(call("run.rolled_back", failed, exc))]
    if directive.app == "builtin:Break":
        raw = {**directive.parameters, **directive.mapper}
        return [ast.Expr(call("run.broke", failed, exc, template(raw.get("count", 3)),
                              template(raw.get("interval", 15)), template(raw.get("retry", True))))]
    return [_code.comment("builtin:Ignore: the handler route ends here")]


def emitted(module: Module, code: ModuleCode, after: list[ast.stmt], route: list[ast.stmt],
            emit: list[ast.stmt] | None = None) -> list[ast.stmt]:
    """Return the module's lines, its error handler (``route``: the handler modules' statements),
    the emit of its bundle(s), then ``after`` (``emit``: what runs on the module's
    ``bundles_<id>`` instead, an Aggregator's loop)."""
    lines = list(code.lines)
    bundles, bundle, ok = name(f"bundles_{module.id}"), var(module), name(f"ok_{module.id}")
    if code.bundles is not None:
        lines += stmts("$bundles = list($source)", bundles=bundles, source=code.bundles)
        emit = emit if emit is not None else stmts("for $bundle in $bundles:\n    run.emit($id, $bundle)\n    $after",
                                                   bundle=bundle, bundles=bundles, id=module.id, after=after)
    else:
        if not (isinstance(code.bundle, ast.Name) and code.bundle.id == bundle.id):
            lines += stmts("$bundle = $value", bundle=bundle, value=code.bundle)
        emit = emit if emit is not None else [*stmts("run.emit($id, $bundle)", id=module.id, bundle=bundle), *after]
    if not module.onerror or code.todo is not None:
        return lines + emit
    _, directive = route_of(module)
    kind = directive.app if directive is not None else "builtin:Ignore"
    if kind == "builtin:Resume":
        resume = template(directive.mapper if directive is not None else {})
        action = (stmts("$bundles = [$resume]", bundles=bundles, resume=resume) if code.bundles is not None
                  else stmts("$bundle = $resume", bundle=bundle, resume=resume))
    elif kind == "builtin:Ignore":
        action = stmts("$ok = False", ok=ok)
    else:
        action = ending(directive, module.id)  # type: ignore[arg-type]
    caught = f"exc_{int(module.id)}"  # the handler's own name: a nested handler's except block does not unbind it
    return stmts(f"$ok = True\ntry:\n    $lines\nexcept Exception as {caught}:\n    $note\n    run.caught($id, $exc, $kind)\n"
                 "    $route\n    $action\nif $ok:\n    $emit", ok=ok, lines=lines, id=module.id, kind=kind,
                 exc=name(caught), note=_code.comment(f"error handler: {kind}: {_NOTES[kind]}", trailing=True),
                 route=route, action=action, emit=emit)
