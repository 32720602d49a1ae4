-- 0004: the control plane's state: hashed bearer tokens with scopes, and pauses.

CREATE TABLE api_tokens (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text        NOT NULL UNIQUE,
    -- sha256 of the token; the token itself is printed once at creation and never stored.
    token_hash   text        NOT NULL UNIQUE,
    -- The first characters of the token, so an operator can tell tokens apart in listings.
    prefix       text        NOT NULL,
    scopes       text[]      NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

-- A paused automation's jobs are not claimed; a paused provider's calls wait. One row per
-- paused thing; resuming deletes the row (the ledger keeps the history).
CREATE TABLE pauses (
    kind      text        NOT NULL CHECK (kind IN ('automation', 'provider')),
    name      text        NOT NULL,
    paused_at timestamptz NOT NULL DEFAULT now(),
    paused_by text        NOT NULL,
    reason    text,
    PRIMARY KEY (kind, name)
);
