#!/usr/bin/env bash
# `npm run conformance:client`: the official MCP conformance harness, client mode, against mcpkit's
# conformance client (conformance/client.ts over mcpkit's Streamable HTTP client transport).
#
# Builds the package (unless CONFORMANCE_SKIP_BUILD=1 and dist/ exists), compiles conformance/ against it, then
# runs ../shared/conformance/run-conformance.sh --client-cmd for the frozen client requirement set of each era,
# with conformance/expected-failures-client-<era>.yml. The harness starts one scenario server per scenario and
# runs `node .conformance-out/client.js <server URL>` against it. Exits non-zero if any run failed. See
# conformance/README.md.
#
# Environment:
#   CONFORMANCE_WRAPPER     the wrapper script (default: ../shared/conformance/run-conformance.sh)
#   CONFORMANCE_OUT         results folder (default: conformance-results/client-<UTC timestamp>)
#   CONFORMANCE_ERAS        requirement sets to run (default: "2025-11-25 2026-07-28")
#   CONFORMANCE_SKIP_BUILD  1: reuse dist/ when it exists (CI runs this right after `npm test` built it)
#   CONFORMANCE_SKILLS      0: skip the SEP-2640 Skills client scenarios (run by default)
set -uo pipefail
cd "$(dirname "$0")/.."

WRAPPER="${CONFORMANCE_WRAPPER:-../shared/conformance/run-conformance.sh}"
OUT="${CONFORMANCE_OUT:-conformance-results/client-$(date -u +%Y%m%dT%H%M%SZ)}"
ERAS="${CONFORMANCE_ERAS-2025-11-25 2026-07-28}"

say() { echo "conformance:client: $*"; }
[ -f "$WRAPPER" ] || { say "wrapper not found at $WRAPPER (shared/ must sit beside the repo)"; exit 2; }

t0=$(date +%s)
if [ "${CONFORMANCE_SKIP_BUILD:-}" = 1 ] && [ -f dist/client/index.js ] && [ -f dist/http/index.js ]; then
  say "reusing dist/"
else
  npm run --silent build || { say "build failed"; exit 1; }
fi
npx tsc -p tsconfig.conformance.json || { say "compiling conformance/ failed"; exit 1; }
[ -f .conformance-out/client.js ] || { say "compiling conformance/ produced no client.js"; exit 1; }

mkdir -p "$OUT"
say "results in $OUT"
status=0
declare -a results=()
for era in $ERAS; do
  "$WRAPPER" --client-cmd "node $(pwd)/.conformance-out/client.js" --revision "$era" \
    --expected-failures "conformance/expected-failures-client-$era.yml" --out "$OUT" | tee "$OUT/requirements-$era.summary"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || status=1
  results+=("requirements-$era: $([ "$rc" = 0 ] && echo PASS || echo "FAIL (exit $rc)")")
done

# The Skills extension (SEP-2640) client scenarios: extension scenarios are not in the frozen requirement sets, so
# each runs on its own (at the harness's default version for extensions, 2025-11-25). CONFORMANCE_SKILLS=0 skips.
SKILLS_SCENARIOS="sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter"
if [ "${CONFORMANCE_SKILLS:-1}" != 0 ]; then
  for scenario in $SKILLS_SCENARIOS; do
    "$WRAPPER" --client-cmd "node $(pwd)/.conformance-out/client.js" --scenario "$scenario" --out "$OUT" \
      | tee "$OUT/$scenario.summary"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || status=1
    results+=("$scenario: $([ "$rc" = 0 ] && echo PASS || echo "FAIL (exit $rc)")")
  done
fi

echo "================ conformance:client ($(($(date +%s) - t0))s, results in $OUT)"
for line in "${results[@]}"; do echo "  $line"; done
[ "$status" = 0 ] && echo "  RESULT: PASS" || echo "  RESULT: FAIL"
exit "$status"
