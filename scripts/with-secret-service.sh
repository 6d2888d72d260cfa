#!/usr/bin/env bash
# Runs a command with a real Secret Service: gnome-keyring-daemon, unlocked, headless, in a
# temporary HOME. Run it inside a private session bus:
#   dbus-run-session -- scripts/with-secret-service.sh COMMAND...
set -euo pipefail

[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || { echo "with-secret-service: no session bus; run under dbus-run-session" >&2; exit 1; }

keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
mkdir -p -m 700 "$keyring_home/data" "$keyring_home/run"

# The daemon gets the temporary HOME; --unlock reads the login keyring's password from
# stdin and creates the keyring there. It exits when the private bus goes away.
printf 'coffer-test-keyring' | HOME="$keyring_home" XDG_DATA_HOME="$keyring_home/data" XDG_RUNTIME_DIR="$keyring_home/run" \
    gnome-keyring-daemon --unlock --components=secrets >/dev/null
for _ in $(seq 1 50); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
    sleep 0.1
done

# Tests that need the Secret Service fail, rather than skip, when this is set.
export COFFER_REQUIRE_SECRET_SERVICE=1
"$@"
