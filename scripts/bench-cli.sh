#!/usr/bin/env bash
# make bench-cli: `coffer get` against `secret-tool lookup`, side by side on this machine.
# A release build of coffer; gnome-keyring on a private D-Bus (as the tests run it); hyperfine,
# interleaved (rounds that run every command in turn) for at least 30 runs a command; peak
# RSS from GNU time. Prints the table for the README and the ratios against the targets.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${COFFER_BENCH_INNER:-}" ]; then
    scripts/bootstrap.sh test
    swift build -c release --product coffer --static-swift-stdlib --scratch-path .build/static >/dev/null
    COFFER_BENCH_INNER=1 exec dbus-run-session -- scripts/with-secret-service.sh "$0" "$@"
fi

rounds=${BENCH_ROUNDS:-8}     # each round: 5 timed runs of every command, after 1 warm-up
coffer=${COFFER_BENCH_BINARY:-.build/static/release/coffer}
work=$(mktemp -d)
trap '"$coffer" agent stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
chmod 700 "$work"

# A throwaway secret for the benchmark, the same item in all three stores.
export COFFER_AGENT_SOCKET="$work/agent.sock"
export COFFER_PASSPHRASE="bench-cli throwaway passphrase"
printf 'bench-secret' | secret-tool store --label "coffer bench-cli" service bench username ada
"$coffer" --vault "$work/passphrase.vault" init >/dev/null
printf 'bench-secret' | "$coffer" --vault "$work/passphrase.vault" set bench ada
"$coffer" --vault "$work/keyfile.vault" --keyfile "$work/key" init >/dev/null
printf 'bench-secret' | "$coffer" --vault "$work/keyfile.vault" --keyfile "$work/key" set bench ada
"$coffer" agent start >/dev/null
"$coffer" --vault "$work/passphrase.vault" unlock --for 1h >/dev/null

names=("secret-tool lookup" "coffer get, agent" "coffer get, key file" "coffer get, passphrase (no agent)")
commands=(
    "secret-tool lookup service bench username ada"
    "$coffer --vault $work/passphrase.vault get bench ada"
    "$coffer --no-agent --vault $work/keyfile.vault --keyfile $work/key get bench ada"
    "$coffer --no-agent --vault $work/passphrase.vault get bench ada"
)
for command in "${commands[@]}"; do
    [ "$($command)" = bench-secret ] || { echo "bench-cli: '$command' did not read the secret" >&2; exit 1; }
done

for round in $(seq 1 "$rounds"); do
    hyperfine -N --style none --warmup 1 --runs 5 --export-json "$work/round-$round.json" "${commands[@]}" >/dev/null
done
for index in "${!commands[@]}"; do
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f %M -a -o "$work/rss-$index" ${commands[$index]} >/dev/null
    done
done

python3 - "$work" "$rounds" "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = [[] for _ in names]
for round in range(1, rounds + 1):
    for index, result in enumerate(json.load(open(f"{work}/round-{round}.json"))["results"]):
        times[index] += [t * 1000 for t in result["times"]]
rss = [max(int(line) for line in open(f"{work}/rss-{index}")) / 1024 for index in range(len(names))]
mean = [statistics.mean(t) for t in times]
print(f"{len(times[0])} runs a command, interleaved in {rounds} rounds\n")
print("| command | mean ± σ | median | peak RSS | × secret-tool |")
print("|---|---|---|---|---|")
for index, name in enumerate(names):
    t = times[index]
    print(f"| `{name}` | {mean[index]:.1f} ± {statistics.stdev(t):.1f} ms | {statistics.median(t):.1f} ms "
          f"| {rss[index]:.1f} MiB | {mean[index] / mean[0]:.2f}× |")
print()
for label, value, limit in [("coffer get through the agent", mean[1] / mean[0], "1.0×"),
                            ("coffer get with a key file", mean[2] / mean[0], "1.3×")]:
    target = float(limit[:-1])
    print(f"{label}: {value:.2f}× secret-tool (target ≤ {limit}): {'met' if value <= target else 'MISSED'}")
print(f"peak RSS of coffer get through the agent: {rss[1]:.1f} MiB (target ≤ 25 MiB): {'met' if rss[1] <= 25 else 'MISSED'}")
PY
