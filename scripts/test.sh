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

# The fuzz targets' committed corpus, replayed through the parsers (docs/security.md, Fuzzing).
"$(swift build --show-bin-path)/coffer-fuzz" --all Fuzz/Corpus
phase "fuzz corpus"

# Tests that could skip for a missing tool fail instead. The suite runs in four workers, a test
# class at a time in each, every worker on its own private bus with its own gnome-keyring
# (scripts/run-tests.py): its tests mostly wait on child processes, servers and deadlines, and
# four workers keep two cores busy. Nothing else runs beside it: some of its tests wait on
# loopback servers with short deadlines. Arguments select tests: --filter REGEX, --skip REGEX.
export COFFER_STRICT_TESTS=1
python3 scripts/run-tests.py --bin "$(swift build --show-bin-path)" "$@"
phase "tests"

# The last three phases run side by side; with arguments that select some tests
# (scripts/test.sh --filter REGEX), only the documentation and the manual pages, one after the other.
#   - Every library's DocC documentation with no warnings (make docs), then the manual pages
#     generated and checked (make man): either fails on a broken page.
#   - Two consumer packages made from scratch against the checkout: the store alone resolves
#     no other package, and builds; CofferAuth resolves only what it needs (package traits).
#   - The bounded fault campaign (under 5 minutes): kill -9, concurrency, corrupted copies, disk
#     full, read-only media, bad input. Outside the D-Bus session: it needs no Secret Service.
# The campaign needs only the built coffer (the DocC plugin rebuilds nothing of an up-to-date
# build, and the consumers build in scratch folders of their own), spends its time on fsync,
# kill -9 and child processes, and judges commands by their outcome, not their speed: each of
# its sections stops, saying so, when its share of the time is spent.
if [ $# -gt 0 ]; then
    scripts/docs.sh && scripts/man.sh --prebuilt
    phase "docs and man"
else
    coffer="$(swift build --show-bin-path)/coffer"   # before make docs takes the lock of .build
    # Their own sessions, so that a failed campaign stops them.
    setsid bash -c 'scripts/docs.sh && scripts/man.sh --prebuilt' >.build/docs.log 2>&1 &
    docs_pid=$!
    setsid scripts/consumer-check.sh >.build/consumer-check.log 2>&1 &
    consumer_pid=$!
    if ! python3 scripts/torture --profile bounded --coffer "$coffer"; then
        kill -- -"$docs_pid" -"$consumer_pid" 2>/dev/null || true
        exit 1
    fi
    phase "torture (make docs, make man and the consumer check beside it)"
    for job in docs:$docs_pid consumer-check:$consumer_pid; do
        status=0
        wait "${job#*:}" || status=$?
        cat ".build/${job%%:*}.log"
        [ "$status" -eq 0 ] || { echo "test: ${job%%:*} failed (above)" >&2; exit 1; }
    done
    phase "docs, man and consumer check, after the campaign"
fi
echo "test: passed in $SECONDS s (${phases%, })"
