"""Replay processes: a shadow run's batches are replayed and judged in child processes.

pytest runs items one at a time in one process, and a trigger's item costs pytest about as
much CPU as a third of its replay. So :class:`ReplayProcesses` (the parent side) starts
``replayers`` children (``python -m harness.shadow._replay_processes``), hands each batch of triggers to one of
them a batch or two ahead of the items, and gives the outcomes back in the order the batches
were handed out; the items then only read them. The children replay into databases the parent
provisions (one each, dropped at the end), so a child's workers never run another's jobs.

The messages are pickles over two pipes per child (:class:`multiprocessing.connection.Connection`):
the parent sends one start message (settings, the set's index without its trigger
references, accepted differences, database URL, ``sys.path``), then ``("batch", refs)`` per
batch and ``None`` to stop; the child answers each batch, in order, with ``("results", list of ItemResult)`` or
``("crashed", traceback)``. Each child reads and writes its pipes on threads of its own, so
neither side waits on a full pipe while the other is busy. A child's output goes to
``replayer-<process>-<n>.log`` in the run's temporary results directory; when a child dies,
the triggers it owed are errors quoting the end of that output, and the rest of the run fails
fast the same way (the process is not restarted: what killed it would likely kill it again).
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import traceback
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from harness.errors import ReplayError
from harness.shadow.backend import Backend
from harness.shadow.batch import BatchReplayer
from harness.shadow.index import TriggerRef
from harness.shadow.outcome import ItemResult, TriggerOutcome

if TYPE_CHECKING:
    from collections.abc import Sequence

LOG_TAIL_LINES = 30


class _Child:
    """One replay process, its two pipes and its log file."""

    def __init__(self, number: int, log_path: Path) -> None:
        self.number = number
        self.log_path = log_path
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        self._log: IO[bytes] = log_path.open("ab")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.shadow._replay_processes", str(to_child_r), str(from_child_w)],
                pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT, cwd=os.getcwd(),
            )
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.send = Connection(to_child_w, readable=False)
        self.recv = Connection(from_child_r, writable=False)

    def log_tail(self) -> str:
        self._log.flush()
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").rstrip().splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-LOG_TAIL_LINES:])

    def stop(self, *, wait_s: float) -> None:
        try:
            self.send.send(None)
        except OSError:
            pass  # already gone
        try:
            self.process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for conn in (self.send, self.recv):
            conn.close()
        self._log.close()


class ReplayProcesses(Backend):
    """The parent side: hands batches to ``settings.replayers`` child processes, in turn."""

    def __init__(self, replayer: BatchReplayer) -> None:
        settings = replayer.settings
        self._replayer = replayer
        self.ahead = settings.replayers * settings.ahead
        self._children: list[_Child] = []
        self._urls: list[str] = []
        self._owed: deque[tuple[_Child | None, list[TriggerRef]]] = deque()
        self._turn = 0
        self._started = False
        self._failure: str | None = None
        try:  # the processes import what they need while this one collects
            settings.results_dir.mkdir(parents=True, exist_ok=True)
            for number in range(settings.replayers):
                log = settings.results_dir / f"replayer-{settings.process_id}-{number}.log"
                self._children.append(_Child(number, log))
        except OSError as exc:
            self._failure = f"cannot start a replay process: {exc}"

    def _start(self) -> None:
        """Provision a database per process and send each its start message (once)."""
        from queue_core import provision

        self._started = True
        if self._failure is not None:
            return
        run = self._replayer
        shell = run.index.shell()
        try:
            for child in self._children:
                self._urls.append(provision.fresh_database("cutover_shadow"))
                child.send.send({"settings": run.settings, "index": shell, "entries": run.entries,
                                 "accepted_path": run.accepted_path, "db_url": self._urls[-1],
                                 "sys_path": list(sys.path)})
        except Exception as exc:  # no database, or a process already gone: every item says why
            self._failure = f"cannot start the replay: {exc}"

    @property
    def in_flight(self) -> int:
        return len(self._owed)

    def submit(self, refs: list[TriggerRef]) -> None:
        if not self._started:
            self._start()
        if self._failure is not None or not self._children:
            self._owed.append((None, refs))
            return
        child = self._children[self._turn % len(self._children)]
        self._turn += 1
        try:
            child.send.send(("batch", refs))
        except OSError:
            pass  # it died: receive() reports how
        self._owed.append((child, refs))

    def receive(self) -> list[ItemResult]:
        child, refs = self._owed.popleft()
        if self._failure is not None or child is None:
            return self._errors(refs)
        try:
            message = child.recv.recv()
        except (EOFError, OSError):
            code = child.process.wait()
            tail = child.log_tail()
            first = refs[0]
            self._failure = (f"the replay process {child.number} (pid {child.process.pid}) exited with status {code} "
                             f"while replaying a batch of {len(refs)} trigger(s) from {first.automation} "
                             f"{first.trigger_id} on; "
                             + (f"its output ended with:\n{tail}" if tail else "it printed nothing"))
            return self._errors(refs)
        kind, payload = message
        if kind == "results":
            results: list[ItemResult] = payload
            return results
        # a bug in the replay or the judging: this batch fails with the traceback, the rest go on
        return self._errors(refs, f"the replay process raised:\n{payload}")

    def _errors(self, refs: Sequence[TriggerRef], error: str | None = None) -> list[ItemResult]:
        return [self._replayer.settle(TriggerOutcome(ref, "error", error=error or self._failure)) for ref in refs]

    def close(self) -> None:
        from queue_core import provision

        idle = not self._owed
        for child in self._children:
            child.stop(wait_s=5.0 if idle else 0.0)  # a busy child's work is no longer wanted
        self._children.clear()
        self._owed.clear()
        for url in self._urls:
            try:
                provision.drop_database(url)
            except Exception:  # noqa: BLE001 - best effort: the run's results are already written
                pass
        self._urls.clear()


def _reader(conn: Connection, inbox: queue.Queue[bytes | None]) -> None:
    try:
        while True:
            inbox.put(conn.recv_bytes())
    except (EOFError, OSError):
        inbox.put(None)


def _writer(conn: Connection, outbox: queue.Queue[bytes | None]) -> None:
    while (data := outbox.get()) is not None:
        try:
            conn.send_bytes(data)
        except OSError:
            return  # the parent is gone; the main thread stops on its end of file


def child_main(read_fd: int, write_fd: int) -> int:
    """Run one replay process until the parent says stop or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    incoming, outgoing = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        start = incoming.recv()
    except EOFError:
        start = None
    if start is None:
        return 0  # started ahead of need (while pytest collected), and not needed after all
    sys.path[:] = start["sys_path"]
    run = BatchReplayer(start["settings"], start["index"], start["entries"], start["accepted_path"],
                        db_url=start["db_url"])
    inbox: queue.Queue[bytes | None] = queue.Queue()
    outbox: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_reader, args=(incoming, inbox), daemon=True).start()
    writer = threading.Thread(target=_writer, args=(outgoing, outbox), daemon=True)
    writer.start()
    try:
        while (data := inbox.get()) is not None:
            message = pickle.loads(data)
            if message is None:
                break
            _, refs = message
            try:
                answer: tuple[str, Any] = ("results", run.replay_batch(refs))
            except ReplayError as exc:
                answer = ("crashed", str(exc))
            except Exception:  # noqa: BLE001 - reported to the parent, which fails the batch's items
                answer = ("crashed", traceback.format_exc())
            outbox.put(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        outbox.put(None)
        writer.join()
        run.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(child_main(int(sys.argv[1]), int(sys.argv[2])))
