"""The errors of the Power Automate runtime (``queue_core.compat.power_automate``): an action that
failed, an action left to write, a Terminate. Kept here, beside the runtime, because
``queue_core/errors.py`` is full (the house limit on a file's lines)."""

from __future__ import annotations

from typing import Any

from ..errors import TerminalError


class ActionFailed(TerminalError):
    """An action of a scaffolded Power Automate flow failed (``code`` as Logic Apps names it); the
    actions that run after it on ``Failed`` then run. ``outputs`` are what it still produced (an
    HTTP answer with an error status)."""

    def __init__(self, message: str, code: str = "ActionFailed", outputs: Any = None) -> None:
        super().__init__(message)
        self.code, self.outputs = code, outputs


class TodoAction(TerminalError):
    """An action the scaffold could not translate was reached: the run fails, naming it (never
    handled by a runAfter ``Failed`` branch: it is code to write, not a failure of the flow)."""

    def __init__(self, action: str, why: str) -> None:
        super().__init__(f"action {action!r} is not translated yet (TODO: {why}); write it in Python")
        self.action = action


class FlowTerminated(TerminalError):
    """A Terminate action ended the run with ``status`` (Succeeded, Failed or Cancelled)."""

    def __init__(self, status: str, code: str = "", message: str = "") -> None:
        super().__init__(f"terminated: {status}" + (f" ({code}: {message})" if code or message else ""))
        self.status, self.code, self.message = status, code, message
