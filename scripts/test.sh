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

# Tests that could skip for a missing tool fail instead.
export COFFER_STRICT_TESTS=1
dbus-run-session -- scripts/with-secret-service.sh swift test --skip-build "$@"
phase "swift test"

# The bounded fault campaign (under 5 minutes): kill -9, concurrency, corrupted copies, disk
# full, read-only media, bad input. Outside the D-Bus session: it needs no Secret Service.
# Skipped when arguments select some tests (scripts/test.sh --filter ...).
if [ $# -eq 0 ]; then
    # Two consumer packages made from scratch against the checkout: the store alone resolves no
    # other package, and builds; CofferAuth resolves only what it needs (package traits).
    scripts/consumer-check.sh
    phase "consumer check"
    python3 scripts/torture --profile bounded --coffer "$(swift build --show-bin-path)/coffer"
    phase "torture"
fi
echo "test: passed in $SECONDS s (${phases%, })"
