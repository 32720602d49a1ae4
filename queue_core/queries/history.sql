-- The run history: jobs newest first, filtered, one page at a time.

-- name: list_jobs
-- Each filter is off when its parameter is NULL. The page starts after the job `after` (the
-- last job of the page before) in (created_at, id) order. error_text is matched as a substring, with its
-- LIKE wildcards escaped by the caller. Run unprepared, so each execution is planned with its
-- own values and the NULL filters fall away (jobs_history, jobs_history_automation).
SELECT id, automation, automation_version, mode::text, status::text, priority, attempt, max_attempts,
       claim_count, error_kind::text, last_error, concurrency_key, parent_id, trigger_id, dedupe_key,
       created_at, run_after, finished_at
FROM jobs
WHERE (%(automation)s::text IS NULL OR automation = %(automation)s::text)
  AND (%(statuses)s::job_status[] IS NULL OR status = ANY (%(statuses)s::job_status[]))
  AND (%(mode)s::job_mode IS NULL OR mode = %(mode)s::job_mode)
  AND (%(since)s::timestamptz IS NULL OR created_at >= %(since)s::timestamptz)
  AND (%(until)s::timestamptz IS NULL OR created_at < %(until)s::timestamptz)
  AND (%(error_kind)s::error_kind IS NULL OR error_kind = %(error_kind)s::error_kind)
  AND (%(error_text)s::text IS NULL OR last_error ILIKE '%%' || %(error_text)s::text || '%%')
  AND (%(concurrency_key)s::text IS NULL OR concurrency_key = %(concurrency_key)s::text)
  AND (%(parent)s::uuid IS NULL OR parent_id = %(parent)s::uuid)
  AND (%(after)s::uuid IS NULL
       OR (created_at, id) < (SELECT j.created_at, j.id FROM jobs j WHERE j.id = %(after)s::uuid))
ORDER BY created_at DESC, id DESC
LIMIT %(limit)s

-- name: job_exists
SELECT 1 FROM jobs WHERE id = %(id)s
