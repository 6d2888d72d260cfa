#!/usr/bin/env bash
# make demo: Coffer's main job end to end, on temporary vaults that are deleted afterwards:
# the encrypted keychain, then a persistent login against the embedded dev backend.
# Only `coffer` is built before the first part: the login tools (coffer-auth, coffer-dev-backend,
# most of a fresh machine's build time: SwiftNIO, AsyncHTTPClient, Hummingbird) are built after it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh build
echo "Building coffer..."
swift build --product CofferCommands 2>&1 | tail -n 1
swift build --product coffer 2>&1 | tail -n 1
coffer="$(swift build --show-bin-path)/coffer"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export COFFER_VAULT="$work/demo.vault"
unset COFFER_PASSPHRASE COFFER_KEYFILE
# The passphrase reaches coffer on file descriptor 3: never on a command line, never in the environment.
printf 'correct horse battery staple' >"$work/passphrase"
printf 'not my passphrase' >"$work/wrong-passphrase"
chmod 600 "$work/passphrase" "$work/wrong-passphrase"
vault() { "$coffer" --passphrase-fd 3 "$@" 3<"$work/passphrase"; }

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$1" "$plain"; }

step "1. Create a vault (Argon2id MODERATE passphrase slot)"
vault init
ls -l "$COFFER_VAULT" | awk '{print $1, $NF}'

step "2. Store a username, a password and a token (each secret on stdin, never in argv)"
token="eyJhbGciOiJIUzI1NiJ9.demo-session-token.$(date +%s)"
printf 'alice@example.com' | vault set --label "Example login" example.com username
printf 'Tr0ub4dor&3-demo' | vault set example.com password
printf '%s' "$token" | vault set --expires-in 21600 example.com token
vault list

step "3. Read them back, each from a new process"
for account in username password token; do
    printf '%-9s %s\n' "$account" "$(vault get example.com "$account")"
done

step "4. The vault file holds no plaintext"
for needle in example.com alice@example.com Tr0ub4dor "$token" "Example login"; do
    if cat "$COFFER_VAULT"* | grep -q -a -F -- "$needle"; then
        echo "FOUND $needle in the vault file" >&2
        exit 1
    fi
    printf 'not in the file: %s\n' "$needle"
done
echo "first bytes of the file (SQLite header; names and secrets are in the ciphertext):"
head -c 64 "$COFFER_VAULT" | od -A d -t x1z | head -n 4

step "5. A wrong passphrase is refused"
set +e
"$coffer" --passphrase-fd 3 get example.com password 3<"$work/wrong-passphrase"
status=$?
set -e
echo "exit status $status (2 = wrong passphrase or locked)"
[ "$status" -eq 2 ]

printf '\nThe vault walkthrough is done; its temporary vault is deleted.\n'

# Part two: stay logged in across restarts, against the embedded dev backend. `coffer login` and
# `coffer dev-backend` run the two executables beside coffer.
printf '\nBuilding coffer-auth and coffer-dev-backend for part two (a few minutes on a fresh machine)...\n'
for product in coffer-auth coffer-dev-backend; do swift build --product "$product" 2>&1 | tail -n 1; done
COFFER_BIN="$coffer" scripts/demo-auth.sh
