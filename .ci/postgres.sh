#!/usr/bin/env bash
# PostgreSQL's server binaries, for the hub's PostgreSQL tests (tests/hub/test_postgres.py).
#
# Usage (from .ci/run):  bash .ci/postgres.sh
# The tests start their own server from these binaries in a temporary directory (as the
# unprivileged user `nobody` when run as root: initdb and postgres refuse to run as root) and
# skip, saying why, when no binaries are found. Never fails CI: as root with apt-get, Debian's
# `postgresql` is installed when /usr/lib/postgresql/*/bin/initdb is missing; otherwise it
# says why it could not and the tests skip.
set -uo pipefail

say() { echo "postgres: $*" >&2; }

if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    say "found $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no PostgreSQL here and no way to install it (needs root and apt-get); its tests skip"
    exit 0
fi
say "installing postgresql"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2; then
    say "apt-get could not install postgresql; its tests skip"
fi
exit 0
