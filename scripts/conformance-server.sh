#!/usr/bin/env bash
# `npm run conformance:server`: the official MCP conformance harness against mcpkit's fixture server.
#
# Builds the package, compiles conformance/ against it, starts the fixture server on 127.0.0.1 (ephemeral
# port), then runs ../shared/conformance/run-conformance.sh:
#   1. the frozen requirement set of each era, with conformance/expected-failures-<era>.yml;
#   2. the pending 2026-07-28 scenarios by name (scored here: they must pass), with the 2026 baseline;
#   3. the Skills (SEP-2640) server scenarios by name against the fixture's skills endpoint (they must pass);
#   4. the tasks extension (SEP-2663) server scenarios by name (they must pass).
# Stops the server and exits non-zero if any run failed or the server died. See conformance/README.md.
#
# Environment:
#   CONFORMANCE_WRAPPER   the wrapper script (default: ../shared/conformance/run-conformance.sh)
#   CONFORMANCE_OUT       results folder (default: conformance-results/<UTC timestamp>)
#   CONFORMANCE_ERAS      requirement sets to run (default: "2025-11-25 2026-07-28")
#   CONFORMANCE_PENDING   pending 2026 scenarios to run by name (default: the three below; "" for none)
#   CONFORMANCE_SKILLS    Skills scenarios to run by name (default: the three sep-2640 ones; "" for none)
#   CONFORMANCE_TASKS     tasks scenarios to run by name (default: the ten tasks-* ones; "" for none)
#   CONFORMANCE_SINGLE_USE_STATE  1: the fixture server seals single-use requestState (singleUseState: true)
set -uo pipefail
cd "$(dirname "$0")/.."

WRAPPER="${CONFORMANCE_WRAPPER:-../shared/conformance/run-conformance.sh}"
OUT="${CONFORMANCE_OUT:-conformance-results/$(date -u +%Y%m%dT%H%M%SZ)}"
ERAS="${CONFORMANCE_ERAS-2025-11-25 2026-07-28}"
PENDING="${CONFORMANCE_PENDING-http-header-validation http-custom-header-server-validation json-schema-2020-12}"
PENDING_ERA=2026-07-28
SKILLS="${CONFORMANCE_SKILLS-sep-2640-skills-enumeration sep-2640-skills-directory sep-2640-skills-manifest}"
TASKS="${CONFORMANCE_TASKS-tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications tasks-required-task-error tasks-mrtr-composition}"

say() { echo "conformance:server: $*"; }
[ -f "$WRAPPER" ] || { say "wrapper not found at $WRAPPER (shared/ must sit beside the repo)"; exit 2; }

t0=$(date +%s)
npm run --silent build || { say "build failed"; exit 1; }
rm -rf .conformance-out
npx tsc -p tsconfig.conformance.json || { say "compiling conformance/ failed"; exit 1; }

mkdir -p "$OUT"
node .conformance-out/server.js 0 >"$OUT/server.stdout" 2>"$OUT/server.stderr" &
server_pid=$!
stop_server() {
  if kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
}
trap stop_server EXIT

# The server prints its endpoint URL as its first line; give it 20 s.
url=""
for _ in $(seq 1 200); do
  url=$(head -n 1 "$OUT/server.stdout" 2>/dev/null)
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  say "the fixture server did not print its URL; its stderr:"
  cat "$OUT/server.stderr"
  exit 1
fi
skills_url=$(sed -n 2p "$OUT/server.stdout" 2>/dev/null)
for _ in $(seq 1 50); do
  [ -n "$skills_url" ] && break
  sleep 0.1
  skills_url=$(sed -n 2p "$OUT/server.stdout" 2>/dev/null)
done
say "fixture server at $url, skills at $skills_url (pid $server_pid); results in $OUT"

status=0
declare -a results=()
run() { # label, wrapper arguments...
  local label="$1" rc
  shift
  "$WRAPPER" --url "$url" --out "$OUT" "$@" | tee "$OUT/$label.summary"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || status=1
  results+=("$label: $([ "$rc" = 0 ] && echo PASS || echo "FAIL (exit $rc)")")
}

for era in $ERAS; do
  run "requirements-$era" --revision "$era" --expected-failures "conformance/expected-failures-$era.yml"
done
for scenario in $PENDING; do
  run "pending-$scenario" --scenario "$scenario" --spec-version "$PENDING_ERA" \
    --expected-failures "conformance/expected-failures-$PENDING_ERA.yml"
done

for scenario in $SKILLS; do
  url="$skills_url" run "skills-$scenario" --scenario "$scenario" \
    --expected-failures "conformance/expected-failures-$PENDING_ERA.yml"
done

# Extension scenarios are off the spec timeline: run by name without --spec-version (the harness's default wire).
for scenario in $TASKS; do
  run "tasks-$scenario" --scenario "$scenario" --expected-failures "conformance/expected-failures-$PENDING_ERA.yml"
done

if ! kill -0 "$server_pid" 2>/dev/null; then
  say "the fixture server died during the runs; its stderr:"
  cat "$OUT/server.stderr"
  status=1
fi

echo "================ conformance:server ($(($(date +%s) - t0))s, results in $OUT)"
for line in "${results[@]}"; do echo "  $line"; done
[ "$status" = 0 ] && echo "  RESULT: PASS" || echo "  RESULT: FAIL"
exit "$status"
