-- 0015: n8n's Simple Memory (memoryBufferWindow) of an AI Agent, kept between runs of its automation.

-- One row per turn (the human input and the agent's output) of one session of one automation, in
-- the order they were written (seq). An agent reads the session's last k turns before its model
-- call and appends its turn after it. (job_id, ordinal) names the turn within the job that wrote
-- it: a retried job appends no turn twice, and reads none of the turns its earlier attempt wrote
-- from this point on. Written only by live jobs, each write fenced by the job's claim.
CREATE TABLE ai_memory (
    automation text        NOT NULL,
    session    text        NOT NULL,
    seq        bigint      GENERATED ALWAYS AS IDENTITY,
    input      text        NOT NULL,
    output     text        NOT NULL,
    job_id     uuid        NOT NULL,
    ordinal    integer     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (automation, session, seq),
    UNIQUE (automation, job_id, ordinal)
);

-- The same for shadow and dry-run jobs, per replayed recording set: a replay's agents see their
-- sessions' turns as its jobs run, and the live table is never read or written by them. No
-- foreign key to jobs: a shadow replay empties its jobs between batches (TRUNCATE … CASCADE).
CREATE TABLE replay_ai_memory (
    recording  text        NOT NULL,
    automation text        NOT NULL,
    session    text        NOT NULL,
    seq        bigint      GENERATED ALWAYS AS IDENTITY,
    input      text        NOT NULL,
    output     text        NOT NULL,
    job_id     uuid        NOT NULL,
    ordinal    integer     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (recording, automation, session, seq),
    UNIQUE (recording, automation, job_id, ordinal)
);
