-- 0007: keep the claim and the completer on their intended plans.
--
-- jobs_automation_status tempted the planner into the claim (automation = ANY(...)) and into the
-- completer's join, and it indexes status, so every transition rewrote it (no HOT updates). The
-- queries that group by automation are operator reads that a sequential scan serves well enough.
DROP INDEX IF EXISTS jobs_automation_status;

-- Bulk enqueues change the table's size by orders of magnitude between autovacuum runs; with
-- stale statistics the planner sorts every pending row on each claim instead of walking the
-- claim index. Analyse after far fewer changes than the default 10% + 50 rows.
ALTER TABLE jobs SET (autovacuum_analyze_scale_factor = 0.002, autovacuum_analyze_threshold = 1000,
                      autovacuum_vacuum_scale_factor = 0.01);
