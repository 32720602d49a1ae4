-- 0005: durable automations: waits (timers, tokens, database conditions), compensation, replay.

ALTER TYPE job_status ADD VALUE IF NOT EXISTS 'compensation_failed';

-- The type of a terminal step failure, so a replay re-raises the same typed error.
ALTER TABLE steps ADD COLUMN error_type text;

-- What a waiting job waits for. One row per (job, wait name); a resolution that arrives before
-- the job reaches its wait creates the row already resolved (level-triggered: nothing is lost).
CREATE TABLE waits (
    job_id      uuid        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('timer', 'token', 'event')),
    -- sha256 of the wait token; the token itself is derived, never stored.
    token_hash  text,
    wake_at     timestamptz,
    on_timeout  text        CHECK (on_timeout IN ('fail', 'compensate')),
    -- For kind 'event': a SQL predicate (a query returning a row when the condition holds).
    predicate   text,
    params      jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    resolved_by text,
    decision    text,
    payload     jsonb,
    PRIMARY KEY (job_id, name)
);
-- Serves the worker's periodic recheck of database conditions.
CREATE INDEX waits_open_events ON waits (job_id) WHERE kind = 'event' AND resolved_at IS NULL;

-- Serves waking waiting jobs whose timer or timeout is due.
CREATE INDEX jobs_waiting_due ON jobs (run_after) WHERE status = 'waiting';

-- Jobs between compensation attempts are claimable like pending ones.
DROP INDEX jobs_claimable;
CREATE INDEX jobs_claimable ON jobs (priority DESC, created_at)
    WHERE status IN ('pending', 'running', 'compensating');

-- A per-database secret from which wait tokens are derived (HMAC), so a token can be re-derived on
-- replay without ever being stored. gen_random_uuid draws from the server's strong random source.
CREATE TABLE cutover_secrets (
    name  text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO cutover_secrets (name, value)
VALUES ('wait_tokens', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
