"""The secret-service section. (needs dbus-daemon and Debian's python3-jeepney) `coffer agent start
--secret-service` on a private bus, driven by jeepney clients
(scripts/torture/secret_service_client.py): the agent is killed (SIGKILL) while 4 clients make
CreateItem calls, restarted and unlocked: every call that got a reply is there with its value,
through D-Bus and through `coffer get`. Then 8 clients x M random CreateItem/GetSecret/Delete calls
at once, beside `coffer set` writes to the same vault through the agent and straight to the file: no
read sees other than the last write, and everything acknowledged is there.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from torture.private_bus import PrivateBus


SS_PYTHON = "/usr/bin/python3"
SS_CLIENT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "secret_service_client.py")


def secret_service(c, sec, P, deadline):
    if shutil.which("dbus-daemon") is None or subprocess.run([SS_PYTHON, "-c", "import jeepney"], capture_output=True).returncode:
        sec.skipped = "needs dbus-daemon and Debian's python3-jeepney (scripts/bootstrap.sh test installs them)"
        return
    folder = c.mkdir("secret-service")
    bus = PrivateBus(folder)
    rng = c.rng("secret-service")
    vault, key, _ = c.new_vault(sec, rng, folder)
    env = c.env(vault, key, DBUS_SESSION_BUS_ADDRESS=bus.address, COFFER_AGENT_SOCKET=os.path.join(folder, "agent.sock"))
    # This section checks that nothing is lost across the front doors, not who may read: under a
    # new vault's `confirm` policy, `coffer get` of an item a D-Bus client created would need the
    # person (exit 13), so every program reads every item here (docs/access.md).
    if c.run(["access", "policy", "open"], env=env).status != 0:
        sec.fail("unexpected", "coffer access policy open failed")
        return
    agent = [None]

    def start_agent():
        agent[0] = subprocess.Popen([c.args.coffer, "agent", "start", "--foreground", "--secret-service"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        for _ in range(500):
            if bus.owned("org.freedesktop.secrets") and c.run(["unlock", "--for", "1h"], env=env).status == 0:
                return True
            if agent[0].poll() is not None:
                break
            time.sleep(0.02)
        sec.fail("unexpected", f"the agent did not start serving: {agent[0].stderr.read().decode(errors='replace')[-300:]}")
        return False

    def kill_agent():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(agent[0].pid, signal.SIGKILL)
        agent[0].wait()

    def client(*args):
        return subprocess.Popen([SS_PYTHON, SS_CLIENT, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)

    def dump(prefix):
        out = subprocess.run([SS_PYTHON, SS_CLIENT, "dump", prefix], env=env, capture_output=True, timeout=120)
        if out.returncode != 0:
            sec.fail("lost", f"dump after restart failed: {out.stderr.decode(errors='replace')[-300:]}")
            return None
        return json.loads(out.stdout)

    try:
        if not start_agent():
            return
        # Part 1: SIGKILL during CreateItem calls from 4 clients.
        trial = 0
        while trial < P["ss_kill_trials"] and time.monotonic() < deadline:
            trial += 1
            clients = [client("create", f"t{trial}c{k}", str(P["ss_creates"] // 4)) for k in range(4)]
            time.sleep(rng.uniform(0.3, P["ss_kill_window"]))
            kill_agent()
            acknowledged = {}
            for k, proc in enumerate(clients):
                try:
                    out, err = proc.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    out, err = proc.communicate()
                    sec.fail("hangs", "a client waited past 60 s for a killed agent")
                sec.statuses[f"client:{proc.returncode}"] += 1
                acknowledged[f"t{trial}c{k}"] = [int(line.split()[1]) for line in out.decode().splitlines() if line.startswith("ok ")]
            sec.fact("CreateItem calls acknowledged before the kill", sum(len(v) for v in acknowledged.values()))
            if not start_agent():
                return
            found = dump(f"ss-t{trial}c")
            if found is None:
                return
            for name, numbers in acknowledged.items():
                for n in numbers:
                    value = found.get(f"ss-{name}/{n}")
                    if value is None:
                        sec.fail("lost", f"acknowledged CreateItem ss-{name}/{n} is gone after kill -9 and restart")
                    elif value != f"{name}:{n}":
                        sec.fail("wrong", f"ss-{name}/{n} reads {value!r}")
                if numbers:  # the same item through the CLI, which shares the vault
                    n = rng.choice(numbers)
                    c.expect_value(sec, env, str(n), f"{name}:{n}".encode(), "cli get after restart", service=f"ss-{name}")
        sec.fact("kill trials", trial)

        # Part 2: 8 clients x ops at once, with CLI writes to the same vault (through the agent and not).
        stop_cli = threading.Event()
        cli_written = {}

        def cli_writer():
            n = 0
            while not stop_cli.is_set() and time.monotonic() < deadline + 60:
                value = f"cli:{n}".encode()
                args = ["set", "cli-writes", str(n)] if n % 2 else ["--no-agent", "set", "cli-writes", str(n)]
                out = sec.record(c.run(args, env=env, stdin=value), {0}, "cli set beside the clients")
                if out.status == 0:
                    cli_written[str(n)] = value
                n += 1

        writer = threading.Thread(target=cli_writer)
        writer.start()
        mixed = [client("mixed", f"m{k}", str(P["ss_ops"]), f"{c.seed}:{k}") for k in range(8)]
        models = {}
        for k, proc in enumerate(mixed):
            out, err = proc.communicate(timeout=600)
            sec.statuses[f"client:{proc.returncode}"] += 1
            if proc.returncode == 4:
                sec.fail("wrong", out.decode().strip().splitlines()[-1])
            elif proc.returncode != 0:
                sec.fail("unexpected", f"mixed client {k} exited {proc.returncode}: {err.decode(errors='replace')[-300:]}")
            else:
                models[f"mix-m{k}"] = json.loads(out.decode().strip().splitlines()[-1])
        stop_cli.set()
        writer.join()
        sec.fact("operations by the mixed clients", 8 * P["ss_ops"])
        sec.fact("cli writes beside them", len(cli_written))
        found = dump("mix-")
        if found is not None:
            for service, model in models.items():
                have = {key.split("/", 1)[1]: value for key, value in found.items() if key.split("/", 1)[0] == service}
                if have != model:
                    sec.fail("lost", f"{service}: the service holds {len(have)} items, the client's last writes are {len(model)}")
        for account, value in list(cli_written.items())[:: max(1, len(cli_written) // 20)]:
            c.expect_value(sec, env, account, value, "cli write beside the clients", service="cli-writes")
    finally:
        if agent[0] is not None:
            kill_agent()
        bus.stop()
