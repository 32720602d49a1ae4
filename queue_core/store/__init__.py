"""The data-access layer: the statements of queue_core, behind one door per table family.

Each module runs named statements of ``queue_core/queries/*.sql`` on a pool or a connection the
caller holds, and turns rows into values; nothing above it calls ``_sql.q`` for those tables:

- ``jobs``: reading jobs, their ledger, counts, traces and results; emptying and vacuuming the
  jobs tables; the leases a draining worker waits for; the notifier's LISTEN;
- ``verdicts``: go-live gate verdicts, and worker-level ledger events (gate overrides);
- ``control``: pauses, a job's steps, the /metrics rows and the migration level (server.control,
  server.metrics);
- ``steps``: memoised steps and checkpoints of a running job;
- ``calls``: a gateway call's two statements (begin: lease, budget and intent; settle: the step,
  its ledger event and the budget's answer);
- ``waits``: waits, their tokens and timers;
- ``children`` and ``poller``: fan-out children and pollers' cursors and seen ids.

Claim, complete and heartbeat, the worker's hot path, stay in ``queue_core.queue`` for now.
"""
