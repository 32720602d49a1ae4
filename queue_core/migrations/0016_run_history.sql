-- 0016: the run history as data (`cutover jobs list`, GET /jobs), and a failing_jobs view that
-- counts what a person means by failing.

-- Every job, newest first: `jobs list` pages through (created_at, id) with a keyset, so a page of
-- a million-job table costs an index range scan, filtered or not.
CREATE INDEX jobs_history ON jobs (created_at DESC, id DESC);
-- One automation's runs, newest first (the filter the run history is used with most).
CREATE INDEX jobs_history_automation ON jobs (automation, created_at DESC, id DESC);

-- Failing now: a job that ended failed (failed, dead, compensation_failed), one being retried after
-- an error (pending or waiting with an error recorded), and one whose claims keep being lost
-- (claimed more than 3 times). The first view counted only the last kind. `failing` says which.
CREATE OR REPLACE VIEW failing_jobs AS
    SELECT id, automation, status, claim_count, attempt, max_attempts, error_kind, last_error,
           lease_owner, leased_until, created_at, finished_at,
           CASE WHEN status IN ('failed', 'dead', 'compensation_failed') THEN 'failed'
                WHEN last_error IS NOT NULL THEN 'retrying'
                ELSE 'claims lost' END AS failing
    FROM jobs
    WHERE status IN ('failed', 'dead', 'compensation_failed')
       OR (status IN ('pending', 'running', 'waiting', 'compensating')
           AND (last_error IS NOT NULL OR claim_count > 3));
