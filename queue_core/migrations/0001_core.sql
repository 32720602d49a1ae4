-- 0001: jobs, steps and the ledger: the queue's contract (DESIGN.md, "Data model").

CREATE TYPE job_status AS ENUM
    ('pending', 'running', 'waiting', 'succeeded', 'failed', 'canceled', 'compensating', 'dead');
CREATE TYPE step_status AS ENUM
    ('pending', 'running', 'waiting', 'retryable_failed', 'terminal_failed', 'done');
CREATE TYPE job_mode AS ENUM ('live', 'dry_run', 'shadow');
CREATE TYPE error_kind AS ENUM ('retryable', 'terminal');

CREATE TABLE jobs (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    automation         text        NOT NULL,
    automation_version integer     NOT NULL DEFAULT 1,
    mode               job_mode    NOT NULL DEFAULT 'live',
    status             job_status  NOT NULL DEFAULT 'pending',
    priority           integer     NOT NULL DEFAULT 0 CHECK (priority >= 0),
    payload            jsonb       NOT NULL DEFAULT '{}'::jsonb,
    -- headers, received_at and source of the trigger that started the job (secrets redacted).
    trigger_meta       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    run_after          timestamptz NOT NULL DEFAULT now(),
    created_at         timestamptz NOT NULL DEFAULT now(),
    finished_at        timestamptz,
    -- The lease: who holds the job and until when. claim_count is the fencing token: it grows on
    -- every claim and every write by a claimant names the claim_count it holds.
    leased_until       timestamptz,
    lease_owner        text,
    claim_count        integer     NOT NULL DEFAULT 0,
    heartbeat_at       timestamptz,
    -- Consecutive claims that ended with the lease expiring (worker died); reset by any outcome.
    lost_claims        integer     NOT NULL DEFAULT 0,
    max_claims         integer     NOT NULL DEFAULT 5 CHECK (max_claims > 0),
    attempt            integer     NOT NULL DEFAULT 0,
    max_attempts       integer     NOT NULL DEFAULT 20 CHECK (max_attempts > 0),
    last_error         text,
    error_kind         error_kind,
    dedupe_key         text,
    trigger_id         text,
    recording          text
);

-- Serves the claim: pending rows in priority order, plus the few running rows whose lease may
-- have expired. Finished rows are outside the index, so it stays small however long history grows.
CREATE INDEX jobs_claimable ON jobs (priority DESC, created_at)
    WHERE status IN ('pending', 'running');
-- A second enqueue with the same dedupe key finds the first job instead of inserting.
CREATE UNIQUE INDEX jobs_dedupe_key ON jobs (dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX jobs_automation_status ON jobs (automation, status);

CREATE TABLE steps (
    job_id             uuid        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    step_name          text        NOT NULL,
    occurrence         integer     NOT NULL DEFAULT 0,
    position           integer     NOT NULL DEFAULT 0,
    step_version       integer     NOT NULL DEFAULT 1,
    status             step_status NOT NULL DEFAULT 'pending',
    attempt            integer     NOT NULL DEFAULT 0,
    started_at         timestamptz,
    finished_at        timestamptz,
    input_hash         text,
    output             jsonb,
    checkpoint         jsonb,
    checkpoint_version integer,
    idempotency_key    text        NOT NULL,
    external_ref       text,
    error              text,
    PRIMARY KEY (job_id, step_name, occurrence)
);

-- Append-only: the execution history an operator reads with SQL. Secrets never enter it.
CREATE TABLE ledger (
    seq    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id uuid        NOT NULL,
    at     timestamptz NOT NULL DEFAULT now(),
    kind   text        NOT NULL,
    actor  text        NOT NULL,
    detail jsonb       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX ledger_job ON ledger (job_id, seq);

-- Appending is the only write: updates and deletes are refused by the database itself.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger is append-only';
END $$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

-- "What happened to job X", answered with SQL alone.
CREATE VIEW job_history AS
    SELECT l.job_id, j.automation, l.seq, l.at, l.kind, l.actor, l.detail
    FROM ledger l JOIN jobs j ON j.id = l.job_id;

CREATE VIEW failing_jobs AS
    SELECT id, automation, status, claim_count, attempt, max_attempts, error_kind, last_error,
           lease_owner, leased_until
    FROM jobs
    WHERE claim_count > 3 AND status NOT IN ('succeeded', 'canceled');

-- The decision trace of a shadow or dry-run job (status, path, decisions, calls, outputs, error),
-- written with the job's outcome; the harness diffs it against the legacy trace.
CREATE TABLE decisions (
    job_id     uuid        PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    trace      jsonb       NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now()
);
