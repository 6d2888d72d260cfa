#!/usr/bin/env bash
# `make sanitize`: the whole suite under ThreadSanitizer, then under AddressSanitizer, each in
# its own build folder (.build-tsan, .build-asan), run as scripts/test.sh runs it. Every process
# the tests start (coffer, coffer-test-helper) is built with the same sanitizer and reports to
# the same folder; any report fails the run.
#   scripts/sanitize.sh [thread|address]...    default: thread address
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/leftovers.sh

scripts/bootstrap.sh test
# The OpenID tests' independent server, as scripts/test.sh installs it.
COFFER_OIDC_SITE=$(scripts/oidc-deps.sh)
export COFFER_OIDC_SITE
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(thread address)

export COFFER_STRICT_TESTS=1
# Sanitized processes start and run several times slower: tests stretch their time bounds.
export COFFER_TEST_TIME_SCALE=5
# The Swift runtime's backtracer would catch a crash before the sanitizer reports it.
export SWIFT_BACKTRACE=enable=no
failed=0
for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
        thread) scratch=$PWD/.build-tsan ;;
        address) scratch=$PWD/.build-asan ;;
        *) echo "sanitize: unknown sanitizer $sanitizer (thread or address)" >&2; exit 64 ;;
    esac
    export COFFER_SANITIZER=$sanitizer
    reports=$scratch/reports
    mkdir -p "$scratch" && rm -rf "$reports" && mkdir -p "$reports"
    started=$(date +%s)
    echo "sanitize: building the tests with --sanitize=$sanitizer (log in $scratch/build.log)" >&2
    # --export-dynamic: the sanitizer's runtime is linked into each executable, and the thin
    # coffer's dlopen of libCofferCommands.so (instrumented too) needs the runtime's symbols
    # exported from the executable (__tsan_external_write was not: "undefined symbol").
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" -Xlinker --export-dynamic > "$scratch/build.log" 2>&1 \
        || { tail -n 40 "$scratch/build.log" >&2; exit 1; }
    built=$(date +%s)

    # Reports go to files named by process, so those of child processes are seen too.
    export TSAN_OPTIONS="log_path=$reports/tsan suppressions=$PWD/scripts/tsan-suppressions.txt halt_on_error=0"
    # Leak checking is off: LeakSanitizer cannot follow a Swift weak reference's side table (its
    # address sits shifted, with flag bits, in the object's refcount word), so the long-lived
    # XCTest process reports the object graphs behind XCTest's side tables as leaked. With it on,
    # the only other leak was Foundation's (readBytesFromFile drops a 4 KiB buffer reading a
    # zero-size file), and no coffer or helper process reported any (docs/security.md).
    export ASAN_OPTIONS="log_path=$reports/asan detect_leaks=0"
    status=0
    "$scratch/debug/coffer-fuzz" --all Fuzz/Corpus || status=$?
    # As make test runs the suite (scripts/run-tests.py), in fewer workers: a sanitized process
    # keeps a core busy for longer.
    python3 scripts/run-tests.py --bin "$scratch/debug" --workers 3 > "$scratch/test.log" 2>&1 || status=$?
    finished=$(date +%s)
    grep -E "^run-tests: executed" "$scratch/test.log" || true
    count=$(find "$reports" -type f | wc -l)
    echo "sanitize: $sanitizer: build $((built - started))s, tests $((finished - built))s, status $status, $count report file(s) in $reports" >&2
    if [ "$status" -ne 0 ] || [ "$count" -gt 0 ]; then
        failed=1
        grep -E "error:|failed" "$scratch/test.log" | head -n 20 >&2 || true
        find "$reports" -type f -exec head -n 40 {} + >&2
    fi
done
exit $failed
