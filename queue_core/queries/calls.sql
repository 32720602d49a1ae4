-- Named queries for a live call's two round trips (queue_core.store.calls): begin, then settle.
-- Each folds in what used to be a statement of its own: the rate budget's checkout into the
-- begin (so a worker whose lease is gone spends nothing), the budget's answer and its
-- budget_tightened event into the settle. Fenced like every write of a running job (steps.sql).

-- name: begin_budgeted_call
-- Spend the call's budget and put it on record before the provider can see its key, in one
-- statement. The fence comes first: budget_checkout runs once per fence row (LATERAL on f.one),
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

-- name: settle_answered_call
-- settle_call (steps.sql) and the budget's answer to the call in one statement. The answer is
-- not fenced: the provider did receive the call, whoever holds the job now. The events are
-- inserted in order: budget_tightened (when the answer tightened the budget) before the call's.
-- Returns one row: the attempt (NULL when fenced out: nothing of the job's was written).
WITH answered AS MATERIALIZED (
    SELECT budget_answer(%(provider)s, %(scope_key)s, %(since)s::double precision, %(answered)s::boolean,
                         %(block_for)s::double precision, %(remaining)s::integer, %(reset)s::double precision,
                         %(limit)s::integer, %(window)s::double precision, %(full)s::boolean,
                         %(reason)s::text) AS done
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
