#!/usr/bin/env bash
# Persistent login against the embedded dev backend, in a temporary vault:
#   1. log in   2. exit   3. a new process is authorized with no password
#   4. the token expires (coffer status still exits 0)   5. the next request renews it with the
#   refresh token in the vault   6. log out
# Every step is checked, so the script fails if the behaviour does.
#   scripts/demo-auth.sh          (builds coffer, coffer-auth and coffer-dev-backend unless $COFFER_BIN names a built coffer)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${COFFER_BIN:-}" ]; then
    scripts/bootstrap.sh build
    # `coffer login` and `coffer dev-backend` run the two executables beside coffer.
    for product in coffer CofferCommands coffer-auth coffer-dev-backend; do swift build --product "$product" >/dev/null; done
    COFFER_BIN="$(swift build --show-bin-path)/coffer"
fi

work=$(mktemp -d)
chmod 700 "$work"
backend_pid=""
# Whether the demo succeeds, fails or is interrupted, the dev backend it started goes too.
# (Background commands of a script ignore SIGINT, so Ctrl-C alone would not reach it.)
# Whether a process is alive and not yet a zombie waiting to be reaped.
running() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}
cleanup() {
    if [ -n "$backend_pid" ]; then
        kill "$backend_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do running "$backend_pid" || break; sleep 0.1; done
        kill -KILL "$backend_pid" 2>/dev/null || true
        wait "$backend_pid" 2>/dev/null || true
    fi
    backend_pid=""
    rm -rf "$work"
}
trap cleanup EXIT
trap 'cleanup; trap - INT; kill -INT $$' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

export COFFER_VAULT="$work/demo.vault" COFFER_KEYFILE="$work/demo.key"
unset COFFER_PASSPHRASE
coffer() { "$COFFER_BIN" "$@"; }
if [ -t 1 ]; then say() { printf '\n\033[1m%s\033[0m\n' "$*"; }; else say() { printf '\n== %s\n' "$*"; }; fi
show() { printf '$ %s\n' "$*"; }
fail() { echo "demo-auth: $*" >&2; exit 1; }
token_requests() { grep -c 'hb.request.path=/oauth2/v1/token' "$work/backend.log" || true; }

lifetime=6
say "The dev backend (tokens last ${lifetime} s) and a new vault opened by a key file"
coffer init >/dev/null
# The binary itself, not the coffer() function: `$!` must be the server's own pid, not a subshell's.
"$COFFER_BIN" dev-backend --token-lifetime "$lifetime" >"$work/backend.out" 2>"$work/backend.log" &
backend_pid=$!
url=""
for _ in $(seq 1 100); do
    url=$(head -n 1 "$work/backend.out" 2>/dev/null || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/backend.log" >&2; fail "the dev backend did not start"; }
echo "backend: $url   vault: $COFFER_VAULT"

say "1. Log in (OAuth password grant; the password comes on stdin, the client secret on fd 3)"
show "printf demo-password | coffer login --backend-url $url --backend-id coffer-dev --user demo --oauth-token-url $url/oauth2/v1/token --client-id coffer-cli --client-secret-fd 3 --revocation-url $url/oauth2/v1/revoke 3< <(printf …)"
printf 'demo-password\n' | coffer login --backend-url "$url" --backend-id coffer-dev --user demo \
    --oauth-token-url "$url/oauth2/v1/token" --client-id coffer-cli --client-secret-fd 3 \
    --revocation-url "$url/oauth2/v1/revoke" 3< <(printf 'coffer-cli-secret')

say "2. That process has exited. 3. A new process is authorized, with no password"
show "coffer status"
coffer status
show "coffer request /protected"
reply=$(coffer request /protected)
echo "$reply"
[[ "$reply" == *'"user":"demo"'* ]] || fail "the new process was not authorized"
echo "(token requests so far: $(token_requests))"

say "4. The token expires; the login still works without the user, so coffer status exits 0"
sleep $((lifetime + 1))
show "coffer status"
status=$(coffer status) || fail "the stored refresh token renews the login: status should exit 0"
echo "$status"
[[ "$status" == *"the next request renews it"* ]] || fail "the token should have expired"

say "5. The next request renews the token with the refresh token stored in the vault (never the password): one token request"
before=$(token_requests)
show "coffer request /protected"
reply=$(coffer request /protected)
echo "$reply"
[[ "$reply" == *'"user":"demo"'* ]] || fail "the request after expiry failed"
[ "$(token_requests)" -eq $((before + 1)) ] || fail "expected exactly one token request"
echo "(token requests so far: $(token_requests))"
show "coffer status"
coffer status

say "6. Log out: the session leaves the vault and the token is revoked"
show "coffer logout"
coffer logout
show "coffer status"
if coffer status; then fail "still authorized after logout"; fi
show "coffer request /protected"
if coffer request /protected; then fail "a request worked after logout"; fi

say "Persistent login: done"
