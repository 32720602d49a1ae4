"""Helpers for tests that run scaffolded automations on the real queue: load generated modules into
a registry of their own, and keep an in-process worker running while the test polls."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from psycopg_pool import AsyncConnectionPool

import queue_core.registry as reg
from queue_core import Worker, WorkerConfig
from queue_core.registry import Registry


def registry_of(paths: Iterable[Path], prefix: str) -> Registry:
    """Import each module file in ``paths`` (as ``<prefix>_<stem>``) with its ``@automation``s
    registered into a new Registry, not the process's default one."""
    registry = Registry()
    saved, reg.default_registry = reg.default_registry, registry
    try:
        for path in paths:
            spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
    finally:
        reg.default_registry = saved
    return registry


@asynccontextmanager
async def worker_running(pool: AsyncConnectionPool, registry: Registry, concurrency: int = 2) -> AsyncIterator[None]:
    """Run an in-process worker for the block; stop it (within 15 s) when the block ends."""
    worker = Worker(pool, registry, WorkerConfig(concurrency=concurrency, lease_s=5, poll_s=0.05))
    task = asyncio.create_task(worker.run())
    try:
        yield
    finally:
        worker.stop()
        await asyncio.wait_for(task, 15)
