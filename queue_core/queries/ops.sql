-- Named queries for operators: replay, cancel, explain.

-- name: lock_job
SELECT id, status::text, leased_until, lease_owner, automation,
       leased_until IS NOT NULL AND leased_until > now() AS lease_live, attempt, last_error,
       claim_count, key_generation
FROM jobs WHERE id = %(id)s FOR UPDATE

-- name: step_position
SELECT position FROM steps
WHERE job_id = %(id)s AND step_name = %(step)s AND occurrence = 0

-- name: step_names
SELECT step_name FROM steps WHERE job_id = %(id)s ORDER BY position

-- name: forget_steps_from
-- Replay from a step: the steps at and after its position are forgotten (run again); earlier
-- outputs are kept. A position of 0 forgets them all (replay from scratch).
DELETE FROM steps WHERE job_id = %(id)s AND position >= %(position)s

-- name: forget_waits
DELETE FROM waits WHERE job_id = %(id)s

-- name: forget_trace
DELETE FROM decisions WHERE job_id = %(id)s

-- name: requeue_for_replay
-- A replay is a new run of the job: attempts start again; claim_count keeps growing (fencing).
-- key_generation is what the run's calls derive their idempotency keys from: kept, the provider
-- answers each call with its first result; renewed (--new-keys), every call is a new request.
UPDATE jobs
SET status = 'pending', run_after = now(), attempt = 0, lost_claims = 0, last_error = NULL,
    error_kind = NULL, finished_at = NULL, leased_until = NULL, lease_owner = NULL,
    key_generation = %(key_generation)s
WHERE id = %(id)s

-- name: job_steps
-- What `cutover jobs show` lists under a job: each step and call with its key and reference; for
-- a call (its output is the gateway's call record: a fingerprint and a key), the request and how
-- the gateway classified the answer, so a call a provider refused is not shown as just "done".
SELECT step_name, occurrence, position, status::text, attempt, idempotency_key, external_ref, error,
       CASE WHEN output ? 'fingerprint' AND output ? 'idempotency_key' THEN output->>'method' END AS method,
       CASE WHEN output ? 'fingerprint' AND output ? 'idempotency_key' THEN output->>'url' END AS url,
       CASE WHEN output ? 'fingerprint' AND jsonb_typeof(output->'status') = 'number'
            THEN (output->>'status')::integer END AS http_status,
       CASE WHEN output ? 'fingerprint' AND output ? 'idempotency_key' THEN output->>'kind' END AS call_kind
FROM steps WHERE job_id = %(id)s ORDER BY position, occurrence

-- name: cancel_job
UPDATE jobs SET status = 'canceled', finished_at = now(), leased_until = NULL, lease_owner = NULL
WHERE id = %(id)s AND status IN ('pending', 'waiting', 'compensating')
RETURNING id

-- name: ledger_event
INSERT INTO ledger (job_id, kind, actor, detail)
VALUES (%(id)s, %(kind)s, %(actor)s, %(detail)s::jsonb)

-- name: explain_context
-- Everything "why is this job not running?" needs, in one round trip.
SELECT
    now() AS now,
    (SELECT jsonb_agg(jsonb_build_object('name', w.name, 'kind', w.kind, 'wake_at', w.wake_at,
                                         'on_timeout', w.on_timeout, 'resolved_at', w.resolved_at))
     FROM waits w WHERE w.job_id = %(id)s AND w.resolved_at IS NULL) AS open_waits,
    (SELECT jsonb_build_object('paused_by', p.paused_by, 'paused_at', p.paused_at, 'reason', p.reason)
     FROM pauses p WHERE p.kind = 'automation' AND p.name = %(automation)s) AS pause,
    (SELECT count(*) FROM jobs o
     WHERE o.status = 'pending' AND o.run_after <= now() AND o.id <> %(id)s
       AND (o.priority > %(priority)s
            OR (o.priority = %(priority)s AND o.created_at < %(created_at)s::timestamptz))) AS ahead,
    (SELECT jsonb_build_object('kind', l.kind, 'at', l.at, 'actor', l.actor, 'detail', l.detail)
     FROM ledger l WHERE l.job_id = %(id)s ORDER BY l.seq DESC LIMIT 1) AS last_event,
    (SELECT id FROM gate_verdicts v WHERE v.automation = %(automation)s AND v.ready
     ORDER BY recorded_at DESC LIMIT 1) AS any_passing_verdict
