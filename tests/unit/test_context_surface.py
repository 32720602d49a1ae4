"""The Context is the authors' surface: small, documented in the README and its docstring, and
free of the runtime's plumbing (which lives on the job handle, queue_core._job_run.JobRun)."""

from __future__ import annotations

import inspect
import uuid
from datetime import datetime, timezone
from pathlib import Path

from queue_core import Context
from queue_core._job_run import JobRun
from queue_core.context import job_run
from queue_core.job import ClaimedJob
from queue_core.states import Mode

ROOT = Path(__file__).resolve().parents[2]
PLUMBING = {"begin_call", "finish_call", "load_call", "record_intent", "deferred_writes", "redactor",
            "compensations", "enter", "record", "remember", "settle_call", "store"}


def _context() -> Context:
    now = datetime.now(timezone.utc)
    job = ClaimedJob(uuid.uuid4(), "a", 1, Mode.LIVE, 0, {}, {}, 0, 5, 1, now, now, None, None, False)
    return Context(job, None, worker="w")  # type: ignore[arg-type]  # no pool: no statement is run


def _public(ctx: Context) -> set[str]:
    return {n for n in dir(ctx) if not n.startswith("_")}


def test_every_public_name_of_the_context_is_in_the_readme_table_and_the_docstring():
    section = (ROOT / "README.md").read_text().split("### The Context surface", 1)[1].split("\n### ", 1)[0]
    doc = inspect.getdoc(Context) or ""
    undocumented = sorted(n for n in _public(_context()) if f"ctx.{n}" not in section)
    assert undocumented == []
    assert sorted(n for n in _public(_context()) if f"``{n}``" not in doc) == []


def test_the_context_shows_authors_no_plumbing_and_hands_the_runtime_its_job_handle():
    ctx = _context()
    assert _public(ctx) & PLUMBING == set()
    run = job_run(ctx)
    assert isinstance(run, JobRun) and run.job_id == ctx.job_id and run.mode == ctx.mode
    methods = [n for n, v in vars(Context).items() if inspect.isfunction(v) and not n.startswith("_")]
    assert len(methods) <= 20
