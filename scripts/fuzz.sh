#!/usr/bin/env bash
# `make fuzz`: builds coffer-fuzz with libFuzzer and AddressSanitizer, then fuzzes every target
# (or those named) for FUZZ_SECONDS each, starting from a scratch copy of Fuzz/Corpus/<target>/.
#   scripts/fuzz.sh [TARGET...]
#   FUZZ_SECONDS=600 scripts/fuzz.sh          a longer run (default 60 s a target)
#   FUZZ_RUNS=1000000 scripts/fuzz.sh         each target stops after that many executions too
#   FUZZ_MERGE=1 scripts/fuzz.sh form         afterwards, merges new coverage into Fuzz/Corpus/form/
# Prints executions and crashes per target, and fails on any crash; crash inputs are kept
# under .build-fuzz/runs/<target>/ (replay one with a normal build: coffer-fuzz TARGET FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh build
seconds=${FUZZ_SECONDS:-60}
scratch=.build-fuzz

# SwiftPM links an executable's main under another name, which libFuzzer's own main would
# clash with, so coffer-fuzz keeps its main and calls libFuzzer's driver from the runtime
# without one; -sanitize=fuzzer would link the one with a main, so its coverage is asked for here.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
libfuzzer=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a | head -n 1)
mkdir -p "$scratch"
echo "fuzz: building coffer-fuzz (log in $scratch/build.log)" >&2
if ! swift build -c release --product coffer-fuzz --scratch-path "$scratch" \
    -Xswiftc -DFUZZING -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,pc-table,inline-8bit-counters \
    -Xlinker "$libfuzzer" -Xlinker -lstdc++ > "$scratch/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$scratch/build.log" | tail -n 40 >&2
    echo "fuzz: the build failed" >&2
    exit 1
fi
binary="$scratch/release/coffer-fuzz"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cd Fuzz/Corpus && ls)

# The Swift runtime's backtracer would catch traps before libFuzzer reports them.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
failed=0
summary=$(printf '%-20s %12s %8s %8s %8s' target executions exec/s seconds crashes)
for target in "${targets[@]}"; do
    run="$scratch/runs/$target"
    rm -rf "$run" && mkdir -p "$run/corpus" "$run/crashes"
    cp Fuzz/Corpus/"$target"/* "$run/corpus/"
    echo "fuzz: $target for ${seconds}s" >&2
    status=0
    runs=()
    [ -z "${FUZZ_RUNS:-}" ] || runs=(-runs="$FUZZ_RUNS")
    "$binary" "$target" -max_total_time="$seconds" "${runs[@]}" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="$run/crashes/" "$run/corpus" > "$run/log.txt" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log.txt")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log.txt")
    crashes=$(find "$run/crashes" -type f | wc -l)
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed=1
        echo "fuzz: $target failed (status $status); log $run/log.txt, inputs in $run/crashes/" >&2
        grep -E "ERROR|Fatal error|Precondition failed|deadly signal" "$run/log.txt" | head -n 5 >&2 || true
    fi
    elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$run/log.txt")
    summary+=$'\n'$(printf '%-20s %12s %8s %8s %8s' "$target" "${executions:-?}" "${rate:-?}" "${elapsed:-?}" "$crashes")
    if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$status" -eq 0 ]; then
        "$binary" "$target" -merge=1 Fuzz/Corpus/"$target" "$run/corpus" >> "$run/log.txt" 2>&1
    fi
done
echo "fuzz: $(swift --version 2>/dev/null | head -n 1), $(date -u +%Y-%m-%d)"
echo "$summary"
exit $failed
