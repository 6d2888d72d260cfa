#!/usr/bin/env bash
# The whole test suite, as CI runs it: install what is missing, build with no warnings in
# Coffer's own code, run every test against a real Secret Service on a private D-Bus, then
# the bounded fault campaign (`make torture` runs the full one).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/leftovers.sh

# No two tracked paths that one case-insensitive file system would take for one (macOS, Windows).
scripts/case-check.sh
scripts/bootstrap.sh test
# The OpenID tests' independent server (django-oauth-toolkit from PyPI, pinned), installed once
# into .build-oidc/pydeps; the tests start it with this folder on PYTHONPATH.
COFFER_OIDC_SITE=$(scripts/oidc-deps.sh)
export COFFER_OIDC_SITE

mkdir -p .build
swift build --build-tests 2>&1 | tee .build/test-build.log
if grep -E "^$(pwd)/(Sources|Tests)/.*: warning:" .build/test-build.log; then
    echo "test: the build has warnings in Coffer's code (above); fix them" >&2
    exit 1
fi

# The manual pages, generated and checked (make man), and every library's DocC documentation
# with no warnings (make docs): both fail on a broken page or link.
scripts/man.sh
scripts/docs.sh

# The fuzz targets' committed corpus, replayed through the parsers (docs/security.md, Fuzzing).
"$(swift build --show-bin-path)/coffer-fuzz" --all Fuzz/Corpus

# Tests that could skip for a missing tool fail instead.
export COFFER_STRICT_TESTS=1
dbus-run-session -- scripts/with-secret-service.sh swift test --skip-build "$@"

# The bounded fault campaign (under 5 minutes): kill -9, concurrency, corrupted copies, disk
# full, read-only media, bad input. Outside the D-Bus session: it needs no Secret Service.
# Skipped when arguments select some tests (scripts/test.sh --filter ...).
if [ $# -eq 0 ]; then
    # Two consumer packages built from scratch against the checkout: the store alone resolves no
    # other package; CofferAuth resolves only what it needs (package traits).
    scripts/consumer-check.sh
    python3 scripts/torture --profile bounded --coffer "$(swift build --show-bin-path)/coffer"
fi
