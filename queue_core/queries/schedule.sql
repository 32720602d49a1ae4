-- Named queries of the schedules: sync the declarations, produce due ticks, list.

-- name: sync_schedules
-- Every worker upserts the schedules it declares at start, in name order (two workers starting
-- at once take the rows' locks in the same order: no deadlock). An unchanged row is not
-- rewritten; a changed cron or timezone restarts the schedule at its next tick from now (the
-- old one's missed ticks are not caught up under the new expression).
WITH input AS (
    SELECT *
    FROM jsonb_to_recordset(%(schedules)s::jsonb)
        AS i(name text, automation text, cron text, timezone text, catch_up text, catch_up_max int,
             payload jsonb, paused boolean, source text, next_tick timestamptz)
)
INSERT INTO schedules AS s (name, automation, cron, timezone, catch_up, catch_up_max, payload,
                            paused, source, next_tick)
SELECT name, automation, cron, timezone, catch_up, catch_up_max, coalesce(payload, '{}'), paused,
       source, next_tick
FROM input
ORDER BY name
ON CONFLICT (name) DO UPDATE
SET automation = excluded.automation, cron = excluded.cron, timezone = excluded.timezone,
    catch_up = excluded.catch_up, catch_up_max = excluded.catch_up_max, payload = excluded.payload,
    paused = excluded.paused, source = excluded.source, updated_at = now(),
    next_tick = CASE WHEN (s.cron, s.timezone) = (excluded.cron, excluded.timezone) THEN s.next_tick
                     ELSE excluded.next_tick END
WHERE (s.automation, s.cron, s.timezone, s.catch_up, s.catch_up_max, s.payload, s.paused, s.source)
      IS DISTINCT FROM (excluded.automation, excluded.cron, excluded.timezone, excluded.catch_up,
                        excluded.catch_up_max, excluded.payload, excluded.paused, excluded.source)

-- name: drop_undeclared
-- A schedule of one of this worker's automations that it no longer declares is removed.
DELETE FROM schedules
WHERE automation = ANY(%(automations)s::text[]) AND name <> ALL(%(names)s::text[])
RETURNING name

-- name: producer_timeout
-- The producer's transaction holds its schedules' row locks (the producer lease) while Python
-- plans the ticks: a worker frozen mid-way loses them after this long instead of holding them.
SELECT set_config('idle_in_transaction_session_timeout', '30s', true)

-- name: claim_due
-- The due schedules of this worker's automations, locked for this transaction. SKIP LOCKED:
-- another worker producing some of them now is not waited on, it owns those ticks; rows it
-- advanced before this snapshot are rechecked at their newest next_tick and drop out. A paused
-- automation's schedule is claimed too, so that its ticks are skipped, not caught up on resume.
WITH t AS MATERIALIZED (SELECT coalesce(%(now)s::timestamptz, now()) AS now)
SELECT s.name, s.automation, s.cron, s.timezone, s.catch_up, s.catch_up_max, s.payload,
       s.next_tick,
       s.paused OR EXISTS (SELECT 1 FROM pauses p
                           WHERE p.kind = 'automation' AND p.name = s.automation) AS paused,
       t.now
FROM schedules s, t
WHERE s.next_tick <= t.now AND s.automation = ANY(%(automations)s::text[])
ORDER BY s.next_tick
LIMIT %(limit)s
FOR UPDATE OF s SKIP LOCKED

-- name: advance
-- Move the claimed schedules on, in the transaction that enqueued their ticks.
UPDATE schedules s
SET next_tick = a.next_tick, last_tick = coalesce(a.last_tick, s.last_tick),
    producer = %(worker)s, produced_at = now()
FROM jsonb_to_recordset(%(rows)s::jsonb) AS a(name text, next_tick timestamptz, last_tick timestamptz)
WHERE s.name = a.name

-- name: list_schedules
SELECT s.name, s.automation, s.cron, s.timezone, s.catch_up, s.last_tick, s.next_tick,
       s.paused AS paused_in_config,
       EXISTS (SELECT 1 FROM pauses p WHERE p.kind = 'automation' AND p.name = s.automation)
           AS automation_paused,
       s.producer, s.source
FROM schedules s
ORDER BY s.name

-- name: db_now
-- The database clock: every worker plans ticks against the same one.
SELECT now()
