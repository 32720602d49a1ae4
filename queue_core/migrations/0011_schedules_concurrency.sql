-- 0011: cron schedules whose ticks the workers enqueue, and per-key concurrency limits.

-- One row per declared schedule (the @automation decorator or [tool.cutover.schedules.<name>]),
-- upserted by every worker at start. next_tick is the first tick not yet enqueued; a worker
-- that finds it due locks the row (FOR UPDATE SKIP LOCKED), enqueues the tick's job and moves
-- next_tick on in the same transaction. The row lock is the producer lease: a killed worker's
-- transaction aborts and its lock is gone; a frozen one is cut off by the producer
-- transaction's idle_in_transaction_session_timeout.
CREATE TABLE schedules (
    name          text        PRIMARY KEY,
    automation    text        NOT NULL,
    cron          text        NOT NULL,
    timezone      text        NOT NULL DEFAULT 'UTC',
    catch_up      text        NOT NULL DEFAULT 'latest' CHECK (catch_up IN ('latest', 'all', 'none')),
    catch_up_max  integer     NOT NULL DEFAULT 100 CHECK (catch_up_max > 0),
    payload       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    -- Paused in the declaration itself; a pause of the automation (pauses) pauses it as well.
    paused        boolean     NOT NULL DEFAULT false,
    -- Where it was declared (decorator or pyproject.toml key), for `cutover schedules list`.
    source        text        NOT NULL,
    next_tick     timestamptz NOT NULL,
    last_tick     timestamptz,
    -- The worker that produced the last tick and when: the producer lease's history.
    producer      text,
    produced_at   timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Serves the producer's scan: due rows first, however many schedules there are.
CREATE INDEX schedules_due ON schedules (next_tick);

-- Per-key concurrency: a job with a concurrency_key runs only while it holds one of its key's
-- concurrency_limit slots. The slot rows are the truth the claim locks (FOR UPDATE SKIP LOCKED)
-- and rechecks at their newest version, so two concurrent claimers can never both fill the
-- last slot; counting running jobs instead would read a snapshot that misses a concurrent claim.
ALTER TABLE jobs ADD COLUMN concurrency_key text,
                 ADD COLUMN concurrency_limit integer CHECK (concurrency_limit > 0),
                 ADD COLUMN concurrency_slot integer;

-- A slot is free when it has no holder or its holder's lease ran out (until <= now): a dead
-- worker's slot is taken by the next claim once the lease expires. Holder and until change only
-- with the holding job's claim, heartbeat and outcome, fenced by (job_id, claim_count).
CREATE TABLE concurrency_slots (
    key         text        NOT NULL,
    slot        integer     NOT NULL CHECK (slot >= 0),
    job_id      uuid,
    claim_count integer,
    until       timestamptz,
    PRIMARY KEY (key, slot)
);
