-- 0009: rate budgets count the way the provider does: sliding windows by default (at most N
-- calls in ANY window of T seconds), or aligned fixed windows, or a token bucket with a stated
-- burst; a 429 is counted per call so that a provider answering only 429 fails the job.
--
-- A sliding row keeps a ring of K + 1 sub-bucket counters of width (T + guard) / K in the row
-- itself. A grant is allowed when the calls in every sub-bucket overlapping (t - T - guard, t],
-- plus the cost, fit the effective limit: the oldest sub-bucket, only partly inside, counts in
-- full, so no window of T + guard seconds (of the database's grant times) ever holds more than
-- the limit. When a call is answered, it moves to the sub-bucket of its answer (budget_answer):
-- the provider received it between its grant and its answer, so a provider counting by its own
-- receive clock never counts more than the limit in any window of T either, however long the
-- delivery took. The guard covers clocks that do not tick alike and calls never answered.
--
-- Rows made before this migration keep working as token buckets (their algorithm defaults to
-- it) until a worker with the new configuration re-ensures them (budget_ensure below), which
-- carries what they had spent over conservatively.

ALTER TABLE provider_budgets
    ADD COLUMN algorithm text NOT NULL DEFAULT 'token_bucket',
    -- Seconds each sliding window is widened by (a fixed window closes that much early).
    ADD COLUMN guard_seconds double precision NOT NULL DEFAULT 0,
    -- sliding: the width of one sub-bucket, (window_seconds + guard_seconds) / (ring length - 1).
    ADD COLUMN bucket_seconds double precision,
    -- sliding: calls granted per sub-bucket; absolute sub-bucket i (floor(unix time / width))
    -- lives in slot i % length + 1.
    ADD COLUMN counts integer[],
    -- sliding: the newest absolute sub-bucket the ring holds; fixed: the current window's index.
    ADD COLUMN head bigint,
    -- sliding: the sum of counts; fixed: the calls granted in window head.
    ADD COLUMN spent integer NOT NULL DEFAULT 0,
    -- RateLimit-Remaining: at most this many more calls until allowance_until (NULL: no cap).
    ADD COLUMN allowance integer,
    ADD COLUMN allowance_until timestamptz NOT NULL DEFAULT '-infinity',
    ADD CONSTRAINT provider_budgets_algorithm CHECK (algorithm IN ('sliding', 'fixed', 'token_bucket')),
    ADD CONSTRAINT provider_budgets_sliding_ring CHECK (
        algorithm <> 'sliding'
        OR (bucket_seconds > 0 AND cardinality(counts) >= 2 AND spent >= 0)),
    ADD CONSTRAINT provider_budgets_guard CHECK (guard_seconds >= 0);

-- How many 429s each call got: the gateway fails the job once the provider's max_rate_limited
-- is reached. Keyed by the call's idempotency key (one per step occurrence of a job), so the
-- count survives retries and reclaims. No foreign key to jobs: the gateway also serves calls
-- of contexts that are not queue jobs (tests, tools), and a row is a few bytes.
CREATE TABLE rate_limited_calls (
    job_id          uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    provider        text        NOT NULL,
    count           integer     NOT NULL CHECK (count > 0),
    first_at        timestamptz NOT NULL DEFAULT now(),
    last_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, idempotency_key)
);

-- One window's verdict, computed from its locked row; budget_checkout writes it back on a grant.
CREATE TYPE budget_verdict AS (
    ok          boolean,
    wait        double precision,  -- refused: seconds until this window could grant the cost
    ahead       double precision,  -- granted token bucket: seconds until the reserved slot
    blocked_for double precision,
    remaining   integer,           -- calls this window still allows after the grant
    counts      integer[],
    head        bigint,
    spent       integer,
    tokens      double precision,
    allowance   integer
);

-- The verdict of row b at unix time tt (timestamp t) for p_cost calls: pure, writes nothing.
CREATE FUNCTION budget_window_verdict(b provider_budgets, t timestamptz, tt double precision,
                                      p_cost integer, p_horizon double precision)
RETURNS budget_verdict LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v    budget_verdict;
    lim  integer := b.effective_limit;
    c    integer[];
    m    integer;
    k    integer;
    cur  bigint;
    i    bigint;
    slot integer;
    acc  integer := 0;
    need integer;
    pos  double precision;
    avail double precision;
BEGIN
    v.ok := true; v.wait := 0; v.ahead := 0; v.allowance := NULL;
    v.counts := b.counts; v.head := b.head; v.spent := b.spent; v.tokens := b.tokens;
    v.blocked_for := CASE WHEN b.blocked_until > t THEN extract(epoch FROM b.blocked_until - t) ELSE 0 END;
    IF b.algorithm = 'sliding' THEN
        m := cardinality(b.counts); k := m - 1;
        cur := floor(tt / b.bucket_seconds)::bigint;
        c := b.counts; v.spent := b.spent;
        IF b.head IS NULL OR cur - b.head >= m THEN  -- idle for a whole window: nothing counts
            c := array_fill(0, ARRAY[m]); v.spent := 0;
        ELSE  -- sub-buckets that left the window are emptied
            FOR d IN 1 .. greatest(cur - b.head, 0)::integer LOOP
                slot := ((b.head + d) % m)::integer + 1;
                v.spent := v.spent - c[slot]; c[slot] := 0;
            END LOOP;
        END IF;
        v.head := greatest(cur, coalesce(b.head, cur));
        slot := (v.head % m)::integer + 1;
        IF v.spent + p_cost <= lim THEN
            c[slot] := c[slot] + p_cost;
            v.spent := v.spent + p_cost;
        ELSE
            v.ok := false;
            need := v.spent + p_cost - lim;
            v.wait := b.window_seconds;  -- the cost exceeds the limit itself: come back in a window
            IF need <= v.spent THEN  -- the oldest sub-buckets that must age out for the cost to fit
                FOR d IN 0 .. k LOOP
                    i := v.head - k + d;
                    acc := acc + c[(i % m)::integer + 1];
                    IF acc >= need THEN
                        v.wait := (i + k + 1) * b.bucket_seconds - tt;
                        EXIT;
                    END IF;
                END LOOP;
            END IF;
        END IF;
        v.counts := c;
        v.remaining := lim - v.spent;
    ELSIF b.algorithm = 'fixed' THEN
        cur := floor(tt / b.window_seconds)::bigint;
        v.head := cur;
        v.spent := CASE WHEN b.head = cur THEN b.spent ELSE 0 END;
        pos := tt - cur * b.window_seconds;
        IF pos > b.window_seconds - least(b.guard_seconds, b.window_seconds / 10)
           OR v.spent + p_cost > lim THEN
            v.ok := false;
            v.wait := (cur + 1) * b.window_seconds - tt;
        ELSE
            v.spent := v.spent + p_cost;
        END IF;
        v.remaining := lim - v.spent;
    ELSE  -- token_bucket (GCRA): a grant may reserve a slot up to p_horizon s ahead of the refill
        avail := least(least(b.burst, lim)::double precision,
                       b.tokens + greatest(0, extract(epoch FROM t - b.refreshed_at)) * lim / b.window_seconds);
        v.ahead := greatest((p_cost - avail) * b.window_seconds / lim, 0);
        IF v.ahead > p_horizon THEN
            v.ok := false;
            v.wait := v.ahead - p_horizon;
            v.ahead := 0;
            v.tokens := avail;
        ELSE
            v.tokens := avail - p_cost;
        END IF;
        v.remaining := floor(greatest(v.tokens, 0))::integer;
    END IF;
    IF v.blocked_for > 0 THEN
        v.ok := false;
        v.wait := greatest(v.wait, v.blocked_for);
    END IF;
    IF b.allowance IS NOT NULL AND b.allowance_until > t THEN
        IF b.allowance < p_cost THEN
            v.ok := false;
            v.wait := greatest(v.wait, extract(epoch FROM b.allowance_until - t));
        ELSE
            v.allowance := b.allowance - p_cost;
            v.remaining := least(v.remaining, v.allowance);
        END IF;
    END IF;
    RETURN v;
END $$;

-- Spend p_cost calls from every window of the scope, or from none: one atomic call per checkout.
-- First the rows are read as last committed, without a lock: if that refuses (refusing is always
-- safe), the checkout returns at once, having locked and written nothing, so the many refusals
-- of a saturated budget neither queue on the rows nor wait for a WAL flush. Otherwise all rows
-- are locked in window order (every spender takes the same order: no deadlock), then the time
-- is read, so grant times follow the order in which the locks were held; the rows are read
-- again after the lock, at their latest committed version, and decided again.
-- Returns one row per window: granted and delay are the verdict of the whole scope (granted:
-- the wait until a reserved token-bucket slot, else 0; refused: the wait until every window
-- could grant the cost, if nobody else spends meanwhile).
CREATE FUNCTION budget_checkout(p_provider text, p_scope text, p_windows double precision[],
                                p_cost integer, p_horizon double precision)
RETURNS TABLE (granted boolean, delay double precision, window_seconds double precision,
               blocked_for double precision, reason text, remaining integer, granted_at double precision)
LANGUAGE plpgsql AS $$
DECLARE
    b        provider_budgets;
    v        budget_verdict;
    verdicts budget_verdict[] := '{}';
    rows_    provider_budgets[] := '{}';
    t        timestamptz;
    tt       double precision;
    all_ok   boolean := true;
    wait_    double precision := 0;
    ahead_   double precision := 0;
    locked   boolean := false;
BEGIN
    t := clock_timestamp();
    tt := extract(epoch FROM t);
    LOOP
        FOR b IN SELECT * FROM provider_budgets x
                 WHERE x.provider = p_provider AND x.scope_key = p_scope AND x.window_seconds = ANY (p_windows)
                 ORDER BY x.window_seconds LOOP
            v := budget_window_verdict(b, greatest(t, b.refreshed_at), greatest(tt, extract(epoch FROM b.refreshed_at)),
                                       p_cost, p_horizon);
            rows_ := rows_ || b;
            verdicts := verdicts || v;
            all_ok := all_ok AND v.ok;
            wait_ := greatest(wait_, CASE WHEN v.ok THEN 0 ELSE v.wait END);
            ahead_ := greatest(ahead_, v.ahead);
        END LOOP;
        EXIT WHEN locked OR NOT all_ok OR cardinality(rows_) = 0;
        -- it would grant: take the locks, and decide again on what they protect
        rows_ := '{}'; verdicts := '{}'; all_ok := true; wait_ := 0; ahead_ := 0; locked := true;
        PERFORM 1 FROM provider_budgets x
        WHERE x.provider = p_provider AND x.scope_key = p_scope AND x.window_seconds = ANY (p_windows)
        ORDER BY x.window_seconds FOR UPDATE;
        SELECT greatest(clock_timestamp(), max(x.refreshed_at)) INTO t FROM provider_budgets x
        WHERE x.provider = p_provider AND x.scope_key = p_scope AND x.window_seconds = ANY (p_windows);
        tt := extract(epoch FROM t);
    END LOOP;
    FOR n IN 1 .. cardinality(rows_) LOOP
        b := rows_[n]; v := verdicts[n];
        IF all_ok THEN
            UPDATE provider_budgets x
            SET counts = v.counts, head = v.head, spent = v.spent, tokens = v.tokens,
                allowance = v.allowance, refreshed_at = t
            WHERE x.provider = b.provider AND x.scope_key = b.scope_key AND x.window_seconds = b.window_seconds;
        END IF;
        granted := all_ok;
        delay := CASE WHEN all_ok THEN ahead_ ELSE greatest(wait_, 0) END;
        window_seconds := b.window_seconds;
        blocked_for := v.blocked_for;
        reason := b.reason;
        remaining := v.remaining;
        granted_at := tt;
        RETURN NEXT;
    END LOOP;
END $$;

-- Create a window's row, or bring it to a changed configuration. A sliding or fixed row that
-- changes algorithm, guard or ring carries what it had spent into the current (sub-)bucket, so a
-- deploy never hands out a fresh window: a token bucket's spending is read as limit - tokens.
CREATE FUNCTION budget_ensure(p_provider text, p_scope text, p_window double precision, p_limit integer,
                              p_burst integer, p_algorithm text, p_guard double precision, p_slots integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b       provider_budgets;
    t       timestamptz;
    tt      double precision;
    width   double precision := CASE WHEN p_algorithm = 'sliding' THEN (p_window + p_guard) / (p_slots - 1) END;
    ring    integer[];
    cur     bigint;
    carried integer := 0;
    existed boolean;
BEGIN
    SELECT * INTO b FROM provider_budgets x
    WHERE x.provider = p_provider AND x.scope_key = p_scope AND x.window_seconds = p_window FOR UPDATE;
    existed := FOUND;
    IF existed AND b.configured_limit = p_limit AND b.burst = p_burst AND b.algorithm = p_algorithm
       AND b.guard_seconds = p_guard
       AND (p_algorithm <> 'sliding' OR cardinality(b.counts) = p_slots) THEN
        RETURN;
    END IF;
    t := greatest(clock_timestamp(), b.refreshed_at);
    tt := extract(epoch FROM t);
    IF existed THEN
        IF b.algorithm = 'token_bucket' THEN
            carried := greatest(0, b.effective_limit - floor(greatest(
                (budget_window_verdict(b, t, tt, 0, 0)).tokens, 0)))::integer;
        ELSE
            carried := (budget_window_verdict(b, t, tt, 0, 0)).spent;
        END IF;
        carried := least(carried, p_limit);
    END IF;
    IF p_algorithm = 'sliding' THEN
        cur := floor(tt / width)::bigint;
        ring := array_fill(0, ARRAY[p_slots]);
        ring[(cur % p_slots)::integer + 1] := carried;
    ELSIF p_algorithm = 'fixed' THEN
        cur := floor(tt / p_window)::bigint;
    END IF;
    INSERT INTO provider_budgets AS x
        (provider, scope_key, window_seconds, configured_limit, effective_limit, burst, tokens, refreshed_at,
         algorithm, guard_seconds, bucket_seconds, counts, head, spent)
    VALUES (p_provider, p_scope, p_window, p_limit, p_limit, p_burst,
            CASE WHEN existed THEN least(p_burst, greatest(b.tokens, 0)) ELSE p_burst END, t,
            p_algorithm, p_guard, width, ring, cur, CASE WHEN p_algorithm = 'token_bucket' THEN 0 ELSE carried END)
    ON CONFLICT (provider, scope_key, window_seconds) DO UPDATE
    SET configured_limit = excluded.configured_limit, effective_limit = excluded.effective_limit,
        burst = excluded.burst, tokens = excluded.tokens, refreshed_at = excluded.refreshed_at,
        algorithm = excluded.algorithm, guard_seconds = excluded.guard_seconds,
        bucket_seconds = excluded.bucket_seconds, counts = excluded.counts, head = excluded.head,
        spent = excluded.spent, allowance = NULL, allowance_until = '-infinity', reason = NULL
    -- a concurrent first ensure inserted the row meanwhile: leave it alone if it is the same
    WHERE (x.configured_limit, x.burst, x.algorithm, x.guard_seconds, cardinality(x.counts))
          IS DISTINCT FROM (excluded.configured_limit, excluded.burst, excluded.algorithm,
                            excluded.guard_seconds, cardinality(excluded.counts));
END $$;

-- After a call's answer (or its transport error), in one statement: p_answered moves the call,
-- granted at p_since (unix time), from its grant's sub-bucket to now's, so it counts until a
-- window after its answer. The provider received it somewhere between its grant and its answer,
-- so a call granted later can only share a provider window of T with it if that grant came
-- within T of the answer: no provider window ever holds more than the limit, whatever the
-- delivery delays (the guard is left to cover clock rates). A fixed window whose answer came in
-- the next window counts it there too. Then, when p_reason is set, apply what the provider
-- said (a 429, Retry-After, RateLimit headers), never above the configured limit: block every
-- window for p_block_for s; in the window of p_window s (NULL: every window), p_full (a 429)
-- counts it spent up to its limit now (a sliding window frees only as its earlier calls age
-- out; a token bucket keeps no token), at most p_remaining more calls until p_reset s from now
-- (one window when NULL), less the calls granted after p_since (they are in flight and not in
-- the provider's count yet), and p_limit lowers the effective limit.
CREATE FUNCTION budget_answer(p_provider text, p_scope text, p_since double precision, p_answered boolean,
                              p_block_for double precision, p_remaining integer, p_reset double precision,
                              p_limit integer, p_window double precision, p_full boolean, p_reason text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b      provider_budgets;
    v      budget_verdict;
    t      timestamptz;
    tt     double precision;
    lim    integer;
    extra  integer;
    since  integer;
    c      integer[];
    m      integer;
    slot   integer;
    old    bigint;
BEGIN
    IF p_reason IS NULL THEN
        -- Only a move to the answer: losing it in a crash leaves the call counted at its grant,
        -- as if never answered. Not waiting for the WAL flush releases the rows' lock at once.
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    PERFORM 1 FROM provider_budgets x WHERE x.provider = p_provider AND x.scope_key = p_scope
    ORDER BY x.window_seconds FOR UPDATE;
    SELECT greatest(clock_timestamp(), max(x.refreshed_at)) INTO t FROM provider_budgets x
    WHERE x.provider = p_provider AND x.scope_key = p_scope;
    tt := extract(epoch FROM t);
    FOR b IN SELECT * FROM provider_budgets x WHERE x.provider = p_provider AND x.scope_key = p_scope
             ORDER BY x.window_seconds LOOP
        IF p_reason IS NULL AND b.algorithm = 'token_bucket' THEN
            CONTINUE;  -- a bucket does not care when a call was answered
        END IF;
        v := budget_window_verdict(b, t, tt, 0, 0);  -- the row brought to now
        lim := b.effective_limit;
        c := v.counts;
        m := cardinality(c);
        IF p_answered AND p_since IS NOT NULL THEN
            IF b.algorithm = 'sliding' THEN
                old := floor(p_since / b.bucket_seconds)::bigint;
                slot := (v.head % m)::integer + 1;
                IF old > v.head - m AND old < v.head AND c[(old % m)::integer + 1] > 0 THEN
                    c[(old % m)::integer + 1] := c[(old % m)::integer + 1] - 1;
                    c[slot] := c[slot] + 1;
                ELSIF old <= v.head - m THEN  -- answered a whole window after its grant: count it again
                    c[slot] := c[slot] + 1;
                    v.spent := v.spent + 1;
                END IF;
            ELSIF b.algorithm = 'fixed' AND floor(p_since / b.window_seconds)::bigint < v.head THEN
                v.spent := v.spent + 1;
            END IF;
        END IF;
        IF p_reason IS NOT NULL THEN
            IF p_limit IS NOT NULL AND b.window_seconds = p_window THEN
                lim := greatest(1, least(b.configured_limit, p_limit));
            END IF;
            IF p_window IS NULL OR b.window_seconds = p_window THEN
                IF p_full THEN
                    IF b.algorithm = 'sliding' THEN
                        extra := greatest(lim - v.spent, 0);
                        slot := (v.head % m)::integer + 1;
                        c[slot] := c[slot] + extra;
                        v.spent := v.spent + extra;
                    ELSIF b.algorithm = 'fixed' THEN
                        v.spent := greatest(v.spent, lim);
                    ELSE
                        v.tokens := least(v.tokens, 0);
                    END IF;
                END IF;
                IF p_remaining IS NOT NULL THEN
                    since := 0;
                    IF b.algorithm = 'sliding' AND p_since IS NOT NULL THEN
                        FOR d IN 0 .. least(v.head - floor(p_since / b.bucket_seconds)::bigint, m - 1)::integer LOOP
                            since := since + c[((v.head - d) % m)::integer + 1];
                        END LOOP;
                        since := greatest(since - 1, 0);  -- less the answered call itself
                    ELSIF b.algorithm = 'token_bucket' THEN
                        v.tokens := least(v.tokens, p_remaining);
                    END IF;
                    v.allowance := least(CASE WHEN b.allowance_until > t THEN b.allowance END,
                                         greatest(p_remaining - since, 0));
                    b.allowance_until := greatest(CASE WHEN b.allowance_until > t THEN b.allowance_until END,
                                                  t + make_interval(secs => coalesce(p_reset, b.window_seconds)));
                END IF;
            END IF;
            b.blocked_until := greatest(b.blocked_until, t + make_interval(secs => coalesce(p_block_for, 0)));
            b.reason := p_reason;
            b.tightened_at := t;
        END IF;
        UPDATE provider_budgets x
        SET counts = c, head = v.head, spent = v.spent, tokens = v.tokens, refreshed_at = t,
            allowance = v.allowance, allowance_until = b.allowance_until, effective_limit = lim,
            blocked_until = b.blocked_until, reason = b.reason, tightened_at = b.tightened_at
        WHERE x.provider = b.provider AND x.scope_key = b.scope_key AND x.window_seconds = b.window_seconds;
    END LOOP;
END $$;
