-- Named queries for provider rate budgets (migrations/0002_budgets.sql, 0009_sliding_budgets.sql).
--
-- The arithmetic lives in the PL/pgSQL functions of migration 0009, each called as one
-- statement: it locks all of the scope's window rows with FOR UPDATE in window order (the same
-- order everywhere: concurrent spenders serialise on the rows and never deadlock), then reads
-- the time (clock_timestamp(), never before the rows' last grant) and the rows at their latest
-- committed version, and writes them back. Nothing is ever read into Python and written back.

-- name: ensure
-- Create the window's row; bring it to a changed configuration (carrying what it spent over).
SELECT budget_ensure(%(provider)s, %(scope_key)s, %(window_seconds)s::double precision, %(limit)s::integer,
                     %(burst)s::integer, %(algorithm)s::text, %(guard)s::double precision, %(slots)s::integer)

-- name: checkout
-- Take %(cost)s calls from every window of the scope, or from none; one row per window (see
-- budget_checkout: granted and delay are the scope's verdict; remaining is per window).
SELECT granted, delay, window_seconds, blocked_for, reason, remaining, granted_at
FROM budget_checkout(%(provider)s, %(scope_key)s, %(windows)s::double precision[], %(cost)s::integer,
                     %(horizon)s::double precision)

-- name: answer
-- After a call's answer: move it (granted at %(since)s) to now's sub-bucket when %(answered)s,
-- and apply what the provider said when %(reason)s is set; each NULL parameter changes nothing
-- (see budget_answer).
SELECT budget_answer(%(provider)s, %(scope_key)s, %(since)s::double precision, %(answered)s::boolean,
                     %(block_for)s::double precision, %(remaining)s::integer, %(reset)s::double precision,
                     %(limit)s::integer, %(window)s::double precision, %(full)s::boolean, %(reason)s::text)

-- name: count_rate_limited
-- One more 429 for the call behind %(key)s; returns how many it has had.
INSERT INTO rate_limited_calls AS r (job_id, idempotency_key, provider, count)
VALUES (%(job_id)s, %(key)s, %(provider)s, 1)
ON CONFLICT (job_id, idempotency_key) DO UPDATE SET count = r.count + 1, last_at = now()
RETURNING r.count

-- name: states
-- What `cutover jobs explain` shows: every window of a provider brought to now (read-only).
-- tokens: the calls a window would grant now (a token bucket's is negative while slots are
-- reserved ahead of its refill).
SELECT b.provider, b.scope_key, b.window_seconds, b.configured_limit, b.effective_limit, b.burst,
       CASE WHEN b.algorithm = 'token_bucket' THEN v.tokens ELSE v.remaining END::double precision AS tokens,
       -- '-infinity' (never blocked) has no Python datetime: it reads as NULL.
       nullif(b.blocked_until, '-infinity') AS blocked_until, b.reason, b.tightened_at, b.algorithm,
       b.guard_seconds, v.spent
FROM provider_budgets b,
     LATERAL (SELECT greatest(clock_timestamp(), b.refreshed_at) AS t) now_,
     LATERAL budget_window_verdict(b, now_.t, extract(epoch FROM now_.t)::double precision, 0, 0.0) v
WHERE b.provider = %(provider)s
ORDER BY b.scope_key, b.window_seconds

-- name: paused_providers
SELECT name, paused_by, reason FROM pauses WHERE kind = 'provider'
