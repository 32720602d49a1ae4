-- 0014: an n8n workflow's static data ($getWorkflowStaticData), kept between runs of its automation.

-- One row per automation: the whole static data object as n8n keeps it per workflow
-- ({"global": {...}, "node:<name>": {...}}). A run that changed it writes the whole object back
-- (last writer wins, as n8n's save does); version counts the writes, so a run that finds the row
-- moved since it read it can say it overwrote a concurrent run's write. Written only by live jobs.
CREATE TABLE static_data (
    automation text        PRIMARY KEY,
    data       jsonb       NOT NULL,
    version    bigint      NOT NULL DEFAULT 1,
    job_id     uuid        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The same for shadow and dry-run jobs, per replayed recording set: a replay's triggers see the
-- static data evolve as its jobs run, and the live row above is never read or written by them.
-- No foreign key to jobs: a shadow replay empties its jobs between batches (TRUNCATE … CASCADE).
CREATE TABLE replay_static_data (
    recording  text        NOT NULL,
    automation text        NOT NULL,
    data       jsonb       NOT NULL,
    version    bigint      NOT NULL DEFAULT 1,
    job_id     uuid        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (recording, automation)
);
