#!/usr/bin/env bash
# Redis's server, for the hub's test of per-address limits shared by two hub processes
# (tests/hub/test_rate_storage.py, R2R_HUB_RATE_STORAGE=redis://...).
#
# Usage (from .ci/run):  bash .ci/redis.sh
# The test starts its own server from this binary on a free loopback port, without
# persistence, and skips, saying why, when `redis-server` is not found. Never fails CI: as
# root with apt-get, Debian's `redis-server` is installed when missing; otherwise it says why
# it could not and the test skips.
set -uo pipefail

say() { echo "redis: $*" >&2; }

if command -v redis-server >/dev/null 2>&1; then
    say "found $(command -v redis-server)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no redis-server here and no way to install it (needs root and apt-get); its test skips"
    exit 0
fi
say "installing redis-server"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >&2; then
    say "apt-get could not install redis-server; its test skips"
fi
exit 0
