#!/usr/bin/env bash
# Installs the Debian programs that the system tests drive (a real browser, Redis, a load balancer, and Python
# with its venv module for the official Python SDK peer) when they are missing. .ci/run calls it before
# `npm test`; on a machine without them `npm test` says so in one line and runs everything else
# (test/support/system-tools.ts, test/support/python-peer.ts).
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v redis-server >/dev/null || need+=(redis-server)
command -v nginx >/dev/null || need+=(nginx-light)
command -v python3 >/dev/null || need+=(python3)
# Debian splits ensurepip, which `python3 -m venv` needs, from python3.
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# Debian may start the services it installs; the tests start their own on free loopback ports.
$sudo service redis-server stop >/dev/null 2>&1 || true
$sudo service nginx stop >/dev/null 2>&1 || true
