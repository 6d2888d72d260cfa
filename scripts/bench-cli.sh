#!/usr/bin/env bash
# make bench-cli: `coffer get` against `secret-tool lookup`, `git credential fill` with
# git-credential-coffer against the same with git's libsecret helper, and `coffer token` (a login
# the agent holds, made at the dev backend's OpenID provider) against `coffer get`, side by side.
# Release builds of coffer and git-credential-coffer; git's libsecret helper built from the source
# git ships (/usr/share/doc/git/contrib/credential/libsecret) into .build-bench-cli/; gnome-keyring
# on a private D-Bus (as the tests run it); hyperfine, interleaved (rounds that run every command in
# turn) for at least 30 runs a command; peak RSS from GNU time. Prints the tables of docs/performance.md
# and the ratios against the targets.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/leftovers.sh

if [ -z "${COFFER_BENCH_INNER:-}" ]; then
    scripts/bootstrap.sh test
    # The Swift runtime is linked dynamically: the thin coffer and git-credential-coffer load
    # libCofferCommands.so for what they do not answer themselves, and a process holds one Swift
    # runtime, which the program and the library share.
    for product in coffer coffer-agent coffer-auth coffer-dev-backend git-credential-coffer CofferCommands; do
        swift build -c release --product "$product" >.build/bench-cli-build.log 2>&1 \
            || { tail -20 .build/bench-cli-build.log >&2; echo "bench-cli: the release build of $product failed (above)" >&2; exit 1; }
    done
    libsecret_source=/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c
    [ -f "$libsecret_source" ] || { echo "bench-cli: git's $libsecret_source is missing (package git)" >&2; exit 1; }
    mkdir -p .build-bench-cli
    cc -O2 -static -o .build-bench-cli/agent-ping scripts/bench/agent-ping.c
    # shellcheck disable=SC2046  # pkg-config's flags are separate words
    cc -O2 -o .build-bench-cli/git-credential-libsecret "$libsecret_source" $(pkg-config --cflags --libs libsecret-1 glib-2.0)
    COFFER_BENCH_INNER=1 exec dbus-run-session -- scripts/with-secret-service.sh "$0" "$@"
fi

rounds=${BENCH_ROUNDS:-8}     # each round: 5 timed runs of every command, after 1 warm-up
coffer=${COFFER_BENCH_BINARY:-.build/release/coffer}
git_coffer=$(realpath "${COFFER_BENCH_GIT_HELPER:-.build/release/git-credential-coffer}")
git_libsecret=$(realpath .build-bench-cli/git-credential-libsecret)
work=$(mktemp -d)
backend=
trap 'status=$?; "$coffer" agent stop >/dev/null 2>&1 || true; [ -z "$backend" ] || kill "$backend"; rm -rf "$work"; (exit $status); leftovers_check' EXIT
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

# An OpenID login the agent holds: `coffer login` at the dev backend's provider (on 127.0.0.1,
# approving at once as its demo user; the authorization URL is followed with curl, as a browser
# would), handed to the agent; its access token lasts an hour, so `coffer token` never refreshes.
"$coffer" dev-backend --oidc-auto-approve demo >"$work/backend.out" 2>"$work/backend.log" &
backend=$!
for _ in $(seq 100); do [ -s "$work/backend.out" ] && break; sleep 0.1; done
issuer="$(head -n 1 "$work/backend.out")/oidc"
"$coffer" --vault "$work/passphrase.vault" login --issuer "$issuer" --client-id coffer-native --browser --no-open 2>"$work/login.err" &
login=$!
for _ in $(seq 100); do grep -q '^http' "$work/login.err" && break; sleep 0.1; done
curl -sS -L -o /dev/null "$(grep -m 1 '^http' "$work/login.err")"
wait "$login" || { cat "$work/login.err" >&2; echo "bench-cli: coffer login at the dev backend failed" >&2; exit 1; }
token=$("$coffer" --vault "$work/passphrase.vault" token)

# The same git login in gnome-keyring (git's libsecret helper) and in the vault (through the
# agent), and `git credential fill` with each helper alone: one script each, so both pay the same
# shell and git start-up; git reads no configuration but its -c options and never prompts.
mkdir -m 700 "$work/home"
login='protocol=https\nhost=git.bench.example\nusername=ada\npassword=bench-secret\n\n'
printf "$login" | "$git_libsecret" store
printf "$login" | "$git_coffer" --vault "$work/passphrase.vault" store
printf 'protocol=https\nhost=git.bench.example\n\n' >"$work/fill-request"
for helper in libsecret coffer; do
    [ "$helper" = libsecret ] && command="$git_libsecret" || command="$git_coffer --vault $work/passphrase.vault"
    cat >"$work/fill-$helper.sh" <<SCRIPT
#!/bin/sh
HOME='$work/home' GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 exec git -c credential.helper= -c credential.helper='$command' credential fill <'$work/fill-request'
SCRIPT
    chmod 700 "$work/fill-$helper.sh"
done

names=("secret-tool lookup" "coffer get, agent" "coffer get, key file" "coffer get, passphrase (no agent)"
       "git credential fill, git-credential-libsecret" "git credential fill, git-credential-coffer (agent)"
       "coffer token, agent" "floor: exec + one agent round trip (agent-ping)")
commands=(
    "secret-tool lookup service bench username ada"
    "$coffer --vault $work/passphrase.vault get bench ada"
    "$coffer --no-agent --vault $work/keyfile.vault --keyfile $work/key get bench ada"
    "$coffer --no-agent --vault $work/passphrase.vault get bench ada"
    "$work/fill-libsecret.sh"
    "$work/fill-coffer.sh"
    "$coffer --vault $work/passphrase.vault token"
    "$(realpath .build-bench-cli/agent-ping) $work/agent.sock"
)
for command in "${commands[@]}"; do
    case "$($command)" in
        bench-secret | *password=bench-secret* | "$token" | pong) ;;
        *) echo "bench-cli: '$command' did not read the secret" >&2; exit 1 ;;
    esac
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$rounds"); do
    hyperfine -N --style none --warmup 1 --runs 5 --export-json "$work/round-$round.json" "${commands[@]}" >/dev/null
done
for index in "${!commands[@]}"; do
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f %M -a -o "$work/rss-$index" ${commands[$index]} >/dev/null
    done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$rounds" "$load_before" "$load_after" "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, load_before, load_after, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
times = [[] for _ in names]
for round in range(1, rounds + 1):
    for index, result in enumerate(json.load(open(f"{work}/round-{round}.json"))["results"]):
        times[index] += [t * 1000 for t in result["times"]]
rss = [max(int(line) for line in open(f"{work}/rss-{index}")) / 1024 for index in range(len(names))]
mean = [statistics.mean(t) for t in times]
print(f"{len(times[0])} runs a command, interleaved in {rounds} rounds; load average (1, 5, 15 min) {load_before} before, {load_after} after\n")
def table(rows, reference, what):
    print(f"| command | mean ± σ | median | peak RSS | × {what} |")
    print("|---|---|---|---|---|")
    for index in rows:
        t = times[index]
        print(f"| `{names[index]}` | {mean[index]:.1f} ± {statistics.stdev(t):.1f} ms | {statistics.median(t):.1f} ms "
              f"| {rss[index]:.1f} MiB | {mean[index] / mean[reference]:.2f}× |")
    print()
table(range(4), 0, "secret-tool")
table(range(4, 6), 4, "libsecret helper")
table([1, 6, 7], 1, "coffer get")
for label, value, peer, limit in [
        ("coffer get through the agent", mean[1] / mean[0], "secret-tool", "0.5×"),
        ("coffer get with a key file", mean[2] / mean[0], "secret-tool", "1.3×"),
        ("git credential fill with git-credential-coffer through the agent", mean[5] / mean[4], "git-credential-libsecret", "0.5×"),
        ("coffer token through the agent", mean[6] / mean[1], "coffer get through the agent", "1.0×")]:
    target = float(limit[:-1])
    print(f"{label}: {value:.2f}× {peer} (target ≤ {limit}): {'met' if value <= target else 'MISSED'}")
print(f"peak RSS of coffer get through the agent: {rss[1]:.1f} MiB (target ≤ 10 MiB): {'met' if rss[1] <= 10 else 'MISSED'}")
print(f"coffer get through the agent above the floor (exec + one round trip): {mean[1] - mean[7]:.1f} ms "
      f"({mean[1]:.1f} against {mean[7]:.1f} ms)")
PY
