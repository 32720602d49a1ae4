"""The data-access layer: the statements of queue_core, behind one door per table family.

Each module runs named statements of ``queue_core/queries/*.sql`` on a pool or a connection the
caller holds, and turns rows into values; nothing above it calls ``_sql.q`` for those tables:

- ``history``: the run history, every job newest first, filtered and paged with a keyset
  (``cutover jobs list``, GET /jobs);
- ``jobs``: reading jobs, their ledger, counts, traces and results, and a batch of jobs with
  their descendants (the shadow replay's ``tree_results``); emptying and vacuuming the jobs
  tables; the leases a draining worker waits for; the notifier's LISTEN;
- ``ops``: an operator's replay, cancel and explain of one job (queue_core.ops), on the
  connection of its transaction;
- ``verdicts``: go-live gate verdicts, and worker-level ledger events (gate overrides);
- ``control``: pauses, a job's steps, the /metrics rows and the migration level (server.control,
  server.metrics);
- ``steps``: memoised steps and checkpoints of a running job;
- ``calls``: a gateway call's two statements (begin: lease, budget and intent; settle: the step,
  its ledger event and the budget's answer);
- ``waits``: waits, their tokens and timers;
- ``children`` and ``poller``: fan-out children (and their grouping for ``jobs explain``) and
  pollers' cursors, seen ids and listing;
- ``schedules``: the tick producer's sync, claim and advance of schedules, and their listing;
- ``budgets``: provider rate budgets (ensure, checkout, answer, 429 counts, paused providers,
  states);
- ``tokens``: the control API's bearer tokens and the audit row of each change;
- ``ingress``: webhook deliveries' existing dedupe keys, replayed bodies and refused replays.

- ``leases``: the worker's hot path: claim, complete, a turn (both in one statement) and the
  heartbeat; ``queue_core.queue.Queue`` builds their parameters and reads their rows;
- ``provision``: the provisioner's synchronous statements (ping, the template's lock and flag,
  creating, copying and dropping databases), which run before any schema exists.
- ``n8n_statements``: not the queue's: the parts of the statements migrated n8n Postgres nodes
  send to their SQL provider (queue_core.compat._n8n_postgres).

``jobs`` also holds the enqueue statement and its wake-up, ``waits`` the waker's (due timers,
open conditions, resolving a wait). No module outside this package calls ``_sql.q``
(tests/unit/test_store_door.py keeps it so).
"""
