-- Named queries for polling triggers (queue_core.poller). A poll is one transaction:
-- lock_poller, mark_seen, the target jobs' enqueue (queue.sql enqueue_many), advance_poller.

-- name: read_cursor
SELECT cursor FROM poller_state WHERE poller = %(poller)s

-- name: lock_poller
-- The upsert locks the poller's row until the poll commits: a second poll of the same poller
-- (an overlapping tick) waits here instead of interleaving its seen ids and cursor. Fenced by
-- the polling job's claim: no row back means another worker took the job over.
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
)
INSERT INTO poller_state AS p (poller, target)
SELECT %(poller)s, %(target)s FROM fence
ON CONFLICT (poller) DO UPDATE SET target = excluded.target
RETURNING p.cursor

-- name: mark_seen
-- The ids never seen before are the ones this statement inserts (ON CONFLICT skips the rest),
-- in page order (seq follows the ordinality). An id pruned from the bounded record whose job
-- still exists (its dedupe key, by the jobs dedupe index) is not new either: it is neither
-- started nor counted again.
INSERT INTO poller_seen (poller, item_id)
SELECT %(poller)s, i.id
FROM unnest(%(ids)s::text[]) WITH ORDINALITY AS i(id, n)
WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.dedupe_key = 'poll:' || %(poller)s || ':' || i.id)
ORDER BY i.n
ON CONFLICT (poller, item_id) DO NOTHING
RETURNING item_id

-- name: advance_poller
-- In the poll's transaction, after mark_seen and the enqueue: the new cursor and counters, the
-- pruning that keeps the seen-id record bounded (beyond the newest keep_last, or older than
-- keep_for), and the polling job's step row, fenced by its claim (no row back: lease lost).
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
advanced AS (
    UPDATE poller_state
    SET cursor = %(cursor)s::jsonb, last_poll_at = now(), last_job_id = %(job_id)s,
        items_started = items_started + %(started)s, polls = polls + 1
    WHERE poller = %(poller)s AND EXISTS (SELECT 1 FROM fence)
    RETURNING poller
),
pruned AS (
    DELETE FROM poller_seen s
    WHERE s.poller = %(poller)s AND EXISTS (SELECT 1 FROM advanced)
      AND (s.seen_at < now() - %(keep_for)s::interval
           OR s.seq <= (SELECT o.seq FROM poller_seen o WHERE o.poller = %(poller)s
                        ORDER BY o.seq DESC OFFSET %(keep_last)s LIMIT 1))
),
recorded AS (
    INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status,
                           attempt, started_at, finished_at, output, idempotency_key)
    SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, 1, 'done', 1, now(), now(),
           %(output)s::jsonb, %(key)s
    FROM advanced
    ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
    SET status = 'done', output = excluded.output, finished_at = now(), attempt = s.attempt + 1,
        position = excluded.position
)
SELECT 1 FROM advanced

-- name: list_pollers
-- For `cutover pollers list`; the seen count is one index range per poller.
SELECT p.poller, p.target, p.cursor, p.last_poll_at, p.items_started, p.polls,
       (SELECT count(*) FROM poller_seen s WHERE s.poller = p.poller) AS seen
FROM poller_state p ORDER BY p.poller
