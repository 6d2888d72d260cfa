#!/usr/bin/env bash
# The whole test suite, as CI runs it: install what is missing, build with no warnings in
# Coffer's own code, then run every test against a real Secret Service on a private D-Bus.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh test

mkdir -p .build
swift build --build-tests 2>&1 | tee .build/test-build.log
if grep -E "^$(pwd)/(Sources|Tests)/.*: warning:" .build/test-build.log; then
    echo "test: the build has warnings in Coffer's code (above); fix them" >&2
    exit 1
fi

# The fuzz targets' committed corpus, replayed through the parsers (docs/security.md, Fuzzing).
"$(swift build --show-bin-path)/coffer-fuzz" --all Fuzz/Corpus

# Tests that could skip for a missing tool fail instead.
export COFFER_STRICT_TESTS=1
dbus-run-session -- scripts/with-secret-service.sh swift test --skip-build "$@"
