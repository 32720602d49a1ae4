-- Named queries of the control plane (queue_core.server): tokens, pauses, audit, job actions,
-- readiness and metrics. Actors written to the ledger and control_events are token names.

-- name: token_create
-- A name is unique; a revoked token's name can be reused (its row is replaced), a live one not.
INSERT INTO api_tokens AS t (name, token_hash, prefix, scopes)
VALUES (%(name)s, %(token_hash)s, %(prefix)s, %(scopes)s::text[])
ON CONFLICT (name) DO UPDATE
SET token_hash = excluded.token_hash, prefix = excluded.prefix, scopes = excluded.scopes,
    created_at = now(), last_used_at = NULL, revoked_at = NULL
WHERE t.revoked_at IS NOT NULL
RETURNING id

-- name: token_authenticate
-- Looked up by the hash (unique index); the caller compares the returned hash in constant time.
UPDATE api_tokens
SET last_used_at = now()
WHERE token_hash = %(token_hash)s AND revoked_at IS NULL
RETURNING name, scopes, token_hash

-- name: token_revoke
UPDATE api_tokens SET revoked_at = now()
WHERE name = %(name)s AND revoked_at IS NULL
RETURNING id

-- name: token_list
SELECT name, prefix, scopes, created_at, last_used_at, revoked_at
FROM api_tokens ORDER BY name

-- name: audit_append
INSERT INTO control_events (actor, action, target_kind, target, detail)
VALUES (%(actor)s, %(action)s, %(target_kind)s, %(target)s, %(detail)s::jsonb)

-- name: audit_list
SELECT seq, at, actor, action, target_kind, target, detail
FROM control_events ORDER BY seq DESC LIMIT %(limit)s

-- name: pause
-- Pausing twice keeps the first pause (who and why); only a new pause is audited.
WITH ins AS (
    INSERT INTO pauses (kind, name, paused_by, reason)
    VALUES (%(kind)s, %(name)s, %(actor)s, %(reason)s)
    ON CONFLICT (kind, name) DO NOTHING
    RETURNING kind, name, paused_at, paused_by, reason
),
audit AS (
    INSERT INTO control_events (actor, action, target_kind, target, detail)
    SELECT %(actor)s, 'paused', kind, name, jsonb_strip_nulls(jsonb_build_object('reason', reason))
    FROM ins
)
SELECT kind, name, paused_at, paused_by, reason, true AS created FROM ins
UNION ALL
SELECT kind, name, paused_at, paused_by, reason, false FROM pauses
WHERE kind = %(kind)s AND name = %(name)s AND NOT EXISTS (SELECT 1 FROM ins)

-- name: resume
WITH del AS (
    DELETE FROM pauses WHERE kind = %(kind)s AND name = %(name)s
    RETURNING kind, name, paused_at, paused_by, reason
),
audit AS (
    INSERT INTO control_events (actor, action, target_kind, target, detail)
    SELECT %(actor)s, 'resumed', kind, name,
           jsonb_build_object('paused_at', paused_at, 'paused_by', paused_by)
    FROM del
)
SELECT kind, name, paused_at, paused_by, reason FROM del

-- name: list_pauses
SELECT kind, name, paused_at, paused_by, reason FROM pauses ORDER BY kind, name

-- name: job_steps
SELECT step_name, occurrence, position, step_version, status::text, attempt, started_at,
       finished_at, output, error, idempotency_key, external_ref
FROM steps WHERE job_id = %(id)s ORDER BY position, occurrence

-- name: existing_dedupe_keys
SELECT dedupe_key FROM jobs WHERE dedupe_key = ANY(%(keys)s::text[])

-- name: migration_level
SELECT coalesce(max(number), 0) FROM schema_migrations

-- name: metrics_jobs
-- Queue depth: every (automation, status) with at least one job.
SELECT automation, status::text, count(*) FROM jobs GROUP BY automation, status ORDER BY 1, 2

-- name: metrics_events
-- Counters derived from the ledger (one scan per scrape; the ledger is append-only, so these
-- only grow). A budget wait is the gateway's budget_wait snooze (a provider's budget is spent).
SELECT j.automation,
       count(*) FILTER (WHERE l.kind = 'claimed')         AS claims,
       count(*) FILTER (WHERE l.kind = 'reclaimed')       AS reclaims,
       count(*) FILTER (WHERE l.kind = 'retry_scheduled') AS retries,
       count(*) FILTER (WHERE l.kind = 'budget_wait')     AS budget_waits
FROM ledger l JOIN jobs j ON j.id = l.job_id
WHERE l.kind IN ('claimed', 'reclaimed', 'retry_scheduled', 'budget_wait')
GROUP BY j.automation ORDER BY 1

-- name: metrics_budgets_blocked
SELECT provider, count(*) FILTER (WHERE blocked_until > now()) FROM provider_budgets
GROUP BY provider ORDER BY 1

-- name: metrics_pauses
SELECT kind, name FROM pauses ORDER BY 1, 2
