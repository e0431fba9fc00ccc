#!/bin/sh
# Creates or upgrades Temporal's two PostgreSQL databases. Every step is idempotent
# (an existing database is accepted, setup-schema skips when a newer version is
# recorded, update-schema applies only missing versions), so this runs on every
# `docker compose up` and also performs the schema upgrade after an image bump.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
PORT="${DB_PORT:-5432}"
# The admin-tools image's paths; `npm run stack` points both at the copies it installed
# from the same server release (scripts/ensure-servers.mjs).
SCHEMA_DIR="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
SQL_TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"

sql_tool() {
  "$SQL_TOOL" --plugin "${DB:-postgres12}" --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" "$@"
}

for db in temporal temporal_visibility; do
  case "$db" in
    temporal) versioned="$SCHEMA_DIR/temporal/versioned" ;;
    *) versioned="$SCHEMA_DIR/visibility/versioned" ;;
  esac
  echo "schema: $db"
  sql_tool --db "$db" create
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema -d "$versioned"
done
echo 'schema: done'
