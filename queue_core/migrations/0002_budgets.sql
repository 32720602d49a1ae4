-- 0002: provider rate budgets (DESIGN.md, "Data model": provider_budgets).
--
-- One row per (provider, scope key, window): a token bucket that every worker on every machine
-- spends from. Tokens refill continuously at effective_limit / window_seconds per second, up to
-- least(burst, effective_limit). All arithmetic uses the database clock, so workers' clocks never
-- matter, and every spend is one atomic UPDATE (queries/budget.sql), never read-then-write.

CREATE TABLE provider_budgets (
    provider         text             NOT NULL,
    -- 'account' for account-scoped budgets; for key-scoped ones a hash of the API key or the
    -- tenant value the call passed (never the key itself).
    scope_key        text             NOT NULL,
    window_seconds   double precision NOT NULL CHECK (window_seconds > 0),
    configured_limit integer          NOT NULL CHECK (configured_limit > 0),
    -- What the provider currently allows: tightened by 429s and rate-limit headers, and never
    -- above the configured limit (the CHECK makes that a database guarantee).
    effective_limit  integer          NOT NULL,
    burst            integer          NOT NULL CHECK (burst > 0),
    tokens           double precision NOT NULL,
    refreshed_at     timestamptz      NOT NULL DEFAULT clock_timestamp(),
    -- Nothing may be spent before this (Retry-After, or remaining = 0 until a reset).
    blocked_until    timestamptz      NOT NULL DEFAULT '-infinity',
    -- Why the budget was last tightened, for `cutover jobs explain`; NULL while never tightened.
    reason           text,
    tightened_at     timestamptz,
    PRIMARY KEY (provider, scope_key, window_seconds),
    CONSTRAINT provider_budgets_effective_within_configured
        CHECK (effective_limit > 0 AND effective_limit <= configured_limit)
);
