-- The statements n8n's Postgres node (v2) builds for its operations, in parts
-- (queue_core.compat._n8n_postgres composes them with psycopg.sql). A part's {placeholders} are
-- identifiers quoted by psycopg (schema.table, columns), lists of them, or other parts; values
-- are always bound parameters ($1, $2, ...), never text. These are a migrated node's statements,
-- sent through its SQL provider (queue_core.gateway.sql), not the queue's own.

-- name: insert
INSERT INTO {table}({columns}) VALUES({values})

-- name: insert_defaults
-- Insert from 2.6 with nothing to insert.
INSERT INTO {table} DEFAULT VALUES

-- name: skip_on_conflict
ON CONFLICT DO NOTHING

-- name: returning
RETURNING {columns}

-- name: update
UPDATE {table} SET {assignments} WHERE {conditions}

-- name: upsert_update
ON CONFLICT ({columns}) DO UPDATE SET {assignments}

-- name: upsert_nothing
ON CONFLICT ({columns}) DO NOTHING

-- name: select
SELECT {columns} FROM {table}

-- name: where
WHERE {conditions}

-- name: order_by
ORDER BY {rules}

-- name: limit
LIMIT {limit}

-- name: delete
DELETE FROM {table}

-- name: truncate
TRUNCATE TABLE {table}

-- name: restart_identity
RESTART IDENTITY

-- name: cascade
CASCADE

-- name: drop
DROP TABLE IF EXISTS {table}

-- name: assignment
{column} = {value}

-- name: condition
-- {operator}: one of Select Rows' conditions (=, !=, LIKE, >, <, >=, <=), checked before it is used.
{column} {operator} {value}

-- name: null_condition
{column} {operator}

-- name: sort_rule
{column} {direction}

-- The statements of n8n's Data Table node on a copy of its table (queue_core.compat._n8n_datatable):
-- the conditions as n8n's data-table module writes them for Postgres.

-- name: dt_neq
-- "not equal" keeps the rows whose column is null too, as n8n's data tables do.
({column} != {value} OR {column} IS NULL)

-- name: dt_like
-- {operator}: LIKE or ILIKE; the value's backslashes and underscores are escaped, its % kept as wildcards.
{column} {operator} {value} ESCAPE '\'

-- name: dt_touch
-- An update stamps the row's updatedAt, as n8n does.
"updatedAt" = CURRENT_TIMESTAMP(3)

-- name: dt_upsert
-- Update the rows the filter picks; when there are none, insert the row: one statement, so the
-- insert sees the update's outcome. The row to insert is one JSON object read as the table's row
-- type (jsonb_populate_record), so each value takes its column's type as a VALUES list would.
WITH updated AS ({update} RETURNING *),
inserted AS (INSERT INTO {table}({columns}) SELECT {columns} FROM jsonb_populate_record(NULL::{table}, {row}::jsonb)
             WHERE NOT EXISTS (SELECT 1 FROM updated) RETURNING *)
SELECT * FROM updated UNION ALL SELECT * FROM inserted
