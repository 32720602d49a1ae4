-- Replay protection of the webhook ingress (migration 0012). Bodies are never stored: a row holds
-- the sha256 of a verified body, the delivery id it first came with and the replays refused.

-- name: body_claim
-- Record the body as first seen now with this delivery id, unless a row for it is younger than
-- the window; a row older than the window is taken over (the body is new again). A returned row
-- means the body is fresh. Concurrent claims of one body serialise on the primary key.
INSERT INTO webhook_bodies AS b (source, digest, delivery_id, first_seen)
VALUES (%(source)s, %(digest)s, %(delivery_id)s, %(now)s)
ON CONFLICT (source, digest) DO UPDATE
    SET delivery_id = excluded.delivery_id, first_seen = excluded.first_seen, replays = 0
    WHERE b.first_seen <= excluded.first_seen - make_interval(secs => %(window_s)s)
RETURNING delivery_id

-- name: body_replayed
-- The body was seen within the window: when it came with another delivery id, count the replay
-- and return the first delivery id; the same id (a sender's own retry) returns nothing.
UPDATE webhook_bodies SET replays = replays + 1
WHERE source = %(source)s AND digest = %(digest)s AND delivery_id <> %(delivery_id)s
RETURNING delivery_id

-- name: body_prune
-- Forget bodies older than the window, a bounded batch per fresh delivery (index webhook_bodies_age).
DELETE FROM webhook_bodies
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM webhook_bodies
    WHERE source = %(source)s AND first_seen < %(now)s - make_interval(secs => %(window_s)s)
    LIMIT 100))

-- name: jobs_by_dedupe_key
SELECT dedupe_key, id FROM jobs WHERE dedupe_key = ANY(%(keys)s::text[])

-- name: metrics_replays_refused
-- The counter behind cutover_webhook_replays_refused_total: one ledger event per job a refused
-- replay would have duplicated (append-only, so it only grows).
SELECT j.automation, count(*)
FROM ledger l JOIN jobs j ON j.id = l.job_id
WHERE l.kind = 'webhook_replay_refused'
GROUP BY j.automation ORDER BY 1

-- name: ledger_replay_refused
-- On the first delivery's job: a replayed body was refused (ids and digest only, never the body).
INSERT INTO ledger (job_id, kind, actor, detail)
VALUES (%(job_id)s, 'webhook_replay_refused', %(actor)s, %(detail)s::jsonb)

-- name: job_reply
-- A held webhook request's check (source respond_timeout_s): the job's first answer (the output of its
-- `ctx:response` step, ctx.respond; step rows exist in every mode, a shadow job's once it ends) and
-- the job's status, in one probe of the steps primary key and one of the jobs primary key.
SELECT (SELECT s.output FROM steps s
        WHERE s.job_id = %(job_id)s AND s.step_name = 'ctx:response' AND s.status = 'done'
        ORDER BY s.occurrence LIMIT 1),
       (SELECT j.status::text FROM jobs j WHERE j.id = %(job_id)s)
