-- Statements of the server provisioner (provision.py): the template database and the fresh
-- databases copied from it. A database's name is an identifier, which cannot be a bind
-- parameter: those statements hold a {name} (or {template}) placeholder that provision.py fills
-- with psycopg.sql.Identifier (quoted by psycopg, never text pasted in).

-- name: ping
SELECT 1

-- name: template_lock
-- Serializes building the template across processes (test workers start together).
SELECT pg_advisory_lock(%(lock)s)

-- name: template_unlock
SELECT pg_advisory_unlock(%(lock)s)

-- name: is_template
SELECT datistemplate FROM pg_database WHERE datname = %(name)s

-- name: database_exists
SELECT 1 FROM pg_database WHERE datname = %(name)s

-- name: create_database
CREATE DATABASE {name}

-- name: create_database_from_template
-- A file copy of the migrated template: no migration run.
CREATE DATABASE {name} TEMPLATE {template}

-- name: mark_template
-- No connections: CREATE DATABASE ... TEMPLATE needs the template to have none.
ALTER DATABASE {name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false

-- name: drop_database_force
-- A half-built template from a crashed run, or a test database someone is still in.
DROP DATABASE IF EXISTS {name} WITH (FORCE)
