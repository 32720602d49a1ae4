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
