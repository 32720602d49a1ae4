-- 0010: a job's key generation, the part of its calls' idempotency keys an operator can renew.
--
-- Child keys are derived from (job id, step, occurrence, generation) (see queue_core/keys.py).
-- The generation is 0 until `cutover jobs replay --new-keys` adds one, which makes every call of
-- the replayed run send the provider new keys (and so redo its side effects). It is kept on the
-- job, not on the steps a replay forgets, so every later retry and reclaim of that run keeps
-- using it. A column with a constant default: no table rewrite.
ALTER TABLE jobs ADD COLUMN key_generation integer NOT NULL DEFAULT 0
    CHECK (key_generation >= 0);
