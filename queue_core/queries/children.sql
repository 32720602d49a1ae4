-- Named queries for child jobs: ctx.enqueue links a child to its parent and records the step,
-- ctx.wait_for_children checks and reads its children in one query.

-- name: enqueue_child
-- ctx.enqueue's one round trip for a new child: the insert (the columns of queue.sql's
-- enqueue_many, plus parent_id, so no separate link), its 'enqueued' event, the parent's step row
-- and 'child_enqueued' event (live parents; record = false defers them), and the workers' wake-up,
-- all in one statement, so they commit together or not at all (no explicit transaction: BEGIN and
-- COMMIT were two of the five round trips). Every insert reads the fence: a parent whose claim
-- moved on writes nothing. ON CONFLICT on the dedupe key child:<parent>:<key>: a child that
-- already exists (a retry, a reclaim, or a concurrent enqueue) inserts nothing and returns no id;
-- the caller then takes the general path (enqueue_many's insert + link_child in a transaction).
-- pg_notify runs in a plain CTE, so the final SELECT reads it (an unread SELECT CTE never runs).
WITH fence AS MATERIALIZED (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
input AS (
    SELECT *
    FROM jsonb_to_recordset(%(child)s::jsonb)
        AS i(ord int, id uuid, automation text, version int, mode job_mode, priority int, payload jsonb,
             meta jsonb, run_after timestamptz, dedupe_key text, max_attempts int, max_claims int,
             trigger_id text, recording text, key text, key_limit int)
    WHERE EXISTS (SELECT 1 FROM fence)
),
slots AS (
    INSERT INTO concurrency_slots (key, slot)
    SELECT i.key, g FROM input i, generate_series(0, i.key_limit - 1) g
    WHERE i.key IS NOT NULL
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING
),
ins AS (
    INSERT INTO jobs (id, automation, automation_version, mode, priority, payload, trigger_meta,
                      run_after, created_at, dedupe_key, max_attempts, max_claims, trigger_id,
                      recording, concurrency_key, concurrency_limit, parent_id)
    SELECT i.id, i.automation, i.version, i.mode, i.priority, coalesce(i.payload, 'null'::jsonb),
           coalesce(i.meta, '{}'::jsonb), coalesce(i.run_after, now()), now(), i.dedupe_key,
           i.max_attempts, i.max_claims, i.trigger_id, i.recording, i.key, i.key_limit, %(job_id)s
    FROM input i
    ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
    RETURNING id, automation, mode
),
enqueued AS (
    INSERT INTO ledger (job_id, kind, actor, detail)
    SELECT ins.id, 'enqueued', %(actor)s, jsonb_build_object('automation', ins.automation, 'mode', ins.mode)
    FROM ins
),
recorded AS (
    INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status,
                           attempt, started_at, finished_at, output, idempotency_key)
    SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, 1, 'done', 1, now(), now(),
           jsonb_build_object('child', ins.id::text), %(key)s
    FROM ins WHERE %(record)s
    ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
    SET status = 'done', output = excluded.output, finished_at = now(), attempt = s.attempt + 1,
        position = excluded.position
),
logged AS (
    INSERT INTO ledger (job_id, kind, actor, detail)
    SELECT %(job_id)s, 'child_enqueued', %(actor)s,
           jsonb_build_object('child', ins.id::text, 'key', %(child_key)s::text,
                              'automation', ins.automation)
    FROM ins WHERE %(record)s
),
woken AS (
    SELECT pg_notify('cutover_jobs', ins.automation) FROM ins
)
SELECT EXISTS (SELECT 1 FROM fence), (SELECT id FROM ins), (SELECT count(*) FROM woken)

-- name: link_child
-- Runs in the transaction that enqueued the child (dedupe key child:<parent>:<key>, so a
-- retry or reclaim finds the same child), after that insert: the child's parent link, the
-- parent's step row (output: the child's id) and a ledger event commit with it or not at all.
-- Fenced by the parent's claim: no row back means another worker took the parent over, and the
-- caller rolls the enqueue back. A shadow/dry-run parent defers its step row (record = false).
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
linked AS (
    UPDATE jobs SET parent_id = %(job_id)s
    WHERE id = %(child_id)s AND parent_id IS NULL AND EXISTS (SELECT 1 FROM fence)
),
recorded AS (
    INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status,
                           attempt, started_at, finished_at, output, idempotency_key)
    SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, 1, 'done', 1, now(), now(),
           %(output)s::jsonb, %(key)s
    FROM fence WHERE %(record)s
    ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
    SET status = 'done', output = excluded.output, finished_at = now(), attempt = s.attempt + 1,
        position = excluded.position
),
logged AS (
    INSERT INTO ledger (job_id, kind, actor, detail)
    SELECT %(job_id)s, 'child_enqueued', %(actor)s,
           jsonb_build_object('child', %(child_id)s::text, 'key', %(child_key)s::text,
                              'automation', %(automation)s::text)
    FROM fence WHERE %(record)s
)
SELECT 1 FROM fence

-- name: children_settled
-- A waiting parent's check in one query: while a child is unfinished, one row whose first column
-- is true (and nothing else is read: the jobs_parent index makes it one probe); once none is, a
-- row per child with how it ended (id, key, automation, status, error, outputs, returned), or one row of
-- NULLs for a parent without children. Outputs come from the child's stored decision trace; returned
-- is the output of its `ctx:returned` step (ctx.step), live or not: step rows exist in every mode.
WITH unfinished AS MATERIALIZED (
    SELECT EXISTS (
        SELECT 1 FROM jobs
        WHERE parent_id = %(parent_id)s
          AND status NOT IN ('succeeded', 'failed', 'canceled', 'dead', 'compensation_failed')
    ) AS any
)
SELECT u.any, c.id, c.key, c.automation, c.status, c.last_error, c.outputs, c.returned
FROM unfinished u
LEFT JOIN LATERAL (
    SELECT j.id, j.trigger_meta->>'key' AS key, j.automation, j.status::text AS status, j.last_error,
           d.trace->'outputs' AS outputs, j.created_at,
           (SELECT s.output FROM steps s
            WHERE s.job_id = j.id AND s.step_name = 'ctx:returned' AND s.status = 'done'
            ORDER BY s.occurrence DESC LIMIT 1) AS returned
    FROM jobs j LEFT JOIN decisions d ON d.job_id = j.id
    WHERE j.parent_id = %(parent_id)s AND NOT u.any
) c ON true
ORDER BY c.created_at, c.key

-- name: children_of
-- For `jobs explain`: a parent's children by status.
SELECT status::text, count(*), array_agg(trigger_meta->>'key' ORDER BY created_at)
FROM jobs WHERE parent_id = %(parent_id)s
GROUP BY status ORDER BY status
