#!/usr/bin/env bash
# Creates the Python venv the Python peer tests use (test/python-peer/, test/python/): the official Python MCP
# SDK pinned in test/python/requirements.txt, under node_modules/.cache/python-peer (ignored by git). Once: a
# venv whose stamp matches the requirements is left alone. .ci/run calls it; the vitest global setup
# (test/support/python-setup.ts) calls it too when python3 is installed and the venv is missing or stale.
# The interpreter: $MCPKIT_PYTHON, or python3 on PATH (3.10 or newer, with its venv module).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${MCPKIT_PYTHON:-python3}"
venv=node_modules/.cache/python-peer
requirements=test/python/requirements.txt
mkdir -p "$(dirname "$venv")"
# One set-up at a time (vitest runs a global setup per project), where flock(1) exists (util-linux).
if command -v flock >/dev/null; then
  exec 9>"$venv.lock"
  flock 9
fi
if [ -f "$venv/stamp" ] && cmp -s "$venv/stamp" "$requirements"; then
  exit 0
fi
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "the Python peer needs Python 3.10 or newer, found " + sys.version.split()[0])'
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 -r "$requirements"
cp "$requirements" "$venv/stamp"
echo "python peer: $("$venv/bin/python" -m pip show mcp | sed -n 's/^Version: /mcp /p') in $venv"
