-- 0003: go-live gate verdicts. The harness records one row per automation per gated run; the
-- worker refuses live jobs of an automation whose current code (source hash) has no passing row.

CREATE TABLE gate_verdicts (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    automation   text        NOT NULL,
    code_version text        NOT NULL,  -- sha256 prefix of the automation module's source
    ready        boolean     NOT NULL,
    reasons      jsonb       NOT NULL DEFAULT '[]'::jsonb,
    recording    text,
    summary      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    recorded_by  text        NOT NULL DEFAULT current_user
);
-- Serves "is there a passing verdict for this automation at this code version?"
CREATE INDEX gate_verdicts_lookup ON gate_verdicts (automation, code_version, recorded_at DESC);
