"""Runs inside a bubblewrap sandbox, under dbus-run-session: starts
`coffer agent start --secret-service --upstream SOCKET` on the sandbox's own bus, then drives it
with unmodified clients (secret-tool, python-keyring, secretstorage) in phases. Each phase prints
one JSON line of what the clients saw; before the next phase it waits until the test outside
creates the file CONTROL/<next phase> (after it has changed the share). It asserts nothing: the
test does (ShareSecretServiceInBubblewrapTests)."""

import json
import os
import subprocess
import sys
import time

SOCKET, CONTROL = sys.argv[1], sys.argv[2]


def run(arguments, stdin=b""):
    """A command's status, stdout and stderr; status -1 when it took more than 30 s."""
    try:
        done = subprocess.run(arguments, input=stdin, capture_output=True, timeout=30)
        return {"status": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}
    except subprocess.TimeoutExpired:
        return {"status": -1, "stdout": "", "stderr": "timed out"}


def lookup(service, username):
    return run(["secret-tool", "lookup", "service", service, "username", username])


def search(service):
    return run(["secret-tool", "search", "--all", "service", service])


def store(service, username, secret):
    return run(["secret-tool", "store", "--label=" + username, "service", service, "username", username], secret.encode())


def keyring_get(service, username):
    """keyring.get_password through its SecretService backend: the value, or the error's class."""
    import keyring
    import keyring.backends.SecretService
    keyring.set_keyring(keyring.backends.SecretService.Keyring())
    try:
        return {"value": keyring.get_password(service, username)}
    except Exception as error:  # reported, for the test to judge
        return {"error": type(error).__name__}


def keyring_set(service, username, secret):
    import keyring
    import keyring.backends.SecretService
    keyring.set_keyring(keyring.backends.SecretService.Keyring())
    try:
        keyring.set_password(service, username, secret)
        return {"stored": True}
    except Exception as error:
        return {"error": type(error).__name__}


def all_items():
    """Every item of the default collection, as secretstorage lists it: attributes only."""
    import secretstorage
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    return sorted([item.get_attributes() for item in collection.get_all_items()], key=lambda a: sorted(a.items()))


def collections_property():
    return run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.DBus.Properties.Get", "string:org.freedesktop.Secret.Service", "string:Collections"])


def report(phase, **seen):
    print(json.dumps(dict(phase=phase, **seen)), flush=True)


def wait_for(name):
    deadline = time.monotonic() + 120
    while not os.path.exists(os.path.join(CONTROL, name)):
        if time.monotonic() > deadline:
            sys.exit("the test did not go on to " + name)
        time.sleep(0.05)


start = run(["coffer", "agent", "start", "--secret-service", "--upstream", SOCKET])
report("read-only",
       start=start,
       granted=lookup("granted", "alice"),
       other=lookup("other", "bob"),
       granted_search=search("granted"),
       other_search=search("other"),
       items=all_items(),
       keyring_granted=keyring_get("granted", "alice"),
       keyring_other=keyring_get("other", "bob"),
       overwrite=store("granted", "alice", "overwritten"),
       new_item=store("granted", "dave", "new"),
       keyring_write=keyring_set("granted", "erin", "new"),
       clear=run(["secret-tool", "clear", "service", "granted", "username", "alice"]),
       after_writes=lookup("granted", "alice"))

wait_for("read-write")
report("read-write",
       written=store("granted", "carol", "written inside"),
       read_back=lookup("granted", "carol"),
       keyring_write=keyring_set("granted", "frank", "via keyring"),
       outside=store("other", "carol", "x"))

wait_for("unshared")
began = time.monotonic()
gone = lookup("granted", "alice")
while gone["status"] == 0 and time.monotonic() - began < 10:
    time.sleep(0.1)
    gone = lookup("granted", "alice")
report("unshared",
       gone=gone,
       seconds=time.monotonic() - began,
       search=search("granted"),
       keyring=keyring_get("granted", "alice"),
       collections=collections_property(),
       overwrite=store("granted", "alice", "overwritten"))

wait_for("shared-again")
report("shared-again", granted=lookup("granted", "alice"))
