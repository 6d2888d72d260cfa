# Sourced by the scripts that run tests (test.sh, sanitize.sh, torture.sh, bench-cli.sh): on exit,
# the run fails if it left in the temporary folder it ran with a new coffer-test-* folder (a test
# vault, key file or socket) or a file named after one (such as the lock SwiftPM keeps beside a
# scratch folder). Tests remove their folders when they end (Tests/CofferTestSupport/TemporaryFolder.swift).
leftovers_tmp=${TMPDIR:-/tmp}
leftovers_before=$(find "$leftovers_tmp" -maxdepth 1 -name '*coffer-test-*' 2>/dev/null | sort)

leftovers_check() {
    local status=$? after new
    after=$(find "$leftovers_tmp" -maxdepth 1 -name '*coffer-test-*' 2>/dev/null | sort)
    new=$(comm -13 <(printf '%s\n' "$leftovers_before") <(printf '%s\n' "$after") | sed '/^$/d')
    if [ -n "$new" ]; then
        echo "leftovers: the run left $(printf '%s\n' "$new" | wc -l) *coffer-test-* entries in $leftovers_tmp:" >&2
        printf '%s\n' "$new" | head -20 >&2
        exit 1
    fi
    exit "$status"
}
trap leftovers_check EXIT
