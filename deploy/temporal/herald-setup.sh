#!/bin/sh
# One-shot job: the namespace Herald runs in and the custom search attributes every
# Herald list (API and Temporal Web UI) queries by. Safe to re-run: an existing
# namespace is left as the operator configured it, and re-adding a search attribute
# with the same type is a no-op on the server (a different type fails loudly).
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
# R-LOG, issue 16: a delivery closes when its round ends, and its log, body and reopen
# (dead-letter retry, replay) then live in Temporal's closed-workflow retention, counted
# from that end: 90 days, Dong Tien's bodies and replays (R-DT-REPLAY); the other presets'
# 30 days fit in it. With 30 days, Dong Tien deliveries could not be replayed (nor their
# bodies read) from 30 days after their round ended.
RETENTION="${HERALD_RETENTION:-2160h}"
MAX_ATTEMPTS="${SETUP_MAX_ATTEMPTS:-60}"
SLEEP_SECONDS="${SETUP_SLEEP_SECONDS:-2}"

# The frontend answers before its namespace registry has caught up (it refreshes
# every few seconds), so each step is retried rather than assumed to work first time.
retry() {
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
      echo "herald-setup: gave up after $MAX_ATTEMPTS attempts: $*" >&2
      return 1
    fi
    attempt=$((attempt + 1))
    sleep "$SLEEP_SECONDS"
  done
}

echo "herald-setup: waiting for Temporal at $TEMPORAL_ADDRESS"
retry temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null

if temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "herald-setup: namespace '$NAMESPACE' exists; its retention is left unchanged"
else
  echo "herald-setup: creating namespace '$NAMESPACE' (retention $RETENTION)"
  # describe-or-create inside the retry: an earlier create may have landed although its
  # answer timed out, and a second create would then fail with "already registered".
  retry sh -c 'temporal operator namespace describe --address "$1" --namespace "$2" >/dev/null 2>&1 ||
    temporal operator namespace create --address "$1" --namespace "$2" --retention "$3"' \
    _ "$TEMPORAL_ADDRESS" "$NAMESPACE" "$RETENTION"
fi

# PostgreSQL visibility has ten preallocated Keyword columns per namespace (Herald uses eight)
# and three Datetime ones (Herald uses one, HeraldCreatedAt: issue 16).
# Keep this list in step with src/shared/search-attributes.ts (test/unit/compose.test.ts checks).
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldTenant --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldEndpoint --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldEventType --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldStatus --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldEventId --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldPreset --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldEndpointStatus --type Keyword
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldCreatedAt --type Datetime
retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --name HeraldEventRecord --type Keyword

# Registration is visible to queries only once the frontend has refreshed the namespace.
# Herald's services start after this job, so their first list or start must not race it.
PROBE="HeraldTenant = 'probe' AND HeraldEndpoint = 'probe' AND HeraldEventType = 'probe'"
PROBE="$PROBE AND HeraldStatus = 'probe' AND HeraldEventId = 'probe' AND HeraldPreset = 'probe'"
PROBE="$PROBE AND HeraldEndpointStatus = 'probe' AND HeraldCreatedAt = '2000-01-01T00:00:00Z'"
PROBE="$PROBE AND HeraldEventRecord = 'probe'"
retry temporal workflow list --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --query "$PROBE" --limit 1 >/dev/null

echo "herald-setup: namespace '$NAMESPACE' ready with Herald search attributes"
