#!/usr/bin/env bash
# Debian's chromium, for the HTML report's browser tests (tests/report/test_html_browser.py).
#
# Usage (from .ci/run, after `pip install -e '.[dev]'`):  bash .ci/chromium.sh
# Playwright drives the system's /usr/bin/chromium (no browser download is possible here:
# `playwright install` fails). Never fails CI: when chromium cannot be installed it says why
# on stderr, and the browser tests skip with that reason.
#
# - A chromium already at /usr/bin/chromium is used as it is.
# - Otherwise, as root with apt-get: apt-get update; apt-get install -y chromium.
set -uo pipefail

CHROMIUM=/usr/bin/chromium

say() { echo "chromium: $*" >&2; }

if [ -x "$CHROMIUM" ]; then
    say "found $("$CHROMIUM" --version 2>/dev/null | head -n 1)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no $CHROMIUM and no way to install it (needs root and apt-get): the browser tests will skip"
    exit 0
fi
say "installing chromium"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2; then
    say "apt-get could not install chromium: the browser tests will skip"
    exit 0
fi
say "installed $("$CHROMIUM" --version 2>/dev/null | head -n 1)"
