-- Named queries for memoised steps, checkpoints and waits. Every write by a running job is fenced
-- by its claim: the job is running under this claim (claim_count) and the lease has not ended.
-- A worker whose lease was taken over, or simply ran out (a frozen or partitioned process: once it
-- has, another job of the same concurrency key may hold the key's slot), gets no row back and stops.
-- clock_timestamp(), not now(): the fence is read when the statement reaches it, also late in a
-- transaction (a poll), not when the transaction began.

-- name: load_steps
-- The job's key generation comes with its steps in one round trip; a job with no step yet gives
-- one row whose step columns are NULL.
SELECT j.key_generation, s.step_name, s.occurrence, s.position, s.step_version, s.status::text,
       s.attempt, s.output, s.error, s.error_type, s.checkpoint, s.checkpoint_version
FROM jobs j LEFT JOIN steps s ON s.job_id = j.id
WHERE j.id = %(job_id)s ORDER BY s.position

-- name: begin_step
-- The attempt count is committed before the step's code runs, so it survives a crash.
INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status, attempt,
                       started_at, input_hash, idempotency_key)
SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, %(version)s, 'running', 1, now(),
       %(input_hash)s, %(key)s
FROM jobs j
WHERE j.id = %(job_id)s AND j.claim_count = %(claim)s AND j.status = 'running'
  AND j.leased_until > clock_timestamp()
ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
SET attempt = s.attempt + 1, status = 'running', started_at = now(), finished_at = NULL,
    input_hash = excluded.input_hash, step_version = excluded.step_version,
    position = excluded.position
RETURNING attempt

-- name: finish_step
UPDATE steps s
SET status = %(status)s::step_status, output = %(output)s::jsonb, error = %(error)s,
    error_type = %(error_type)s, finished_at = now()
FROM jobs j
WHERE s.job_id = %(job_id)s AND s.step_name = %(name)s AND s.occurrence = %(occurrence)s
  AND j.id = s.job_id AND j.claim_count = %(claim)s AND j.status = 'running'
  AND j.leased_until > clock_timestamp()
RETURNING s.attempt

-- name: save_checkpoint
UPDATE steps s
SET checkpoint = %(checkpoint)s::jsonb, checkpoint_version = %(version)s
FROM jobs j
WHERE s.job_id = %(job_id)s AND s.step_name = %(name)s AND s.occurrence = %(occurrence)s
  AND j.id = s.job_id AND j.claim_count = %(claim)s AND j.status = 'running'
  AND j.leased_until > clock_timestamp()
RETURNING s.job_id

-- name: append_ledger
-- An event about a job written by someone who does not run it (the waker's condition errors).
INSERT INTO ledger (job_id, kind, actor, detail)
SELECT %(job_id)s, %(kind)s, %(actor)s, %(detail)s::jsonb

-- name: append_job_event
-- A running job's own event (ctx.ledger: calls replayed, intents, compensating), fenced like its
-- other writes.
INSERT INTO ledger (job_id, kind, actor, detail)
SELECT %(job_id)s, %(kind)s, %(actor)s, %(detail)s::jsonb
FROM jobs j
WHERE j.id = %(job_id)s AND j.claim_count = %(claim)s AND j.status = 'running'
  AND j.leased_until > clock_timestamp()
RETURNING seq

-- name: wait_secret
SELECT value FROM cutover_secrets WHERE name = 'wait_tokens'

-- name: register_wait
-- Create the wait unless it exists (it may exist already resolved: a token resolved before the
-- job got here). Returns the row either way.
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
ins AS (
    INSERT INTO waits (job_id, name, kind, token_hash, wake_at, on_timeout, predicate, params)
    SELECT %(job_id)s, %(name)s, %(kind)s, %(token_hash)s, %(wake_at)s, %(on_timeout)s,
           %(predicate)s, %(params)s::jsonb
    FROM fence
    ON CONFLICT (job_id, name) DO UPDATE
    SET wake_at = coalesce(waits.wake_at, excluded.wake_at),
        on_timeout = coalesce(waits.on_timeout, excluded.on_timeout),
        predicate = coalesce(waits.predicate, excluded.predicate),
        params = coalesce(waits.params, excluded.params),
        kind = CASE WHEN waits.resolved_at IS NULL THEN excluded.kind ELSE waits.kind END
    RETURNING kind, wake_at, on_timeout, resolved_at, decision, payload
)
SELECT kind, wake_at, on_timeout, resolved_at, decision, payload FROM ins

-- name: resolve_wait
-- Resolve a wait once: a second resolution changes nothing. A wait the job has not reached yet
-- is created resolved. A waiting job is woken (pending, due now) and workers are notified.
WITH r AS (
    INSERT INTO waits AS w (job_id, name, kind, token_hash, resolved_at, resolved_by, decision,
                            payload)
    SELECT j.id, %(name)s, %(kind)s, %(token_hash)s, now(), %(actor)s, %(decision)s,
           %(payload)s::jsonb
    FROM jobs j WHERE j.id = %(job_id)s
    ON CONFLICT (job_id, name) DO UPDATE
    SET resolved_at = now(), resolved_by = excluded.resolved_by, decision = excluded.decision,
        payload = excluded.payload
    WHERE w.resolved_at IS NULL
    RETURNING w.job_id
),
woke AS (
    UPDATE jobs SET status = 'pending', run_after = now()
    WHERE id IN (SELECT job_id FROM r) AND status = 'waiting'
    RETURNING id, automation
),
logged AS (
    INSERT INTO ledger (job_id, kind, actor, detail)
    SELECT job_id, 'wait_resolved', %(actor)s,
           jsonb_build_object('wait', %(name)s::text, 'decision', %(decision)s::text)
    FROM r
)
SELECT (SELECT count(*) FROM r) AS resolved, (SELECT count(*) FROM woke) AS woken,
       (SELECT pg_notify('cutover_jobs', automation) FROM woke LIMIT 1) AS notified

-- name: wake_due
-- Waiting jobs whose timer or timeout is due go back to pending (one statement, SKIP LOCKED).
WITH t AS MATERIALIZED (SELECT coalesce(%(now)s::timestamptz, now()) AS now),
woke AS (
    UPDATE jobs SET status = 'pending'
    WHERE id = ANY(ARRAY(
        SELECT id FROM jobs, t WHERE status = 'waiting' AND run_after <= t.now
        ORDER BY run_after LIMIT %(limit)s FOR UPDATE OF jobs SKIP LOCKED))
    RETURNING id
),
logged AS (
    INSERT INTO ledger (job_id, at, kind, actor, detail)
    SELECT id, t.now, 'woken', %(actor)s, '{}'::jsonb FROM woke, t
)
SELECT count(*) FROM woke

-- name: open_event_waits
SELECT job_id, name, predicate, params FROM waits
WHERE kind = 'event' AND resolved_at IS NULL
ORDER BY created_at LIMIT %(limit)s
