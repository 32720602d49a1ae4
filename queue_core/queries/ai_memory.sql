-- Named queries of an AI Agent's Simple Memory (n8n's memoryBufferWindow; queue_core.store.ai_memory).
-- Live jobs read and write ai_memory, shadow and dry-run jobs replay_ai_memory: separate tables, so
-- that no replayed trigger can reach a live session.

-- name: read_ai_memory
-- The session's last %(k)s turns (all of them when k is NULL), newest first; the turns this job
-- wrote at or after %(ordinal)s (an earlier attempt's) are not part of what it reads now.
SELECT input, output FROM ai_memory
WHERE automation = %(automation)s AND session = %(session)s
  AND NOT (job_id = %(job_id)s AND ordinal >= %(ordinal)s)
ORDER BY seq DESC
LIMIT %(k)s

-- name: append_ai_memory
-- Fenced by the writing job's claim: fenced is 0 when the lease was lost (nothing written). A turn
-- the job already wrote (a retried attempt) is not written again (seq comes back NULL).
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
written AS (
    INSERT INTO ai_memory (automation, session, input, output, job_id, ordinal)
    SELECT %(automation)s, %(session)s, %(input)s, %(output)s, %(job_id)s, %(ordinal)s FROM fence
    ON CONFLICT (automation, job_id, ordinal) DO NOTHING
    RETURNING seq
)
SELECT (SELECT count(*) FROM fence) AS fenced, (SELECT seq FROM written) AS seq

-- name: read_replay_ai_memory
SELECT input, output FROM replay_ai_memory
WHERE recording = %(recording)s AND automation = %(automation)s AND session = %(session)s
  AND NOT (job_id = %(job_id)s AND ordinal >= %(ordinal)s)
ORDER BY seq DESC
LIMIT %(k)s

-- name: append_replay_ai_memory
-- As append_ai_memory, for one replayed recording set (shadow and dry-run jobs).
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
written AS (
    INSERT INTO replay_ai_memory (recording, automation, session, input, output, job_id, ordinal)
    SELECT %(recording)s, %(automation)s, %(session)s, %(input)s, %(output)s, %(job_id)s, %(ordinal)s FROM fence
    ON CONFLICT (recording, automation, job_id, ordinal) DO NOTHING
    RETURNING seq
)
SELECT (SELECT count(*) FROM fence) AS fenced, (SELECT seq FROM written) AS seq
