#!/usr/bin/env bash
# Debian's chromium, for the hub's browser test (tests/hub/test_browser.py, Playwright driving
# /usr/bin/chromium: Playwright's own browser downloads are not used).
#
# Usage (from .ci/run):  bash .ci/chromium.sh
# Never fails CI: as root with apt-get, `chromium` is installed when missing; otherwise it
# says why it could not and the test skips.
set -uo pipefail

say() { echo "chromium: $*" >&2; }

if [ -x /usr/bin/chromium ]; then
    say "found /usr/bin/chromium"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no chromium here and no way to install it (needs root and apt-get); the test skips"
    exit 0
fi
say "installing chromium"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2; then
    say "apt-get could not install chromium; the test skips"
fi
exit 0
