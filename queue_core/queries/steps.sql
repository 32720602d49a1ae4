-- Named queries for memoised steps. Every write is fenced by the job's claim: a worker whose
-- lease was taken over gets no row back and stops.

-- name: load_steps
SELECT step_name, occurrence, position, step_version, status::text, attempt, output, error,
       checkpoint, checkpoint_version
FROM steps WHERE job_id = %(job_id)s ORDER BY position

-- name: begin_step
-- The attempt count is committed before the step's code runs, so it survives a crash.
INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status, attempt,
                       started_at, input_hash, idempotency_key)
SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, %(version)s, 'running', 1, now(),
       %(input_hash)s, %(key)s
FROM jobs j
WHERE j.id = %(job_id)s AND j.claim_count = %(claim)s AND j.status = 'running'
ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
SET attempt = s.attempt + 1, status = 'running', started_at = now(), finished_at = NULL,
    input_hash = excluded.input_hash, step_version = excluded.step_version
RETURNING attempt

-- name: finish_step
UPDATE steps s
SET status = %(status)s::step_status, output = %(output)s::jsonb, error = %(error)s,
    external_ref = coalesce(%(external_ref)s, s.external_ref), finished_at = now()
FROM jobs j
WHERE s.job_id = %(job_id)s AND s.step_name = %(name)s AND s.occurrence = %(occurrence)s
  AND j.id = s.job_id AND j.claim_count = %(claim)s AND j.status = 'running'
RETURNING s.attempt

-- name: append_ledger
INSERT INTO ledger (job_id, kind, actor, detail)
SELECT %(job_id)s, %(kind)s, %(actor)s, %(detail)s::jsonb
