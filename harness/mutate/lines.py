"""Which lines of one module each recorded trigger's run executed (the baseline replay).

Recorded with :func:`sys.settrace`, limited to one file: the global trace function returns a
line tracer only for frames of the automation module, so the rest of the replay (the queue,
the driver, the judge) runs untraced beyond the call event. Each traced frame is charged to the
trigger whose run it belongs to: the nearest frame up the stack that is the automation's own
function, whose trigger argument names the job's trigger (a child job's trigger id is
``<parent>/<key>``, charged to the parent). Several jobs run concurrently on one event loop,
so the attribution is per frame, not per moment; the ``coverage`` library's dynamic contexts
switch on function entry and stay switched, which would charge one job's lines to another
whenever their coroutines interleave.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Collection
from typing import Any


class LineRecorder:
    """Records executed lines of ``filename`` per trigger id while used as a context manager."""

    def __init__(self, filename: str, entry: types.CodeType, trigger_ids: Collection[str]) -> None:
        self.filename = filename
        self.entry = entry
        self.param = entry.co_varnames[1] if entry.co_argcount > 1 else "trigger"
        self.trigger_ids = frozenset(trigger_ids)
        self.hits: dict[str, set[int]] = {}
        self._saved: Any = None

    def _root(self, trigger_id: str) -> str | None:
        while trigger_id not in self.trigger_ids:
            if "/" not in trigger_id:
                return None
            trigger_id = trigger_id.rsplit("/", 1)[0]
        return trigger_id

    def _trigger_of(self, frame: types.FrameType) -> str | None:
        f: types.FrameType | None = frame
        while f is not None:
            if f.f_code is self.entry:
                tid = getattr(f.f_locals.get(self.param), "id", None)
                return self._root(str(tid)) if tid is not None else None
            f = f.f_back
        return None

    def _global(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.filename:
            return None
        tid = self._trigger_of(frame)
        if tid is None:
            return None
        lines = self.hits.setdefault(tid, set())

        def local(frame: types.FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    def __enter__(self) -> LineRecorder:
        self._saved = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._saved)
