-- 0008: one index per ledger row instead of two.
--
-- Every transition appends a ledger row, two per job run at least (claimed, then the outcome),
-- and each row was inserted into two B-trees: the primary key on seq and ledger_job on
-- (job_id, seq). Every read of the ledger asks for one job's rows in order, which (job_id, seq)
-- serves alone; nothing looks rows up by seq. So (job_id, seq) becomes the primary key and the
-- index on seq goes. seq stays an identity column: unique and increasing as before.
CREATE UNIQUE INDEX ledger_job_seq ON ledger (job_id, seq);
ALTER TABLE ledger DROP CONSTRAINT ledger_pkey;
ALTER TABLE ledger ADD CONSTRAINT ledger_pkey PRIMARY KEY USING INDEX ledger_job_seq;
DROP INDEX ledger_job;
