-- Named queries for a live call's two round trips (queue_core.store.calls): begin, then settle.
-- Each folds in what used to be a statement of its own: the rate budget's checkout into the
-- begin (so a worker whose lease is gone spends nothing), the budget's answer and its
-- budget_tightened event into the settle. Fenced like every write of a running job (steps.sql).
-- A call whose provider has no rate budget runs the same two statements with %(provider)s NULL
-- (and no windows): the budget's part is then skipped, and what is left is the step row and its
-- ledger event.

-- name: begin_call
-- Spend the call's budget and put it on record before the provider can see its key, in one
-- statement: its fingerprint (so a changed request is caught on a later attempt) and its attempt
-- number, committed before sending. The fence comes first: budget_checkout runs once per fence row (LATERAL on f.one),
-- so a refused fence spends nothing. The step row is written only when every window granted
-- (a window row missing, deleted behind our back or never created, counts as a refusal: the
-- caller creates it and asks again). One row always: fenced, the attempt (NULL when nothing was
-- begun), then the checkout per window (NULL columns when fenced out).
WITH fence AS MATERIALIZED (
    SELECT 1 AS one FROM jobs
    WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
spent AS MATERIALIZED (
    SELECT c.granted, c.delay, c.window_seconds, c.blocked_for, c.reason, c.remaining, c.granted_at
    FROM fence f,
         LATERAL budget_checkout(%(provider)s, %(scope_key)s, %(windows)s::double precision[],
                                 %(cost)s::integer * f.one, %(horizon)s::double precision) c
    -- No budget (provider NULL, no windows): nothing to spend, and the begin below needs no grant.
    WHERE %(provider)s::text IS NOT NULL
),
begun AS (
    INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status, attempt,
                           started_at, output, idempotency_key)
    SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, 1, 'running', 1, now(),
           %(output)s::jsonb, %(key)s
    FROM fence
    WHERE (SELECT count(*) FROM spent WHERE granted) = cardinality(%(windows)s::double precision[])
    ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
    SET attempt = s.attempt + 1, status = 'running', started_at = now(), finished_at = NULL,
        output = excluded.output, position = excluded.position,
        idempotency_key = excluded.idempotency_key
    RETURNING attempt
)
SELECT (SELECT count(*) FROM fence) > 0 AS fenced, (SELECT attempt FROM begun) AS attempt,
       sp.granted, sp.delay, sp.window_seconds, sp.blocked_for, sp.reason, sp.remaining, sp.granted_at
FROM (SELECT 1) AS one LEFT JOIN spent sp ON true

-- name: settle_call
-- A call's outcome, its ledger event and the budget's answer to the call in one statement, so one
-- transaction: no kill can leave a settled call without its event. The step row and the event are
-- fenced by the claim like every write of a running job; the answer is not: the provider did
-- receive the call, whoever holds the job now. The attempt is not counted again (begin_call
-- counted it); a call never begun (it cannot happen for a live call, but costs nothing to allow)
-- is inserted as attempt 1. The events are inserted in order: budget_tightened (when the answer
-- tightened the budget) before the call's. Returns one row: the attempt (NULL when fenced out:
-- nothing of the job's was written), and whether the budget heard an answer.
WITH answered AS MATERIALIZED (
    SELECT budget_answer(%(provider)s, %(scope_key)s, %(since)s::double precision, %(answered)s::boolean,
                         %(block_for)s::double precision, %(remaining)s::integer, %(reset)s::double precision,
                         %(limit)s::integer, %(window)s::double precision, %(full)s::boolean,
                         %(reason)s::text) AS done
    -- No budget, or an answer that changes nothing: the budget is not told.
    WHERE %(provider)s::text IS NOT NULL
),
fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
settled AS (
    INSERT INTO steps AS s (job_id, step_name, occurrence, position, step_version, status,
                           attempt, started_at, finished_at, output, idempotency_key, external_ref)
    SELECT %(job_id)s, %(name)s, %(occurrence)s, %(position)s, 1, 'done', 1, now(), now(),
           %(output)s::jsonb, %(key)s, %(external_ref)s
    FROM fence
    ON CONFLICT (job_id, step_name, occurrence) DO UPDATE
    SET status = 'done', output = excluded.output, finished_at = now(),
        external_ref = coalesce(excluded.external_ref, s.external_ref), error = NULL,
        error_type = NULL
    RETURNING s.attempt
),
logged AS (
    INSERT INTO ledger (job_id, kind, actor, detail)
    SELECT %(job_id)s, e.kind, %(actor)s, e.detail
    FROM settled,
         LATERAL (VALUES (1, 'budget_tightened', %(tightened)s::jsonb),
                         (2, %(kind)s::text, %(detail)s::jsonb || jsonb_build_object('attempt', settled.attempt))
                 ) AS e(n, kind, detail)
    WHERE e.detail IS NOT NULL
    ORDER BY e.n
)
SELECT (SELECT attempt FROM settled) AS attempt, (SELECT count(*) FROM answered) AS answered
