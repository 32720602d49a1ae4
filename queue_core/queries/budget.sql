-- Named queries for provider rate budgets (migrations/0002_budgets.sql).
--
-- Concurrency: every statement that changes a bucket first locks all of the scope's window rows
-- with FOR UPDATE in window order, so concurrent spenders serialise on the rows and never
-- deadlock (same lock order everywhere). Under READ COMMITTED a locked row is re-read at its
-- latest committed version, so the arithmetic below always starts from the current state.
--
-- Time: clock_timestamp() (not now(), which is the transaction's start and may be older than a
-- refreshed_at written by a spender that held the lock meanwhile). greatest(t, refreshed_at)
-- keeps refreshed_at monotonic, so no interval of refill is ever counted twice.

-- name: ensure
-- Create the window's row, full; when the configuration changed, reset the row to it.
INSERT INTO provider_budgets AS b
    (provider, scope_key, window_seconds, configured_limit, effective_limit, burst, tokens)
VALUES (%(provider)s, %(scope_key)s, %(window_seconds)s, %(limit)s, %(limit)s, %(burst)s, %(burst)s)
ON CONFLICT (provider, scope_key, window_seconds) DO UPDATE
SET configured_limit = excluded.configured_limit,
    effective_limit = excluded.configured_limit,
    burst = excluded.burst,
    tokens = least(b.tokens, excluded.burst),
    reason = NULL
WHERE b.configured_limit <> excluded.configured_limit OR b.burst <> excluded.burst

-- name: checkout
-- Take %(cost)s tokens from every window of the scope, or from none. A window may go into debt:
-- the tokens are then reserved ahead of the refill and the caller waits until they exist (GCRA:
-- each grant is a slot at the refill pace), but never more than %(horizon)s s ahead; a later slot
-- or a blocked window refuses. Either way the refill so far is banked. Returns one row per
-- window; delay is, when granted, the wait until the reserved slot (0 when a token is there now),
-- when refused the wait until a slot within the horizon could be reserved.
WITH locked AS (
    SELECT b.*, clock_timestamp() AS t
    FROM provider_budgets b
    WHERE b.provider = %(provider)s AND b.scope_key = %(scope_key)s
      AND b.window_seconds = ANY(%(windows)s::double precision[])
    ORDER BY b.window_seconds
    FOR UPDATE
), level AS (
    SELECT l.provider, l.scope_key, l.window_seconds, l.reason, l.refreshed_at, l.t,
           least(least(l.burst, l.effective_limit)::double precision,
                 l.tokens + greatest(0, extract(epoch FROM l.t - l.refreshed_at))
                            * l.effective_limit / l.window_seconds) AS available,
           l.window_seconds / l.effective_limit AS interval_s,
           -- CASE, not greatest(): '-infinity' - t is an error before Postgres 17.
           (CASE WHEN l.blocked_until > l.t THEN extract(epoch FROM l.blocked_until - l.t) ELSE 0 END
           )::double precision AS blocked_for
    FROM locked l
), verdict AS (
    -- a window's wait: how long until it holds %(cost)s tokens (negative: they are there now)
    SELECT bool_and(blocked_for = 0 AND (%(cost)s - available) * interval_s <= %(horizon)s) AS granted,
           greatest(max((%(cost)s - available) * interval_s), 0) AS wait, max(blocked_for) AS blocked_for
    FROM level
)
UPDATE provider_budgets b
SET tokens = CASE WHEN v.granted THEN l.available - %(cost)s ELSE l.available END,
    refreshed_at = greatest(l.t, l.refreshed_at)
FROM level l, verdict v
WHERE b.provider = l.provider AND b.scope_key = l.scope_key AND b.window_seconds = l.window_seconds
RETURNING v.granted,
          (CASE WHEN v.granted THEN v.wait
                ELSE greatest(v.blocked_for, v.wait - %(horizon)s, 0) END)::double precision AS delay,
          b.window_seconds, b.tokens, l.blocked_for, b.reason

-- name: tighten
-- Apply what a provider said (429, Retry-After, RateLimit headers): block every window for
-- %(block_for)s s, cap tokens at %(remaining)s, and lower the effective limit of the window
-- %(window)s to %(limit)s, clamped to the configured limit. Each NULL parameter changes nothing.
WITH locked AS (
    SELECT b.*, clock_timestamp() AS t
    FROM provider_budgets b
    WHERE b.provider = %(provider)s AND b.scope_key = %(scope_key)s
    ORDER BY b.window_seconds
    FOR UPDATE
), level AS (
    SELECT l.provider, l.scope_key, l.window_seconds, l.t, l.refreshed_at,
           least(least(l.burst, l.effective_limit)::double precision,
                 l.tokens + greatest(0, extract(epoch FROM l.t - l.refreshed_at))
                            * l.effective_limit / l.window_seconds) AS available
    FROM locked l
)
UPDATE provider_budgets b
SET tokens = least(l.available, coalesce(%(remaining)s::double precision, l.available)),
    refreshed_at = greatest(l.t, l.refreshed_at),
    blocked_until = greatest(b.blocked_until,
                             l.t + make_interval(secs => coalesce(%(block_for)s::double precision, 0))),
    effective_limit = CASE
        WHEN %(limit)s::integer IS NOT NULL AND b.window_seconds = %(window)s::double precision
        THEN greatest(1, least(b.configured_limit, %(limit)s::integer))
        ELSE b.effective_limit END,
    reason = %(reason)s,
    tightened_at = l.t
FROM level l
WHERE b.provider = l.provider AND b.scope_key = l.scope_key AND b.window_seconds = l.window_seconds
RETURNING b.window_seconds, b.effective_limit, b.blocked_until, b.reason

-- name: states
-- What `cutover jobs explain` shows: every window of a provider, refilled to now (read-only).
SELECT provider, scope_key, window_seconds, configured_limit, effective_limit, burst,
       least(least(burst, effective_limit)::double precision,
             tokens + greatest(0, extract(epoch FROM clock_timestamp() - refreshed_at))
                      * effective_limit / window_seconds) AS tokens,
       -- '-infinity' (never blocked) has no Python datetime: it reads as NULL.
       nullif(blocked_until, '-infinity') AS blocked_until, reason, tightened_at
FROM provider_budgets
WHERE provider = %(provider)s
ORDER BY scope_key, window_seconds

-- name: paused_providers
SELECT name, paused_by, reason FROM pauses WHERE kind = 'provider'
