-- The console (queue_core.server.console): sign-in sessions, and the reads its pages make beyond
-- the run history's.

-- name: session_create
INSERT INTO console_sessions (session_hash, token_hash, csrf_secret, expires_at)
VALUES (%(session_hash)s, %(token_hash)s, %(csrf_secret)s, now() + make_interval(secs => %(ttl_s)s))
RETURNING expires_at

-- name: sessions_purge_expired
DELETE FROM console_sessions WHERE expires_at <= now()

-- name: session_lookup
-- A live session of a live token: an expired session, or one whose token was revoked (or whose
-- name now belongs to another token: the hash differs), finds nothing. The caller compares the
-- returned hash in constant time.
SELECT t.name, t.scopes, s.csrf_secret, s.session_hash
FROM console_sessions s
JOIN api_tokens t ON t.token_hash = s.token_hash AND t.revoked_at IS NULL
WHERE s.session_hash = %(session_hash)s AND s.expires_at > now()

-- name: session_delete
DELETE FROM console_sessions WHERE session_hash = %(session_hash)s

-- name: job_parent
SELECT parent_id FROM jobs WHERE id = %(id)s

-- name: failing_groups
-- The dead and failed jobs grouped by error signature: automation, error kind, and the first line
-- of the last error with uuids and runs of digits collapsed to '#', largest group first.
SELECT automation, coalesce(error_kind::text, '') AS error_kind, signature, count(*) AS jobs,
       max(coalesce(finished_at, created_at)) AS latest, (array_agg(last_error ORDER BY created_at DESC))[1] AS example
FROM (SELECT automation, error_kind, last_error, finished_at, created_at,
             regexp_replace(split_part(coalesce(last_error, ''), E'\n', 1),
                            '[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}|[0-9]+', '#', 'g') AS signature
      FROM jobs WHERE status IN ('failed', 'dead')) f
GROUP BY automation, error_kind, signature
ORDER BY count(*) DESC, automation, signature
LIMIT %(limit)s

-- name: failing_group_ids
-- The jobs of one group of failing_groups (the same signature expression), oldest first.
SELECT id FROM jobs
WHERE status IN ('failed', 'dead') AND automation = %(automation)s
  AND coalesce(error_kind::text, '') = %(error_kind)s
  AND regexp_replace(split_part(coalesce(last_error, ''), E'\n', 1),
                     '[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}|[0-9]+', '#', 'g') = %(signature)s
ORDER BY created_at, id
LIMIT %(limit)s

-- name: counts_by_status_serial
-- The runs page's counts per status (as queue.sql counts_by_status), counted in one process: run in
-- the background under SET LOCAL max_parallel_workers_per_gather = 0, so the recount leaves the
-- machine's other cores to the pages being served meanwhile.
SELECT status::text, count(*) FROM jobs GROUP BY status

-- name: automation_activity
-- Each automation's jobs created in the last day (a range of jobs_history), by status, and how
-- many of them in the last hour.
SELECT automation, status::text, count(*) AS last_day,
       count(*) FILTER (WHERE created_at >= now() - interval '1 hour') AS last_hour
FROM jobs WHERE created_at >= now() - interval '1 day'
GROUP BY automation, status ORDER BY automation, status

-- name: latest_verdicts
-- Each automation's latest go-live gate verdict (any code version).
SELECT DISTINCT ON (automation) automation, code_version, ready, reasons, recording, recorded_at
FROM gate_verdicts ORDER BY automation, recorded_at DESC, id DESC
