-- Named queries over job trees: the jobs a batch enqueued and every job descending from them
-- (ctx.enqueue children, a shadow poller's items, their children), for the shadow replay.

-- name: tree_results
-- The roots (%(ids)s) and all their descendants, each with its parent, its child key, its
-- outcome and decision trace, in one statement. The roots are read as job_results reads them;
-- each further level joins the level above to the partial jobs_parent index, which holds only
-- children, so a batch that started none adds the scan of an empty index. The recursion carries
-- the job's columns, so jobs is not read a second time.
WITH RECURSIVE tree AS (
    SELECT id, NULL::uuid AS parent_id, automation, status, attempt, claim_count, error_kind,
           last_error, trigger_id, trigger_meta->>'key' AS key
    FROM jobs WHERE id = ANY(%(ids)s::uuid[])
    UNION ALL
    SELECT c.id, c.parent_id, c.automation, c.status, c.attempt, c.claim_count, c.error_kind,
           c.last_error, c.trigger_id, c.trigger_meta->>'key'
    FROM tree t JOIN jobs c ON c.parent_id = t.id
)
SELECT t.id, t.parent_id, t.automation, t.status::text, t.attempt, t.claim_count,
       t.error_kind::text, t.last_error, t.trigger_id, t.key, d.trace
FROM tree t LEFT JOIN decisions d ON d.job_id = t.id
