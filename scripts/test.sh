#!/usr/bin/env bash
# The whole test suite, as CI runs it: install what is missing, build with no warnings in
# Coffer's own code, run every test against a real Secret Service on a private D-Bus, then
# the bounded fault campaign (`make torture` runs the full one).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/leftovers.sh

# How long each phase took, printed as it ends and summed up at the end (CI's log shows where
# the minutes go).
phase_started=$SECONDS
phases=""
phase() {
    local took=$((SECONDS - phase_started))
    echo "test: $1: $took s"
    phases+="$1 ${took}s, "
    phase_started=$SECONDS
}

# No two tracked paths that one case-insensitive file system would take for one (macOS, Windows).
scripts/case-check.sh
scripts/bootstrap.sh test
# The OpenID tests' independent server (django-oauth-toolkit from PyPI, pinned), installed once
# into .build-oidc/pydeps; the tests start it with this folder on PYTHONPATH.
COFFER_OIDC_SITE=$(scripts/oidc-deps.sh)
export COFFER_OIDC_SITE
phase "set-up"

mkdir -p .build
swift build --build-tests 2>&1 | tee .build/test-build.log
if grep -E "^$(pwd)/(Sources|Tests)/.*: warning:" .build/test-build.log; then
    echo "test: the build has warnings in Coffer's code (above); fix them" >&2
    exit 1
fi
phase "build"

# The manual pages, generated and checked (make man), and every library's DocC documentation
# with no warnings (make docs): both fail on a broken page or link.
scripts/man.sh --prebuilt
phase "man"
scripts/docs.sh
phase "docs"

# The fuzz targets' committed corpus, replayed through the parsers (docs/security.md, Fuzzing).
"$(swift build --show-bin-path)/coffer-fuzz" --all Fuzz/Corpus
phase "fuzz corpus"

# Two consumer packages made from scratch against the checkout: the store alone resolves no
# other package, and builds; CofferAuth resolves only what it needs (package traits). Skipped,
# as the fault campaign below, when arguments select some tests (scripts/test.sh --filter ...).
# It runs beside the test suite: it uses scratch folders of its own (never the lock of .build),
# and the suite's minutes go mostly to waiting on child processes, D-Bus and loopback servers,
# which leaves the CPU to the consumer's build. Its own session, so that a failed run stops it.
consumer_pid=""
if [ $# -eq 0 ]; then
    setsid scripts/consumer-check.sh >.build/consumer-check.log 2>&1 &
    consumer_pid=$!
fi

# Tests that could skip for a missing tool fail instead.
export COFFER_STRICT_TESTS=1
if ! dbus-run-session -- scripts/with-secret-service.sh swift test --skip-build "$@"; then
    [ -z "$consumer_pid" ] || kill -- -"$consumer_pid" 2>/dev/null || true
    exit 1
fi
phase "swift test (the consumer check beside it)"

# The bounded fault campaign (under 5 minutes): kill -9, concurrency, corrupted copies, disk
# full, read-only media, bad input. Outside the D-Bus session: it needs no Secret Service.
# Skipped when arguments select some tests (scripts/test.sh --filter ...).
if [ $# -eq 0 ]; then
    consumer_status=0
    wait "$consumer_pid" || consumer_status=$?
    cat .build/consumer-check.log
    [ "$consumer_status" -eq 0 ] || { echo "test: the consumer check failed (above)" >&2; exit 1; }
    phase "consumer check, after the tests"
    python3 scripts/torture --profile bounded --coffer "$(swift build --show-bin-path)/coffer"
    phase "torture"
fi
echo "test: passed in $SECONDS s (${phases%, })"
