"""An AI Agent's Simple Memory (n8n's ``memoryBufferWindow``) at run time, kept in Postgres.

What n8n does: the memory sub-node names a session (``sessionIdType`` ``fromInput``: the item's
``sessionId``; ``customKey``: its ``sessionKey``, a number or boolean as text) and keeps, per
workflow and session, LangChain's BufferWindowMemory: before the agent's model call its last
``contextWindowLength`` turns go between the system message and the prompt (each turn the human
input, then the agent's answer), and after the answer the turn (the prompt, the ``output``) is
appended. The session is the first item's: n8n supplies the memory once per run of the node, and
every item of that run reads and appends the one session. n8n keeps the turns in the worker's
process memory (lost on a restart, dropped after an hour unused); here they are rows of
``ai_memory`` (``queue_core.store.ai_memory``), so every run of the automation, on any worker,
sees the session's turns.

Each use of memory in a run takes the run's next ordinal (its position in the run, the same on a
retry): the append is fenced by the job's claim (a job whose lease was lost writes nothing and
stops) and is not repeated by a retried attempt, whose reads leave out what its earlier attempt
wrote from that point on. Shadow and dry-run jobs read and write ``replay_ai_memory`` of their
recording set (a replayed turn is the recorded input and output), never a live session. A
context that is not a job's (a proof's) keeps the turns for the run only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..context import Context, job_run
from ..errors import NodeFailed
from ..states import Mode
from ..store import ai_memory as store

Turn = tuple[str, str]


def session_id(value: Any, node: str, *, custom: bool | None) -> str:
    """Return the session key as n8n coerces it (text; a number or boolean as text), else NodeFailed.

    ``custom``: the key is the ``sessionKey`` (True) or the item's ``sessionId`` (False), both
    required (v1.2+); None: v1/v1.1's ``sessionKey``, which may be empty.
    """
    if value in ("", None) and custom is not None:
        raise NodeFailed(f"{node}: Key parameter is empty" if custom else f"{node}: No session ID found")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else repr(value)
    if not isinstance(value, str):
        raise NodeFailed(f"{node}: Invalid session ID (the session ID must be a text value)")
    return value


def _state(flow: Any) -> dict[str, Any]:
    state: dict[str, Any] | None = getattr(flow, "_ai_memory", None)
    if state is None:
        state = {"ordinal": 0, "local": {}}
        flow._ai_memory = state
    return state


def _recording(ctx: Context) -> str | None:
    return None if ctx.mode == Mode.LIVE.value else (job_run(ctx).job.recording or "")


def next_ordinal(flow: Any) -> int:
    """Return the run's next memory ordinal (0, 1, …: the same sequence on every attempt)."""
    state = _state(flow)
    state["ordinal"] += 1
    return int(state["ordinal"]) - 1


async def history(flow: Any, session: str, k: int, ordinal: int) -> list[Turn]:
    """Return the session's last ``k`` turns, oldest first (n8n's window: every turn when ``k`` is 0)."""
    ctx = flow.ctx
    if not isinstance(ctx, Context):
        turns = _state(flow)["local"].get(session, [])
        return list(turns[-k:] if k > 0 else turns)
    run = job_run(ctx)
    return await store.read(run.pool, run.automation, session, k=k if k > 0 else None, job_id=run.job_id,
                            ordinal=ordinal, recording=_recording(ctx))


async def remember(flow: Any, session: str, turn: Turn, ordinal: int) -> None:
    """Append the turn to the session, fenced by the job's claim (LeaseLostError when it is gone)."""
    ctx = flow.ctx
    if not isinstance(ctx, Context):
        _state(flow)["local"].setdefault(session, []).append(turn)
        return
    run = job_run(ctx)
    if not await store.append(run.pool, run.automation, session, turn, job_id=run.job_id,
                              claim=run.job.claim_count, ordinal=ordinal, recording=_recording(ctx)):
        raise run.lease_lost()


def messages(turns: list[Turn]) -> list[dict[str, Any]]:
    """Return the turns as the chat messages LangChain sends: the human input, then the answer."""
    return [m for given, answered in turns for m in ({"role": "user", "content": given},
                                                     {"role": "assistant", "content": answered})]


def session_of(memory: Mapping[str, Any], node: str, items: list[Any]) -> str:
    """Return the session of an agent's run: n8n supplies its memory once, for the first item.

    ``memory``: ``{session: (item, index) -> key, k, custom}`` (the sub-node's parameters).
    """
    key: Callable[[Any, int], Any] = memory["session"]
    return session_id(key(items[0] if items else {}, 0), node, custom=memory.get("custom"))


async def recall(flow: Any, memory: Mapping[str, Any], session: str, request: dict[str, Any]) -> int:
    """Put the session's window into ``request`` (before its last message, the prompt); return the ordinal."""
    ordinal = next_ordinal(flow)
    turns = await history(flow, session, int(memory.get("k", 5)), ordinal)
    request["messages"][-1:-1] = messages(turns)
    return ordinal


__all__ = ["history", "messages", "next_ordinal", "recall", "remember", "session_id", "session_of"]
