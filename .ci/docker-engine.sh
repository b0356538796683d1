#!/usr/bin/env bash
# A Docker engine and the sandbox test image, for the docker backend's engine-bound tests.
#
# Usage (from .ci/run, after `pip install -e .`):  eval "$(bash .ci/docker-engine.sh)"
# On stdout: `export R2R_TEST_DOCKER_IMAGE=<tag>` when an engine answers and the image exists;
# everything else goes to stderr. Never fails CI: when no engine can run here it says why and
# prints nothing to export, and the engine-bound tests skip with that reason.
#
# - An engine that already answers (local socket or DOCKER_HOST) is used as it is.
# - Otherwise, as root: Debian's docker.io is installed when dockerd is missing
#   (apt-get update; apt-get install -y docker.io), and dockerd is started in the background
#   without a bridge or iptables rules (the sandbox's containers have no network), then
#   waited for.
# - The image is built locally from the machine's own Python (tests/sandbox/docker_image.py;
#   no registry), tagged by its contents: a second run finds it and returns in about a second.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python}
LOG=${R2R_DOCKERD_LOG:-/tmp/r2r-dockerd.log}
WAIT_S=60

say() { echo "docker-engine: $*" >&2; }

engine_answers() {
    "$PYTHON" -c 'import docker; docker.from_env(timeout=5).ping()' >/dev/null 2>&1
}

start_engine() {
    if ! command -v dockerd >/dev/null 2>&1; then
        if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
            say "no dockerd here and no way to install it (needs root and apt-get)"
            return 1
        fi
        say "installing docker.io"
        if ! { apt-get update -qq && apt-get install -y -qq docker.io; } >&2; then
            say "apt-get could not install docker.io"
            return 1
        fi
    fi
    if [ "$(id -u)" -ne 0 ]; then
        say "no Docker engine answers this user, and only root can start one here"
        return 1
    fi
    local pid waited=0
    if [ -f /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
        pid=$(cat /var/run/docker.pid)
        say "waiting for the dockerd already running (pid $pid)"
    else
        say "starting dockerd (log: $LOG)"
        setsid dockerd --bridge=none --iptables=false >"$LOG" 2>&1 < /dev/null &
        pid=$!
    fi
    until engine_answers; do
        if ! kill -0 "$pid" 2>/dev/null; then
            say "dockerd exited: $(tail -n 3 "$LOG" | tr '\n' ' ')"
            return 1
        fi
        if [ "$waited" -ge "$WAIT_S" ]; then
            say "dockerd did not answer within ${WAIT_S}s: $(tail -n 3 "$LOG" | tr '\n' ' ')"
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
}

if ! engine_answers && ! start_engine; then
    say "no Docker engine: the docker backend's engine-bound tests will skip"
    exit 0
fi
if ! tag=$("$PYTHON" tests/sandbox/docker_image.py); then
    say "no test image: the docker backend's engine-bound tests will build it or skip"
    exit 0
fi
say "engine up, test image $tag"
echo "export R2R_TEST_DOCKER_IMAGE=$tag"
