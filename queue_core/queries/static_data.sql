-- Named queries of an n8n workflow's static data ($getWorkflowStaticData; queue_core.store.static_data).
-- Live jobs read and write static_data, shadow and dry-run jobs replay_static_data: the two are
-- separate tables so that no replayed trigger can reach the live row.

-- name: read_static_data
SELECT data, version FROM static_data WHERE automation = %(automation)s

-- name: save_static_data
-- Fenced by the writing job's claim (no row back: the lease was lost, nothing written). Last
-- writer wins, as n8n's save of a workflow's static data: the whole object replaces the row's.
-- The version before the write comes back, so the caller can tell a concurrent write it replaced.
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
before AS (
    SELECT version FROM static_data WHERE automation = %(automation)s
)
INSERT INTO static_data AS s (automation, data, job_id)
SELECT %(automation)s, %(data)s::jsonb, %(job_id)s FROM fence
ON CONFLICT (automation) DO UPDATE
SET data = excluded.data, version = s.version + 1, job_id = excluded.job_id, updated_at = now()
RETURNING s.version, (SELECT version FROM before)

-- name: read_replay_static_data
SELECT data, version FROM replay_static_data WHERE recording = %(recording)s AND automation = %(automation)s

-- name: save_replay_static_data
-- As save_static_data, for one replayed recording set (shadow and dry-run jobs).
WITH fence AS (
    SELECT 1 FROM jobs WHERE id = %(job_id)s AND claim_count = %(claim)s AND status = 'running'
      AND leased_until > clock_timestamp()
),
before AS (
    SELECT version FROM replay_static_data WHERE recording = %(recording)s AND automation = %(automation)s
)
INSERT INTO replay_static_data AS s (recording, automation, data, job_id)
SELECT %(recording)s, %(automation)s, %(data)s::jsonb, %(job_id)s FROM fence
ON CONFLICT (recording, automation) DO UPDATE
SET data = excluded.data, version = s.version + 1, job_id = excluded.job_id, updated_at = now()
RETURNING s.version, (SELECT version FROM before)
