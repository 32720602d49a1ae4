-- 0013: child jobs (ctx.enqueue / ctx.wait_for_children) and polling triggers (ctx.start_new).

-- The job that enqueued this one with ctx.enqueue. No foreign key: a parent may be vacuumed
-- before its children, and an insert should not pay for a check on the hot table.
ALTER TABLE jobs ADD COLUMN parent_id uuid;
-- Serves a parent's wait (are all my children finished?) and `jobs explain` by one probe;
-- partial, so the jobs no parent enqueued (nearly all) are not in it.
CREATE INDEX jobs_parent ON jobs (parent_id) WHERE parent_id IS NOT NULL;

-- One row per poller: its durable cursor and counters. A poll locks its row (the upsert in
-- lock_poller) for the rest of its transaction, so two polls of one poller never interleave.
CREATE TABLE poller_state (
    poller        text        PRIMARY KEY,
    target        text        NOT NULL,
    cursor        jsonb,
    last_poll_at  timestamptz,
    last_job_id   uuid,
    items_started bigint      NOT NULL DEFAULT 0,
    polls         bigint      NOT NULL DEFAULT 0
);

-- The item ids a poller has started a job for, so an item that comes back (overlapping pages,
-- a later poll) is started once. Bounded: each poll prunes its poller's rows beyond the newest
-- keep_last and older than keep_for. seq orders the rows by when they were seen.
CREATE TABLE poller_seen (
    poller  text        NOT NULL,
    item_id text        NOT NULL,
    seq     bigint      GENERATED ALWAYS AS IDENTITY,
    seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (poller, item_id)
);
-- Serves the pruning (the newest keep_last rows of one poller) and its count.
CREATE INDEX poller_seen_order ON poller_seen (poller, seq);
