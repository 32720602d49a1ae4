"""Translate a cycle of an n8n workflow into a Python ``while`` loop, and SplitInBatches into its batches.

n8n runs a node each time items reach it, so a connection back to an earlier node (a "Loop Over
Items", a poll that waits and asks again) runs the nodes of the cycle again for the items that
came back. The scaffold writes it so (``Workflow.plan`` finds the cycle, its header and body)::

    loop_over_items_loop = n8n.loop(flow, 'Loop Over Items', batch_size=2, reset=False, version=3)
    loop_over_items_0_all: n8n.Items = []
    loop_over_items_in = items_from_before_the_loop
    while loop_over_items_loop.again(loop_over_items_in):
        loop_over_items_0, loop_over_items_1 = loop_over_items_loop.batches(loop_over_items_in)
        ...                                   # the body, in n8n's run order
        loop_over_items_0_all += loop_over_items_0
        loop_over_items_in = what_came_back
    # after the loop, the nodes on its exits get every item that left it

``loop.again`` is the guard (past ``max_iterations`` it fails naming the node). Each node's run
is recorded by the Flow (``flow.runs``: one entry per run, as n8n's runData), its latest run in
the trace. A Wait in the body stays a durable ``ctx.sleep``: each iteration's sleep is its own
(name, occurrence) step. What is not n8n's: the nodes after an exit that items leave by in
several iterations run once, after the loop, on all of them (n8n runs them each time).
"""

from __future__ import annotations

import ast
from typing import Protocol

from harness.platforms.n8n.definition import Edge, Loop, Node, Plan, Workflow
from harness.platforms.n8n.translate import nodes
from harness.platforms.n8n.translate.nodes import NodeCode, Slot
from harness.scaffold import _code
from harness.scaffold._code import name, stmts

SPLIT_IN_BATCHES = "splitInBatches"


class Builder(Protocol):
    """What the module assembly offers a loop: the names, the outputs so far, node and block code."""

    workflow: Workflow
    names: dict[str, str]
    outputs: dict[str, list[str]]

    def node(self, node: str, inputs: tuple[ast.expr, ...] | None = None, todo: str | None = None) -> list[ast.stmt]:
        ...

    def block(self, plan: Plan) -> list[ast.stmt]: ...


def state_var(builder: Builder, node: str) -> str:
    """Return the variable that holds a loop's (or a SplitInBatches node's) state."""
    return f"{builder.names[node]}_loop"


def states(builder: Builder, loop: Loop) -> list[ast.stmt]:
    """Return the SplitInBatches states of ``loop``'s nodes: made once, before the outermost loop.

    n8n keeps a SplitInBatches node's items in its node context for the whole execution, so a
    loop that is entered again (inside another loop) goes on where it stopped, unless Reset.
    """
    lines: list[ast.stmt] = []
    for member in sorted(loop.members(), key=list(builder.names).index):
        node = builder.workflow.nodes[member]
        if node.short_type == SPLIT_IN_BATCHES:
            lines += stmts("$var = $state", var=name(state_var(builder, member)), state=_state(node))
    return lines


def _state(node: Node) -> ast.expr:
    settings = node.settings
    raw = settings.get("options")
    options: dict[str, object] = raw if isinstance(raw, dict) else {}
    return _code.call("n8n.loop", name("flow"), node.name, batch_size=settings.get("batchSize", 1),
                      reset=options.get("reset") is True, version=node.version)


def loop_lines(builder: Builder, loop: Loop) -> list[ast.stmt]:
    """Return the ``while`` loop of ``loop``: its header, its body, what leaves it and what comes back."""
    workflow, members = builder.workflow, loop.members()
    header = workflow.nodes[loop.header]
    stem = builder.names[loop.header]
    inp = name(f"{stem}_in")
    entry = _joined([e for e in workflow.parents(loop.header) if e.source not in members], builder.outputs)
    lines: list[ast.stmt] = [_code.comment(
        f"loop: {loop.header!r} and the {len(members) - 1} node(s) after it run again for the items that come "
        "back to it, as n8n runs a connection back")]
    guard = state_var(builder, loop.header)
    if header.short_type != SPLIT_IN_BATCHES:
        lines += stmts("$guard = n8n.loop(flow, $node)", guard=name(guard), node=loop.header)
    several = any(e.input for e in workflow.parents(loop.header))  # a Merge: which input came back matters
    todo = ("the first node of a loop with several inputs (a Merge fed from inside and outside the loop) is not "
            "translated: write which input each run reads") if several else None
    body = builder.node(loop.header, (inp,), todo=todo) + builder.block(list(loop.body))
    back = _joined(list(loop.back), builder.outputs)
    exits = _exits(workflow, members, builder.outputs)
    accumulators = {var: f"{var}_all" for var in exits}
    lines += [stmt for acc in accumulators.values() for stmt in stmts("$acc: n8n.Items = []", acc=name(acc))]
    collect = [stmt for var, acc in accumulators.items()
               for stmt in stmts("$acc += $var", acc=name(acc), var=name(var))]
    lines += stmts("$inp = $entry\nwhile $guard.again($inp):\n    $body\n    $collect\n    $inp = $back",
                   inp=inp, entry=entry, guard=name(guard), body=body, collect=collect, back=back)
    for source, produced in builder.outputs.items():
        if source in members:
            builder.outputs[source] = [accumulators.get(var, var) for var in produced]
    return lines


def _joined(edges: list[Edge], outputs: dict[str, list[str]]) -> ast.expr:
    parts: list[ast.expr] = []
    for edge in edges:
        produced = outputs.get(edge.source)
        if produced is not None and edge.output < len(produced):
            parts.append(name(produced[edge.output]))
    if not parts:
        return ast.List([], ast.Load())
    total = parts[0]
    for part in parts[1:]:
        total = ast.BinOp(total, ast.Add(), part)
    return total


def _exits(workflow: Workflow, members: set[str], outputs: dict[str, list[str]]) -> list[str]:
    """Return the output variables of the loop's nodes that a node outside the loop reads."""
    found: list[str] = []
    for edge in workflow.edges:
        if edge.source in members and edge.target not in members and edge.source in outputs:
            produced = outputs[edge.source]
            if edge.output < len(produced) and produced[edge.output] not in found:
                found.append(produced[edge.output])
    return found


def split_in_batches(node: Node, slot: Slot, state: str | None) -> NodeCode:
    """SplitInBatches ("Loop Over Items"): the next batch of its items, or (v2, v3) every processed one.

    ``state`` is the loop state the enclosing ``while`` keeps; a node in no cycle runs once.
    """
    count = 1 if node.version < 2 else 2
    outs = [f"{slot.var}_{i}" for i in range(count)]
    target = ast.Tuple([name(o) for o in outs], ast.Store())
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    if state is not None:
        lines = stmts("$outs = $state.batches($inp)", outs=target, state=name(state), inp=inp)
    else:
        lines = stmts("$outs = $loop.batches($inp) if $inp else $empty", outs=target, loop=_state(node), inp=inp,
                      empty=[[] for _ in outs])
    return NodeCode([nodes.comment(node), *lines], outs)

