-- 0006: the control plane's audit trail for actions that are not about one job (pausing and
-- resuming automations or providers, creating and revoking tokens). Job actions (enqueue, cancel,
-- replay, resolving a wait) go to that job's ledger instead. Actors are token names
-- ("token:ci"), "cli" or a hook source ("hook:github"): never a token or a secret.

CREATE TABLE control_events (
    seq         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    target_kind text        NOT NULL,
    target      text        NOT NULL,
    detail      jsonb       NOT NULL DEFAULT '{}'::jsonb
);
-- "Who paused lead-router, and when": the history of one target.
CREATE INDEX control_events_target ON control_events (target_kind, target, seq);

-- Append-only like the ledger, enforced by the database (the function is the ledger's, 0001).
CREATE TRIGGER control_events_no_update BEFORE UPDATE OR DELETE ON control_events
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
