-- 0017: the console's sign-in sessions (queue_core.server.console): a control token exchanged for
-- a session cookie. The cookie's value is never stored: only its sha256, the hash of the token it
-- came from (so a revoked token, or a token whose name was reused by a new one, ends its sessions
-- at their next request), the session's CSRF secret and its expiry.
CREATE TABLE console_sessions (
    session_hash text        PRIMARY KEY,
    token_hash   text        NOT NULL,
    csrf_secret  text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
-- Signing in purges the expired sessions (a range scan on this index).
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
