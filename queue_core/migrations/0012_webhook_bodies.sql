-- 0012: replay protection for webhook schemes whose delivery id is not signed (github, shopify).
-- A captured, validly signed body re-posted with a new delivery id would otherwise start a new
-- job. One row per (source, sha256 of the verified body) seen within the source's window; the
-- primary key is what refuses the second delivery id, also between concurrent requests.
-- No body is stored: only its digest, the first delivery id and a count of refused replays.

CREATE TABLE webhook_bodies (
    source      text        NOT NULL,
    digest      text        NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
    delivery_id text        NOT NULL,
    first_seen  timestamptz NOT NULL,
    replays     bigint      NOT NULL DEFAULT 0 CHECK (replays >= 0),
    PRIMARY KEY (source, digest)
);
-- Serves pruning rows older than a source's window.
CREATE INDEX webhook_bodies_age ON webhook_bodies (source, first_seen);
