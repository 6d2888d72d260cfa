#!/usr/bin/env python3
"""Coffer's fault campaign: `make torture` (full) and the bounded run inside `make test`.

Runs the `coffer` CLI through kill -9, concurrency, corrupted copies, a full disk, read-only
media and bad descriptors and input, and fails on any lost write, wrong data, crash or hang.

    scripts/torture.py --coffer .build/debug/coffer                  # full campaign, random seed
    scripts/torture.py --coffer PATH --profile bounded               # what `make test` runs
    scripts/torture.py --coffer PATH --seed 1234 --only corruption   # replay one section

The seed is printed first. The same seed makes the same choices (accounts, values, kill delays,
mutations, argument vectors); kill -9 timing still depends on the machine, so a kill trial
replays the same plan, not the same instant. A failing corrupted copy is kept (its path is
printed) so it can be fed to `coffer` by hand.

What each section checks
------------------------
kill-writes   A writer runs `set`/`delete` one process at a time and is killed (SIGKILL) at a
              random moment. Every write that exited 0 must read back exactly; the write in
              flight may have happened or not, nothing else; `list` and `check` must exit 0.
kill-passwd   `passwd` on a passphrase vault (--kdf interactive) killed at random: afterwards the
              old or the new passphrase opens the vault (never neither); on exit 0 only the new.
kill-rotate   `rotate-key` (two key-file slots, many items) killed at random: both key files still
              open the vault, every item reads back, `check` exits 0.
kill-slots    `slots add` (key file or passphrase) killed at random: the old key still opens the
              vault and reads every item; the new credential works if the command exited 0.
kill-init     `init` killed at random: afterwards there is a complete vault or none (`list` says
              66, not "corrupt"), a `*.creating` leftover is never taken for a vault, and the
              next `init` works.
concurrency   N processes x M operations (set/get/delete/list, own and shared items) on one
              vault: no lost write, no wrong read, no "busy" (69) or "no vault" (66); then N
              writers at once with one write in five killed (perhaps holding the write lock):
              the others never see "busy", every acknowledged write survives; then N
              simultaneous `init`s of one path: exactly one succeeds, the others get 73.
corruption    Copies of a vault (one with a WAL holding later commits, one checkpointed) damaged
              by random and targeted byte flips (header fields, b-tree pages, records, row keys,
              key slots, key check), zeroed pages, truncations and WAL damage. On every copy:
              `get` exit 0 must print exactly the item's value (an older value of the same item
              after WAL damage is a rollback, a documented limit, and is counted apart);
              anything else must be a documented status; `list` and `check` never crash or hang;
              a file refused by its header is left byte for byte as it was.
disk-full     (root: small tmpfs) sets until the disk is full and beyond: failures are 69,
              everything acknowledged reads back, `check` is clean; `rotate-key`, `slots add`,
              `delete` and `init` on the full disk fail cleanly; after space is freed writes work.
read-only     (root: read-only bind mount; otherwise a read-only folder) reads work or fail
              cleanly, every write fails with a documented status, the vault is unchanged.
bad-input     Closed, misdirected and oversized descriptors (--passphrase-fd, stdin, stdout,
              stderr, /dev/full, a broken pipe), invalid UTF-8 in argv and environment, absurd
              numbers, FIFOs, directories, devices and symlinks as vault or key file, secrets at
              and over the size limit, then a few hundred random argument vectors: every run ends
              with a documented status within the timeout, never a crash.

Classification: "crash" is death by any signal we did not send (SIGPIPE only where a broken
pipe is the point); "hang" is a command that outlived its timeout (then killed); "lost" is an
acknowledged write (exit 0) read back absent or different, or a vault that no longer opens;
"wrong data" is an exit 0 printing bytes other than the ones the campaign knows must be there;
"unexpected" is an undocumented exit status, or a documented one the contract rules out in that
place (a 69 "busy" under concurrency, exit 0 writing to read-only media). All five fail the run.
"""

import argparse
import collections
import concurrent.futures
import contextlib
import hashlib
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

# Exit statuses `coffer --help` documents for the vault commands.
DOCUMENTED = {0, 1, 2, 3, 64, 65, 66, 69, 70, 73, 74, 75, 77}
MAX_SECRET = 1 << 20  # Limits.maxSecretBytes
SQLITE_PAGE_HEADER = 100


# ---------------------------------------------------------------------------------------------
# Processes


class Outcome:
    """One finished command: its exit status or signal, output, and whether it hung."""

    __slots__ = ("argv", "status", "signal", "hung", "killed", "out", "err", "seconds")

    def __init__(self, argv, status, sig, hung, killed, out, err, seconds):
        self.argv, self.status, self.signal, self.hung, self.killed = argv, status, sig, hung, killed
        self.out, self.err, self.seconds = out or b"", err or b"", seconds

    @property
    def label(self):
        if self.hung:
            return "hang"
        if self.killed:
            return "killed"
        if self.signal is not None:
            return signal.Signals(self.signal).name
        return str(self.status)

    def describe(self):
        err = self.err.decode("utf-8", "replace").strip().splitlines()
        return f"{self.label} ({err[-1][:160] if err else 'no stderr'})"


class Runner:
    """Starts every command in its own process group and kills what is left on exit."""

    def __init__(self, coffer, base_env, timeout):
        self.coffer = coffer
        self.base_env = base_env
        self.timeout = timeout
        self.live = set()
        self.lock = threading.Lock()
        self.stopping = False

    def env(self, **extra):
        env = dict(self.base_env)
        for key, value in extra.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def run(self, args, env=None, stdin=b"", kill_after=None, timeout=None, pass_fds=(),
            stdout=subprocess.PIPE, shell_redirect=None):
        """Runs `coffer args`. kill_after: SIGKILL the process group after that many seconds.

        shell_redirect: a /bin/sh redirection applied with `exec` (e.g. ">&-"), so the command
        keeps the shell's pid and its own exit status or signal.
        """
        if self.stopping:
            raise KeyboardInterrupt("the campaign is stopping")
        argv = [self.coffer] + list(args)
        if shell_redirect is not None:
            argv = ["/bin/sh", "-c", 'exec "$@" ' + shell_redirect, "sh"] + argv
        timeout = timeout or self.timeout
        stdin_arg = subprocess.PIPE if isinstance(stdin, (bytes, bytearray)) else stdin
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdin=stdin_arg, stdout=stdout, stderr=subprocess.PIPE,
                                env=env if env is not None else self.base_env, pass_fds=pass_fds,
                                start_new_session=True, close_fds=True)
        with self.lock:
            self.live.add(proc)
        hung = killed = False
        data = stdin if stdin_arg is subprocess.PIPE else None
        try:
            limit = timeout if kill_after is None else min(kill_after, timeout)
            try:
                out, err = proc.communicate(data, timeout=limit)
            except subprocess.TimeoutExpired:
                if kill_after is not None and kill_after < timeout:
                    killed = True
                else:
                    hung = True
                self._kill(proc)
                out, err = proc.communicate()
        finally:
            with self.lock:
                self.live.discard(proc)
        if self.stopping:  # killed by kill_all(): not an outcome to count
            raise KeyboardInterrupt("the campaign is stopping")
        code = proc.returncode
        sig = -code if code < 0 else None
        if killed and sig != signal.SIGKILL:
            killed = False  # it finished on its own just before the kill landed
        return Outcome(argv, None if sig else code, sig, hung, killed, out, err, time.monotonic() - started)

    @staticmethod
    def _kill(proc):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def kill_all(self):
        """Kills every running command; no new one starts after this."""
        with self.lock:
            self.stopping = True
            for proc in list(self.live):
                self._kill(proc)


# ---------------------------------------------------------------------------------------------
# Results


class Section:
    """Counts for one scenario: status histogram, failures by kind, facts worth printing."""

    FAILURES = ("lost", "wrong", "crashes", "hangs", "unexpected")

    verbose = False

    def __init__(self, name):
        self.name = name
        self.statuses = collections.Counter()
        self.failures = collections.Counter()
        self.facts = collections.Counter()
        self.examples = []
        self.details = []
        self.skipped = None
        self.stopped_early = None
        self.seconds = 0.0
        self.lock = threading.Lock()

    def fact(self, name, count=1):
        with self.lock:
            self.facts[name] += count

    def fail(self, kind, text):
        with self.lock:
            self.failures[kind] += 1
            if len(self.examples) < 25:
                self.examples.append(f"{kind}: {text}")

    def record(self, outcome, expect=None, what="", sigpipe_ok=False):
        """Counts an outcome; a crash, hang, undocumented or unexpected status is a failure."""
        with self.lock:
            self.statuses[outcome.label] += 1
        where = f"{what}: `{shown(outcome.argv)}` -> {outcome.describe()}"
        if Section.verbose:
            print(f"   [{self.name}] {where}", flush=True)
        if outcome.hung:
            self.fail("hangs", where)
        elif outcome.killed:
            pass
        elif outcome.signal is not None:
            if not (sigpipe_ok and outcome.signal == signal.SIGPIPE):
                self.fail("crashes", where)
        elif outcome.status not in DOCUMENTED:
            self.fail("unexpected", "undocumented status, " + where)
        elif expect is not None and outcome.status not in expect:
            self.fail("unexpected", f"expected {sorted(expect)}, " + where)
        return outcome

    @property
    def failed(self):
        return any(self.failures[k] for k in self.FAILURES)


def shown(argv):
    parts = []
    for arg in argv[-8:]:
        text = arg.decode("utf-8", "backslashreplace") if isinstance(arg, bytes) else str(arg)
        parts.append(text if len(text) < 60 else text[:57] + "...")
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# The campaign: shared helpers


class Campaign:
    def __init__(self, args, root):
        self.args = args
        self.seed = args.seed
        self.root = root
        self.counter = 0
        self.lock = threading.Lock()
        base_env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.mkdir("home"),
            "XDG_DATA_HOME": self.mkdir("xdg"),
            "LANG": "C.UTF-8",
        }
        self.runner = Runner(args.coffer, base_env, args.timeout)
        self.mounts = []
        self.failure_dir = None

    def rng(self, name):
        return random.Random(f"{self.seed}:{name}")

    def mkdir(self, name):
        with self.lock:
            self.counter += 1
            path = os.path.join(self.root, f"{self.counter:05d}-{name}")
        os.mkdir(path, 0o700)
        return path

    def keyfile(self, folder, rng, name="key"):
        path = os.path.join(folder, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(rng.randbytes(32))
        return path

    def env(self, vault=None, keyfile=None, **extra):
        return self.runner.env(COFFER_VAULT=vault, COFFER_KEYFILE=keyfile, **extra)

    def run(self, *args, **kwargs):
        return self.runner.run(*args, **kwargs)

    def new_vault(self, sec, rng, folder=None, items=0, value_size=(1, 200)):
        """A key-file vault with `items` items; returns (vault path, key path, {account: value})."""
        folder = folder or self.mkdir("vault")
        key = self.keyfile(folder, rng)
        vault = os.path.join(folder, "v.vault")
        env = self.env(vault, key)
        sec.record(self.run(["init"], env=env), {0}, "init")
        values = {}
        for i in range(items):
            account = f"item-{i}"
            values[account] = secret(rng, *value_size)
            sec.record(self.run(["set", "svc", account], env=env, stdin=values[account]), {0}, "set")
        return vault, key, values

    def expect_value(self, sec, env, account, value, what, service="svc"):
        """`get` must print `value` (or exit 1 when value is None). Returns the outcome."""
        out = self.run(["get", service, account], env=env)
        sec.record(out, {0, 1}, what)
        if out.status == 0 and value is None:
            sec.fail("wrong", f"{what}: {account} was deleted, yet get printed {len(out.out)} bytes")
        elif out.status == 0 and out.out != value:
            sec.fail("wrong", f"{what}: {account} read back {len(out.out)} bytes, not the {len(value)} written")
        elif out.status == 1 and value is not None:
            sec.fail("lost", f"{what}: acknowledged {account} is gone")
        return out

    def expect_opens(self, sec, env, what):
        """`list` and `check` must exit 0; a vault that does not open counts as lost."""
        ok = True
        for command in (["list"], ["check"]):
            out = self.run(command, env=env)
            sec.record(out, None, what)
            if out.status != 0 and not out.hung and out.signal is None:
                sec.fail("lost", f"{what}: `coffer {command[0]}` -> {out.describe()}: the vault does not open cleanly")
                ok = False
        return ok

    def keep(self, paths, label):
        """Keeps a failing copy for replay; returns where."""
        with self.lock:
            if self.failure_dir is None:
                self.failure_dir = tempfile.mkdtemp(prefix=f"coffer-torture-failures-{self.seed}-")
            target = os.path.join(self.failure_dir, label)
        os.makedirs(target, mode=0o700, exist_ok=True)
        for path in paths:
            if os.path.exists(path):
                shutil.copy2(path, target)
        return target

    def mount(self, *args):
        """Runs mount(8); returns None or the reason it failed."""
        result = subprocess.run(["mount", *args], capture_output=True, text=True)
        if result.returncode != 0:
            return (result.stderr.strip() or f"mount exited {result.returncode}").splitlines()[-1]
        self.mounts.append(args[-1])
        return None

    def umount(self, target):
        subprocess.run(["umount", target], capture_output=True)
        if target in self.mounts:
            self.mounts.remove(target)

    def cleanup(self):
        self.runner.kill_all()
        for target in reversed(list(self.mounts)):
            subprocess.run(["umount", "-l", target], capture_output=True)
        self.mounts.clear()


def secret(rng, low, high):
    """A secret of low..high bytes: printable, binary or UTF-8, to vary the records."""
    n = rng.randint(low, high)
    kind = rng.random()
    if kind < 0.5:
        return bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789-_") for _ in range(n)) or b"x"
    if kind < 0.8:
        return rng.randbytes(n) or b"\x00"
    return ("ü€" * (n // 5 + 1)).encode()[: max(n, 1)]


def write_pipe(data):
    """A pipe holding `data` (small) with its write end closed; returns the read end."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return r


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def files_of(vault):
    return [vault + s for s in ("", "-wal", "-shm") if os.path.exists(vault + s)]


# ---------------------------------------------------------------------------------------------
# kill -9


def kill_writes(c, sec, P, deadline):
    """Writer killed at random moments; every acknowledged write must survive."""
    rng = c.rng("kill-writes")
    vault, key, _ = c.new_vault(sec, rng)
    env = c.env(vault, key)
    known = {}      # account -> value (None: absent) known for sure
    maybe = {}      # account -> set of values it may hold after a killed write
    accounts = [f"acct-{i}" for i in range(P["kill_accounts"])]
    mean = P["kill_window"]
    for trial in range(P["kill_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['kill_trials']} trials"
            break
        sec.fact("trials")
        kill_at = time.monotonic() + rng.uniform(0, 2 * mean)
        touched = set()
        n = 0
        while True:
            n += 1
            account = rng.choice(accounts)
            touched.add(account)
            delete = rng.random() < 0.12
            value = None if delete else f"t{trial}.{n}:".encode() + secret(rng, 1, 300)
            args = ["delete", "svc", account] if delete else ["set", "svc", account]
            out = c.run(args, env=env, stdin=b"" if delete else value,
                        kill_after=max(0.0, kill_at - time.monotonic()))
            sec.record(out, {0, 1} if delete else {0}, f"trial {trial}")
            before = maybe.pop(account, {known.get(account)})
            if out.killed:
                sec.fact("killed in flight")
                maybe[account] = before | {value}
                break
            if out.status == 0:
                sec.fact("acknowledged deletes" if delete else "acknowledged writes")
                known[account] = value
            elif delete and out.status == 1:
                if None not in before:
                    sec.fail("lost", f"trial {trial}: delete of {account} says absent, but it held a value")
                known[account] = None
            else:
                maybe[account] = before
        # Verify: the vault opens, every account touched reads back as known (or one of the maybes).
        c.expect_opens(sec, env, f"trial {trial}")
        for account in sorted(touched):
            verify_account(c, sec, env, account, known, maybe, f"trial {trial}")
    for account in accounts:  # a final pass over everything
        verify_account(c, sec, env, account, known, maybe, "final pass")


def verify_account(c, sec, env, account, known, maybe, what):
    if account in maybe:
        allowed = maybe.pop(account)
        out = c.run(["get", "svc", account], env=env)
        sec.record(out, {0, 1}, what)
        got = out.out if out.status == 0 else None if out.status == 1 else "error"
        if got == "error":
            sec.fail("lost", f"{what}: {account} unreadable after a kill: {out.describe()}")
        elif got not in allowed:
            kind = "lost" if got is None else "wrong"
            sec.fail(kind, f"{what}: {account} after a killed write holds neither the old nor the new value")
        else:
            known[account] = got
    elif account in known:
        c.expect_value(sec, env, account, known[account], what)


def kill_passwd(c, sec, P, deadline):
    """passwd killed at random: the old or the new passphrase must open the vault."""
    rng = c.rng("kill-passwd")
    folder = c.mkdir("passwd")
    vault = os.path.join(folder, "v.vault")
    current = b"first passphrase"
    env = c.env(vault, COFFER_PASSPHRASE=current.decode())
    sec.record(c.run(["init", "--kdf", "interactive"], env=env), {0}, "init")
    items = {f"item-{i}": secret(rng, 1, 100) for i in range(3)}
    for account, value in items.items():
        sec.record(c.run(["set", "svc", account], env=env, stdin=value), {0}, "set")

    def opens(passphrase, account="item-0"):
        out = c.run(["get", "svc", account], env=c.env(vault, COFFER_PASSPHRASE=passphrase.decode()))
        sec.record(out, {0, 2}, "open after passwd")
        if out.status == 0 and out.out != items[account]:
            sec.fail("wrong", f"{account} read back wrong after passwd")
        return out.status == 0

    duration = None
    for trial in range(P["passwd_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['passwd_trials']} trials"
            break
        sec.fact("trials")
        new = f"passphrase {trial} {rng.getrandbits(40):x}".encode()
        fds = []
        if rng.random() < 0.5:
            fds = [write_pipe(current + b"\n"), write_pipe(new)]
            args = ["passwd", "--passphrase-fd", str(fds[0]), "--new-passphrase-fd", str(fds[1])]
            run_env = c.env(vault)
        else:
            args = ["passwd"]
            run_env = c.env(vault, COFFER_PASSPHRASE=current.decode(), COFFER_NEW_PASSPHRASE=new.decode())
        kill_after = None if duration is None else rng.uniform(0, 1.3 * duration)
        out = c.run(args, env=run_env, pass_fds=fds, kill_after=kill_after)
        for fd in fds:
            os.close(fd)
        sec.record(out, {0}, f"trial {trial}")
        if duration is None and out.status == 0:
            duration = out.seconds
        if out.killed:
            sec.fact("killed")
        old_ok, new_ok = opens(current), opens(new)
        if out.status == 0 and (old_ok or not new_ok):
            sec.fail("unexpected", f"trial {trial}: passwd exited 0 but old opens={old_ok}, new opens={new_ok}")
        if not old_ok and not new_ok:
            sec.fail("lost", f"trial {trial}: neither the old nor the new passphrase opens the vault ({out.label})")
            break
        if old_ok and new_ok:
            sec.fail("unexpected", f"trial {trial}: both the old and the new passphrase open the vault")
        if new_ok and not old_ok:
            sec.fact("changed")
            current = new
        else:
            sec.fact("unchanged")
    env = c.env(vault, COFFER_PASSPHRASE=current.decode())
    for account, value in items.items():
        c.expect_value(sec, env, account, value, "final")
    c.expect_opens(sec, env, "final")


def kill_rotate(c, sec, P, deadline):
    """rotate-key killed at random: both key files open, every item reads back."""
    rng = c.rng("kill-rotate")
    vault, key, items = c.new_vault(sec, rng, items=P["rotate_items"], value_size=(1, 2000))
    folder = os.path.dirname(vault)
    key2 = os.path.join(folder, "key2")
    env = c.env(vault, key)
    sec.record(c.run(["slots", "add", "--add-keyfile", key2], env=env), {0}, "slots add")
    args = ["rotate-key", "--also-keyfile", key2]
    first = c.run(args, env=env)
    sec.record(first, {0}, "unkilled rotation")
    duration = first.seconds
    accounts = sorted(items)
    for trial in range(P["rotate_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['rotate_trials']} trials"
            break
        sec.fact("trials")
        out = c.run(args, env=env, kill_after=rng.uniform(0, 1.3 * duration))
        sec.record(out, {0}, f"trial {trial}")
        sec.fact("killed" if out.killed else "completed")
        if not c.expect_opens(sec, env, f"trial {trial}"):
            break
        listed = c.run(["list"], env=env)
        names = {line.split(b"\t")[2].decode() for line in listed.out.splitlines() if line.count(b"\t") >= 2}
        for account in accounts:
            if account not in names:
                sec.fail("lost", f"trial {trial}: {account} missing from list after rotate-key ({out.label})")
        for account in rng.sample(accounts, min(6, len(accounts))):
            c.expect_value(sec, env, account, items[account], f"trial {trial}")
        other = rng.choice(accounts)
        c.expect_value(sec, c.env(vault, key2), other, items[other], f"trial {trial}, second key file")
    for account in accounts:
        c.expect_value(sec, env, account, items[account], "final")


def kill_slots(c, sec, P, deadline):
    """slots add killed at random: the old key still opens; the new one does if acknowledged."""
    rng = c.rng("kill-slots")
    vault = key = env = items = None
    slots = 64
    duration = {}
    for trial in range(P["slots_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['slots_trials']} trials"
            break
        if slots > 56:  # stay below the 64-slot limit
            vault, key, items = c.new_vault(sec, rng, items=3)
            env = c.env(vault, key)
            slots = 1
        sec.fact("trials")
        folder = os.path.dirname(vault)
        kind = rng.choice(["keyfile", "passphrase"])
        fds = []
        if kind == "keyfile":
            new_key = os.path.join(folder, f"key-{trial}")
            args = ["slots", "add", "--add-keyfile", new_key]
            new_env = c.env(vault, new_key)
        else:
            passphrase = f"slot passphrase {trial}".encode()
            fds = [write_pipe(passphrase)]
            args = ["slots", "add", "--add-passphrase", "--kdf", "interactive", "--new-passphrase-fd", str(fds[0])]
            new_env = c.env(vault, COFFER_PASSPHRASE=passphrase.decode())
        kill_after = rng.uniform(0, 1.3 * duration[kind]) if kind in duration else None
        out = c.run(args, env=env, pass_fds=fds, kill_after=kill_after)
        for fd in fds:
            os.close(fd)
        sec.record(out, {0}, f"trial {trial}")
        if out.status == 0 and kind not in duration:
            duration[kind] = out.seconds
        sec.fact("killed" if out.killed else "completed")
        slots += 1
        for account, value in items.items():
            c.expect_value(sec, env, account, value, f"trial {trial}")
        c.expect_opens(sec, env, f"trial {trial}")
        probe = c.run(["get", "svc", "item-0"], env=new_env)
        # Killed before the slot was committed: the new key file may be missing or empty (64)
        # or not open any slot (2).
        sec.record(probe, {0} if out.status == 0 else {0, 2, 64}, f"trial {trial}, new {kind}")
        if probe.status == 0:
            sec.fact("new slot opens")
            if probe.out != items["item-0"]:
                sec.fail("wrong", f"trial {trial}: the new {kind} slot reads item-0 wrong")


def kill_init(c, sec, P, deadline):
    """init killed at random: a complete vault or none; leftovers are not vaults; init again works."""
    rng = c.rng("kill-init")
    folder = c.mkdir("init")
    key = c.keyfile(folder, rng)
    duration = {}
    for trial in range(P["init_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['init_trials']} trials"
            break
        sec.fact("trials")
        vault = os.path.join(folder, f"v{trial}.vault")
        kind = rng.choice(["keyfile", "passphrase"])
        if kind == "keyfile":
            args, env = ["init"], c.env(vault, key)
        else:
            args, env = ["init", "--kdf", "interactive"], c.env(vault, COFFER_PASSPHRASE="init passphrase")
        kill_after = rng.uniform(0, 1.3 * duration[kind]) if kind in duration else None
        out = c.run(args, env=env, kill_after=kill_after)
        sec.record(out, {0}, f"trial {trial}")
        if out.status == 0 and kind not in duration:
            duration[kind] = out.seconds
        leftovers = [n for n in os.listdir(folder) if n.startswith(f"v{trial}.vault.") and ".creating" in n]
        if leftovers:
            sec.fact("trials leaving *.creating files")
        if os.path.exists(vault):
            sec.fact("vault complete" if out.status == 0 else "killed, vault complete")
            c.expect_opens(sec, env, f"trial {trial} ({out.label})")
        else:
            if out.status == 0:
                sec.fail("lost", f"trial {trial}: init exited 0 but there is no vault")
            sec.fact("killed, no vault")
            probe = c.run(["list"], env=env)
            sec.record(probe, {66}, f"trial {trial}: list with only leftovers")
            again = c.run(args, env=env)
            sec.record(again, {0}, f"trial {trial}: init after a killed init")
            if again.status == 0:
                c.expect_opens(sec, env, f"trial {trial}, second init")


# ---------------------------------------------------------------------------------------------
# Concurrency


def concurrency(c, sec, P, deadline):
    """N processes at once on one vault; then N simultaneous inits of one path."""
    rng = c.rng("concurrency")
    vault, key, stable = c.new_vault(sec, rng, items=8)
    env = c.env(vault, key)
    workers, ops = P["workers"], P["ops"]
    shared_written = set()
    shared_lock = threading.Lock()
    timeout = max(c.args.timeout, 60)  # above the vault's 30 s busy timeout
    seeds = [rng.getrandbits(64) for _ in range(workers)]
    models = [dict() for _ in range(workers)]

    def worker(w):
        wrng = random.Random(seeds[w])
        model = models[w]
        own = [f"w{w}-{i}" for i in range(5)]
        for i in range(ops):
            if time.monotonic() > deadline:
                sec.stopped_early = "budget reached during the operations"
                return
            roll = wrng.random()
            account = wrng.choice(own)
            if roll < 0.35:
                value = f"w{w}.{i}:".encode() + secret(wrng, 1, 200)
                out = c.run(["set", "svc", account], env=env, stdin=value, timeout=timeout)
                sec.record(out, {0}, "set")
                if out.status == 0:
                    model[account] = value
                    sec.fact("acknowledged writes")
            elif roll < 0.55:
                c.expect_value(sec, env, account, model.get(account), "get own")
            elif roll < 0.65:
                out = c.run(["delete", "svc", account], env=env, timeout=timeout)
                expected = 0 if model.get(account) is not None else 1
                sec.record(out, {expected}, "delete own")
                if out.status == 0:
                    model[account] = None
            elif roll < 0.75:
                account = wrng.choice(sorted(stable))
                c.expect_value(sec, env, account, stable[account], "get stable")
            elif roll < 0.85:
                out = c.run(["list"], env=env, timeout=timeout)
                sec.record(out, {0}, "list")
                lines = out.out.count(b"\n")
                if out.status == 0 and lines < len(stable):
                    sec.fail("lost", f"list printed {lines} items, fewer than the {len(stable)} stable ones")
            elif roll < 0.93:
                value = f"shared w{w}.{i}".encode()
                with shared_lock:
                    shared_written.add(value)
                out = c.run(["set", "svc", "shared"], env=env, stdin=value, timeout=timeout)
                sec.record(out, {0}, "set shared")
            else:
                out = c.run(["get", "svc", "shared"], env=env, timeout=timeout)
                sec.record(out, {0, 1}, "get shared")
                with shared_lock:
                    if out.status == 0 and out.out not in shared_written:
                        sec.fail("wrong", "shared item read back a value nobody wrote")
            sec.fact("operations")

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for future in [pool.submit(worker, w) for w in range(workers)]:
            future.result()
    for w, model in enumerate(models):
        for account, value in sorted(model.items()):
            c.expect_value(sec, env, account, value, "final pass")
    for account, value in stable.items():
        c.expect_value(sec, env, account, value, "final pass")
    c.expect_opens(sec, env, "final")

    # N writers at once, some of them killed mid-write (perhaps holding the write lock): the
    # others must not see "busy" or a broken vault, and every acknowledged write survives.
    killed_writers(c, sec, P, deadline, env, seeds, timeout)

    # Simultaneous creation of one vault: one wins, the rest are told it exists.
    folder = c.mkdir("race")
    racekey = c.keyfile(folder, rng)
    for round_ in range(P["init_races"]):
        vault = os.path.join(folder, f"r{round_}.vault")
        renv = c.env(vault, racekey)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            outs = list(pool.map(lambda _: c.run(["init"], env=renv, timeout=timeout), range(workers)))
        for out in outs:
            sec.record(out, {0, 73}, f"init race {round_}")
        winners = sum(out.status == 0 for out in outs)
        sec.fact("init races")
        if winners != 1:
            sec.fail("unexpected", f"init race {round_}: {winners} of {workers} inits exited 0")
        c.expect_opens(sec, renv, f"init race {round_}")
    for status, meaning in ((66, "no vault"), (69, "busy or storage")):
        sec.fact(f"status {status} ({meaning}) seen", sec.statuses.get(str(status), 0))


def killed_writers(c, sec, P, deadline, env, seeds, timeout):
    known = {}
    maybe = {}
    lock = threading.Lock()

    def writer(w):
        wrng = random.Random(seeds[w] ^ 0x5EED)
        own = [f"k{w}-{i}" for i in range(5)]
        for i in range(P["kill_ops"]):
            if time.monotonic() > deadline:
                sec.stopped_early = "budget reached during the killed writers"
                return
            account = wrng.choice(own)
            value = f"k{w}.{i}:".encode() + secret(wrng, 1, 300)
            kill = wrng.random() < 0.2
            out = c.run(["set", "svc", account], env=env, stdin=value, timeout=timeout,
                        kill_after=wrng.uniform(0, 0.08) if kill else None)
            sec.record(out, {0}, "killed writers: set")
            with lock:
                before = maybe.pop(account, {known.get(account)})
                if out.killed:
                    sec.fact("killed writers: killed in flight")
                    maybe[account] = before | {value}
                elif out.status == 0:
                    sec.fact("killed writers: acknowledged writes")
                    known[account] = value
                else:
                    maybe[account] = before

    with concurrent.futures.ThreadPoolExecutor(len(seeds)) as pool:
        for future in [pool.submit(writer, w) for w in range(len(seeds))]:
            future.result()
    c.expect_opens(sec, env, "after the killed writers")
    for account in sorted(set(known) | set(maybe)):
        verify_account(c, sec, env, account, known, maybe, "after the killed writers")


# ---------------------------------------------------------------------------------------------
# Corrupted copies


class Base:
    """A reference vault to damage: its files, every item's current and earlier values, and the
    byte ranges of its records, row keys and key material in the main file and the WAL."""

    def __init__(self, name, folder, key, current, earlier, has_wal):
        self.name, self.folder, self.key = name, folder, key
        self.vault = os.path.join(folder, "v.vault")
        self.current, self.earlier, self.has_wal = current, earlier, has_wal
        with open(self.vault, "rb") as f:
            self.main = f.read()
        self.wal = b""
        if has_wal:
            with open(self.vault + "-wal", "rb") as f:
                self.wal = f.read()
        self.page_size = struct.unpack(">H", self.main[16:18])[0] or 65536
        self.targets = self._targets()

    def _targets(self):
        """Offsets of the interesting blobs, found by reading a throwaway copy with sqlite3."""
        scratch = tempfile.mkdtemp(dir=os.path.dirname(self.folder))
        try:
            for suffix in ("", "-wal"):
                if os.path.exists(self.vault + suffix):
                    shutil.copy2(self.vault + suffix, os.path.join(scratch, "v.vault" + suffix))
            db = sqlite3.connect(os.path.join(scratch, "v.vault"))
            blobs = {
                "record": [r[0] for r in db.execute("SELECT record FROM items")],
                "row_key": [r[0] for r in db.execute("SELECT row_key FROM items")],
                "wrapped_key": [r[0] for r in db.execute("SELECT wrapped_key FROM key_slots")],
                "key_check": [r[0] for r in db.execute("SELECT key_check FROM vault")],
                "vault_id": [r[0] for r in db.execute("SELECT vault_id FROM vault")],
            }
            db.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        targets = collections.defaultdict(list)  # (kind, file) -> [(start, length)]
        for kind, values in blobs.items():
            for blob in values:
                probe = bytes(blob[:48])
                for file_name, data in (("main", self.main), ("wal", self.wal)):
                    at = data.rfind(probe)
                    if at >= 0:
                        targets[(kind, file_name)].append((at, min(len(blob), len(probe))))
        return targets


def build_bases(c, sec, P):
    """Two reference vaults: one whose WAL holds later commits over an older main file (kept
    from being checkpointed by a reader holding a snapshot), one fully checkpointed."""
    rng = c.rng("corruption-base")
    bases = []
    for has_wal in (True, False):
        vault, key, first = c.new_vault(sec, rng, items=P["corrupt_items"], value_size=(1, 3000))
        first["big"] = secret(rng, 20000, 60000)
        env = c.env(vault, key)
        sec.record(c.run(["set", "svc", "big"], env=env, stdin=first["big"]), {0}, "set")
        earlier = {a: {v} for a, v in first.items()}
        holder = None
        if has_wal:
            holder = sqlite3.connect(f"file:{vault}?mode=ro", uri=True, isolation_level=None)
            holder.execute("BEGIN")
            holder.execute("SELECT count(*) FROM items").fetchall()
        current = dict(first)
        accounts = sorted(first)
        for account in accounts[: len(accounts) // 2]:  # updates, deletes and new items
            current[account] = secret(rng, 1, 3000)
            sec.record(c.run(["set", "svc", account], env=env, stdin=current[account]), {0}, "update")
        for account in accounts[len(accounts) // 2: len(accounts) // 2 + 2]:
            sec.record(c.run(["delete", "svc", account], env=env), {0}, "delete")
            current[account] = None
        for i in range(3):
            current[f"new-{i}"] = secret(rng, 1, 500)
            earlier[f"new-{i}"] = set()
            sec.record(c.run(["set", "svc", f"new-{i}"], env=env, stdin=current[f"new-{i}"]), {0}, "set")
        name = "wal" if has_wal else "flat"
        if holder is not None:
            # Copy while the snapshot holds the WAL back, then let go.
            folder = c.mkdir("base-wal")
            for suffix in ("", "-wal"):
                shutil.copy2(vault + suffix, os.path.join(folder, "v.vault" + suffix))
            holder.execute("COMMIT")
            holder.close()
            base = Base(name, folder, key, current, earlier, True)
            if not base.wal:
                sec.fail("unexpected", "could not make a vault with a populated WAL")
        else:
            base = Base(name, os.path.dirname(vault), key, current, earlier, False)
        for account in current:
            c.expect_value(sec, c.env(base.vault, key), account, current[account], f"base {name}")
        bases.append(base)
    return bases


MUTATIONS = [
    # (name, weight, needs WAL)
    ("flip-random-main", 10, False),
    ("flip-random-wal", 8, True),
    ("flip-record", 10, False),
    ("flip-row-key", 5, False),
    ("flip-wrapped-key", 4, False),
    ("flip-key-check", 2, False),
    ("flip-vault-id", 2, False),
    ("flip-header", 6, False),
    ("flip-header-field", 6, False),
    ("flip-page-header", 8, False),
    ("zero-page", 4, False),
    ("truncate-main", 6, False),
    ("truncate-wal", 6, True),
    ("flip-wal-header", 4, True),
    ("flip-wal-frame-header", 5, True),
    ("remove-wal", 2, True),
    ("append-garbage", 2, False),
]

HEADER_FIELDS = [("magic", 0, 16), ("page-size", 16, 2), ("write-version", 18, 1), ("read-version", 19, 1),
                 ("reserved", 20, 1), ("change-counter", 24, 4), ("page-count", 28, 4), ("freelist", 32, 8),
                 ("schema-cookie", 40, 4), ("schema-format", 44, 4), ("text-encoding", 56, 4),
                 ("user-version", 60, 4), ("application-id", 68, 4), ("version-valid-for", 92, 4)]
REFUSED_BY_HEADER = {"magic", "user-version", "application-id"}


def mutate(base, rng):
    """Returns (description, main bytes, wal bytes or None, the header field flipped or None)."""
    choices = [(n, w) for n, w, needs_wal in MUTATIONS if base.has_wal or not needs_wal]
    name = rng.choices([n for n, _ in choices], [w for _, w in choices])[0]
    main, wal = bytearray(base.main), bytearray(base.wal) if base.has_wal else None
    field = None
    detail = ""

    def flip(data, at):
        mask = rng.randrange(1, 256)
        data[at] ^= mask
        return f"{at}^{mask:#04x}"

    def flip_in(kind):
        files = [f for f in ("main", "wal") if base.targets.get((kind, f))]
        if not files:
            return None, "no target"
        which = rng.choice(files)
        start, length = rng.choice(base.targets[(kind, which)])
        data = main if which == "main" else wal
        return which, flip(data, start + rng.randrange(length))

    if name == "flip-random-main":
        detail = ",".join(flip(main, rng.randrange(len(main))) for _ in range(rng.randint(1, 8)))
    elif name == "flip-random-wal":
        detail = ",".join(flip(wal, rng.randrange(len(wal))) for _ in range(rng.randint(1, 8)))
    elif name.startswith("flip-") and name[5:] in ("record", "row-key", "wrapped-key", "key-check", "vault-id"):
        which, detail = flip_in(name[5:].replace("-", "_"))
        detail = f"{which}:{detail}"
    elif name == "flip-header":
        detail = flip(main, rng.randrange(SQLITE_PAGE_HEADER))
    elif name == "flip-header-field":
        field, start, length = rng.choice(HEADER_FIELDS)
        detail = f"{field}:" + flip(main, start + rng.randrange(length))
    elif name == "flip-page-header":
        page = rng.randrange(max(1, len(main) // base.page_size))
        start = page * base.page_size + (SQLITE_PAGE_HEADER if page == 0 else 0)
        detail = f"page {page + 1}:" + ",".join(flip(main, start + rng.randrange(12)) for _ in range(rng.randint(1, 3)))
    elif name == "zero-page":
        page = rng.randrange(max(1, len(main) // base.page_size))
        main[page * base.page_size:(page + 1) * base.page_size] = bytes(base.page_size)
        detail = f"page {page + 1}"
    elif name == "truncate-main":
        how = rng.choice(["random", "page", "zero", "header"])
        size = {"random": rng.randrange(len(main)), "zero": 0, "header": SQLITE_PAGE_HEADER,
                "page": base.page_size * rng.randrange(max(1, len(main) // base.page_size))}[how]
        del main[size:]
        detail = f"{how} to {size}"
    elif name == "truncate-wal":
        frame = 24 + base.page_size
        frames = (len(wal) - 32) // frame
        how = rng.choice(["random", "frame", "header", "zero"])
        size = {"random": rng.randrange(len(wal)), "header": 32, "zero": 0,
                "frame": 32 + frame * rng.randrange(max(1, frames))}[how]
        del wal[size:]
        detail = f"{how} to {size}"
    elif name == "flip-wal-header":
        detail = flip(wal, rng.randrange(32))
    elif name == "flip-wal-frame-header":
        frame = 24 + base.page_size
        frames = max(1, (len(wal) - 32) // frame)
        detail = flip(wal, 32 + frame * rng.randrange(frames) + rng.randrange(24))
    elif name == "remove-wal":
        wal = None
        detail = "-wal removed"
    elif name == "append-garbage":
        extra = rng.randbytes(rng.choice([1, 100, base.page_size, 3 * base.page_size]))
        main += extra
        detail = f"{len(extra)} bytes"
    return f"{base.name}/{name} {detail}", bytes(main), None if wal is None else bytes(wal), field


def corruption(c, sec, P, deadline):
    """Damaged copies: get exit 0 prints the right bytes; anything else is a documented status."""
    bases = build_bases(c, sec, P)
    work = c.mkdir("copies")
    seeds = c.rng("corruption")
    plan = [(i, bases[i % len(bases)], seeds.getrandbits(64)) for i in range(P["copies"])]
    by_kind = collections.defaultdict(collections.Counter)  # mutation -> outcome counts
    stopped = []

    def trial(i, base, seed):
        if time.monotonic() > deadline:
            stopped.append(i)
            return
        rng = random.Random(seed)
        what, main, wal, field = mutate(base, rng)
        kind = what.split()[0]
        folder = os.path.join(work, f"c{i}")
        os.mkdir(folder, 0o700)
        vault = os.path.join(folder, "v.vault")
        try:
            for path, data in ((vault, main), (vault + "-wal", wal)):
                if data is not None:
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as f:
                        f.write(data)
            env = c.env(vault, base.key)
            label = f"copy {i} [{what}]"
            before = sha(vault)
            listed = sec.record(c.run(["list"], env=env), None, label)
            if field in REFUSED_BY_HEADER and listed.status != 0 and sha(vault) != before:
                sec.fail("unexpected", f"{label}: a file refused by its header was modified")
            counts = collections.Counter({"copies": 1})
            bad = listed.signal is not None or listed.hung
            accounts = rng.sample(sorted(base.current), min(P["gets_per_copy"], len(base.current)))
            gets = [sec.record(c.run(["get", "svc", a], env=env), None, label) for a in accounts]
            for account, out in zip(accounts, gets):
                sec.fact(f"get -> {out.label}")
                counts[f"get {out.label}"] += 1
                bad |= out.signal is not None or out.hung
                if out.status != 0:
                    continue
                want = base.current[account]
                if want is not None and out.out == want:
                    continue
                if base.has_wal and out.out in base.earlier.get(account, ()):
                    # Damage can make SQLite disregard the WAL's later commits: the item reads as it
                    # was in the older main file. Undetectable by design (docs/security.md, known limits).
                    sec.fact("get -> 0 with the value before the WAL's commits (rollback, documented limit)")
                    counts["rollback"] += 1
                    continue
                bad = True
                sec.fail("wrong", f"{label}: get {account} exited 0 with {len(out.out)} bytes that "
                         + ("belong to a deleted item" if want is None else "are not its value"))
            checked = sec.record(c.run(["check"], env=env), None, label)
            bad |= checked.signal is not None or checked.hung
            verdict = {0: "clean", 3: "problems"}.get(checked.status, checked.label)
            sec.fact(f"check -> {verdict}")
            counts[f"check {verdict}"] += 1
            if checked.status == 0 and any(o.status == 3 for o in gets):
                sec.fact("check clean although a get failed with 3")
            if checked.status == 0 and any(o.status == 1 and base.current[a] is not None
                                           for a, o in zip(accounts, gets)):
                sec.fact("check clean although a get found an existing item absent (documented limit)")
            if bad:
                kept = c.keep([vault, vault + "-wal", base.key], f"copy-{i}")
                with sec.lock:
                    sec.examples.append(f"  copy {i} kept in {kept} (open it with COFFER_KEYFILE={kept}/key)")
            sec.fact("copies")
            with sec.lock:
                by_kind[kind].update(counts)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    with concurrent.futures.ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
        for future in [pool.submit(trial, *item) for item in plan]:
            future.result()
    if stopped:
        sec.stopped_early = f"budget reached: {len(stopped)} of {len(plan)} copies not made"
    for kind in sorted(by_kind):
        counts = by_kind[kind]
        copies = counts.pop("copies")
        sec.details.append(f"{kind:<33} {copies:>5} copies  " + " ".join(
            f"{name}:{count}" for name, count in sorted(counts.items())))


# ---------------------------------------------------------------------------------------------
# Disk full, read-only media


def can_mount():
    if os.geteuid() != 0:
        return "not root: mounting a tmpfs needs root"
    if shutil.which("mount") is None:
        return "mount(8) is not installed"
    return None


def disk_full(c, sec, P, deadline):
    """Sets on a small tmpfs until it is full: clean 69s, nothing acknowledged lost."""
    reason = can_mount()
    if reason:
        sec.skipped = reason
        return
    rng = c.rng("disk-full")
    keys = c.mkdir("full-keys")
    key = c.keyfile(keys, rng)
    for round_ in range(P["full_rounds"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {round_} of {P['full_rounds']} rounds"
            break
        mountpoint = c.mkdir(f"tmpfs-{round_}")
        size = rng.choice([256, 384, 512, 768])
        failure = c.mount("-t", "tmpfs", "-o", f"size={size}k,mode=0700", "tmpfs", mountpoint)
        if failure:
            sec.skipped = f"cannot mount a tmpfs: {failure}"
            return
        try:
            full_round(c, sec, rng, mountpoint, key, round_, size)
        finally:
            c.umount(mountpoint)


def full_round(c, sec, rng, mountpoint, key, round_, size):
    sec.fact("rounds")
    vault = os.path.join(mountpoint, "v.vault")
    env = c.env(vault, key)
    filler = os.path.join(mountpoint, "filler")
    with open(filler, "wb") as f:
        f.write(b"\0" * 48 * 1024)
    sec.record(c.run(["init"], env=env), {0}, f"round {round_}: init on a {size}k tmpfs")
    acked = {}
    failures = 0
    largest = rng.choice([4000, 20000, 60000])
    n = 0
    while failures < 12 and n < 400:
        n += 1
        # Mostly new items, so the file grows; now and then an overwrite.
        account = rng.choice(sorted(acked)) if acked and rng.random() < 0.2 else f"a{n}"
        value = secret(rng, 1, largest)
        out = c.run(["set", "svc", account], env=env, stdin=value)
        sec.record(out, {0, 69}, f"round {round_}: set while filling")
        if out.status == 0:
            acked[account] = value
            sec.fact("acknowledged writes")
        elif out.status == 69:
            failures += 1
            sec.fact("writes refused: 69")
        else:
            # An unknown outcome: the old value or the new one may be there; drop it from the check.
            acked.pop(account, None)
    if failures == 0:
        sec.fail("unexpected", f"round {round_}: the disk never filled in {n} writes")
    sec.fact("disk filled")
    # On the full disk: reads work, every acknowledged write is there, other writes fail cleanly.
    for account, value in acked.items():
        c.expect_value(sec, env, account, value, f"round {round_}: read on a full disk")
    sec.record(c.run(["list"], env=env), {0}, f"round {round_}: list on a full disk")
    sec.record(c.run(["check"], env=env), {0}, f"round {round_}: check on a full disk")
    for args in (["rotate-key"], ["slots", "add", "--add-keyfile", os.path.join(mountpoint, "k2")]):
        out = c.run(args, env=env)
        sec.record(out, {0, 69}, f"round {round_}: {args[0]} on a full disk")
        sec.fact(f"{args[0]} on a full disk -> {out.label}")
    if acked:
        account = rng.choice(sorted(acked))
        out = c.run(["delete", "svc", account], env=env)
        sec.record(out, {0, 69}, f"round {round_}: delete on a full disk")
        sec.fact(f"delete on a full disk -> {out.label}")
        if out.status == 0:
            acked[account] = None
    other = os.path.join(mountpoint, "other.vault")
    out = c.run(["init"], env=c.env(other, key))
    sec.record(out, {0, 69}, f"round {round_}: init on a full disk")
    sec.fact(f"init on a full disk -> {out.label}")
    if out.status != 0:
        probe = c.run(["list"], env=c.env(other, key))
        sec.record(probe, {66}, f"round {round_}: list after a failed init")
    c.expect_opens(sec, env, f"round {round_}: full disk")
    # Not one byte left: reads may fail (SQLite needs room for its -shm), but only cleanly (69),
    # and what they print must be right; writes fail with 69.
    topup = os.path.join(mountpoint, "top-up")
    with contextlib.suppress(OSError), open(topup, "wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()
    for account in rng.sample(sorted(acked), min(5, len(acked))):
        out = c.run(["get", "svc", account], env=env)
        sec.record(out, {0, 1, 69}, f"round {round_}: get with 0 bytes free")
        sec.fact(f"get with 0 bytes free -> {out.label}")
        if out.status == 0 and out.out != acked[account]:
            sec.fail("wrong", f"round {round_}: get {account} with 0 bytes free printed the wrong bytes")
        if out.status == 1 and acked[account] is not None:
            sec.fail("lost", f"round {round_}: get {account} with 0 bytes free says absent")
    out = c.run(["set", "svc", "zero-free"], env=env, stdin=b"x" * 3000)
    sec.record(out, {0, 69}, f"round {round_}: set with 0 bytes free")
    sec.fact(f"set with 0 bytes free -> {out.label}")
    if out.status == 0:
        acked["zero-free"] = b"x" * 3000
    # Free space: writes work again, nothing acknowledged is lost.
    for path in (topup, filler):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    for name in os.listdir(mountpoint):
        if name.startswith("other.vault"):
            os.unlink(os.path.join(mountpoint, name))
    for i in range(3):
        value = secret(rng, 1, 100)
        out = c.run(["set", "svc", f"after-{i}"], env=env, stdin=value)
        sec.record(out, {0}, f"round {round_}: set after freeing space")
        if out.status == 0:
            acked[f"after-{i}"] = value
    for account, value in acked.items():
        c.expect_value(sec, env, account, value, f"round {round_}: after freeing space")
    c.expect_opens(sec, env, f"round {round_}: after freeing space")


def read_only(c, sec, P, deadline):
    """A vault on read-only media: reads work or fail cleanly, writes fail cleanly, nothing changes."""
    rng = c.rng("read-only")
    reason = can_mount()
    for with_wal in (False, True):
        folder = c.mkdir("ro-src")
        vault, key, items = c.new_vault(sec, rng, folder=folder, items=5)
        keyfolder = c.mkdir("ro-key")
        shutil.move(key, os.path.join(keyfolder, "key"))
        key = os.path.join(keyfolder, "key")
        env = c.env(vault, key)
        if with_wal:
            # Later commits held in the WAL by a reader's snapshot, copied beside an older main file.
            holder = sqlite3.connect(f"file:{vault}?mode=ro", uri=True, isolation_level=None)
            holder.execute("BEGIN")
            holder.execute("SELECT count(*) FROM items").fetchall()
            for account in list(items)[:2]:
                items[account] = secret(rng, 1, 100)
                sec.record(c.run(["set", "svc", account], env=env, stdin=items[account]), {0}, "set")
            copy = c.mkdir("ro-wal")
            for suffix in ("", "-wal"):
                shutil.copy2(vault + suffix, os.path.join(copy, "v.vault" + suffix))
            holder.execute("COMMIT")
            holder.close()
            folder, vault = copy, os.path.join(copy, "v.vault")
        variant = "vault with a WAL" if with_wal else "checkpointed vault"
        hashes = {p: sha(p) for p in files_of(vault)}
        if reason is None:
            target = c.mkdir("ro-mount")
            failure = c.mount("--bind", folder, target)
            if failure is None:
                failure = (subprocess.run(["mount", "-o", "remount,ro,bind", target], capture_output=True, text=True)
                           .stderr.strip() or None)
                if failure:
                    c.umount(target)
            if failure:
                sec.skipped = f"cannot make a read-only bind mount: {failure}"
                return
            how = "read-only bind mount"
        elif os.geteuid() != 0:
            target = folder
            how = "read-only folder (chmod 0500, file 0400; not root)"
        else:
            sec.skipped = reason
            return
        try:
            if how.startswith("read-only folder"):
                for path in files_of(vault):
                    os.chmod(path, 0o400)
                os.chmod(folder, 0o500)
            ro_vault = os.path.join(target, "v.vault")
            read_only_checks(c, sec, c.env(ro_vault, key), items, f"{variant} on a {how}", target)
        finally:
            if how.startswith("read-only folder"):
                os.chmod(folder, 0o700)
            else:
                c.umount(target)
        sec.fact(f"{variant}: {how}")
        if {p: sha(p) for p in files_of(vault)} != hashes:
            sec.fail("unexpected", f"{variant}: the vault's files changed on read-only media")
        c.expect_opens(sec, c.env(vault, key), f"{variant} after read-only media")
        for account, value in items.items():
            c.expect_value(sec, c.env(vault, key), account, value, f"{variant} after read-only media")
    # A read-only tmpfs: init fails cleanly.
    if reason is None:
        target = c.mkdir("ro-tmpfs")
        if c.mount("-t", "tmpfs", "-o", "ro,size=64k,mode=0700", "tmpfs", target) is None:
            try:
                key = c.keyfile(c.mkdir("ro-tmpfs-key"), rng)
                env = c.env(os.path.join(target, "v.vault"), key)
                sec.record(c.run(["init"], env=env), {69}, "init on a read-only tmpfs")
                sec.record(c.run(["list"], env=env), {66}, "list on a read-only tmpfs")
            finally:
                c.umount(target)


def read_only_checks(c, sec, env, items, what, target):
    for account, value in items.items():
        out = c.run(["get", "svc", account], env=env)
        sec.record(out, {0, 69}, f"{what}: get")
        sec.fact(f"reads -> {out.label}")
        if out.status == 0 and out.out != value:
            sec.fail("wrong", f"{what}: get {account} printed the wrong bytes")
    for args in (["list"], ["check"], ["slots", "list"]):
        out = c.run(args, env=env)
        sec.record(out, {0, 69}, f"{what}: {args[0]}")
        sec.fact(f"reads -> {out.label}")
    writes = [
        (["set", "svc", "new"], b"value"),
        (["set", "svc", next(iter(items))], b"changed"),
        (["delete", "svc", next(iter(items))], b""),
        (["rotate-key"], b""),
        (["slots", "add", "--add-keyfile", os.path.join(c.mkdir("ro-k2"), "k2")], b""),
        (["init"], b""),
    ]
    for args, data in writes:
        env_here = env
        if args == ["init"]:
            env_here = dict(env, COFFER_VAULT=os.path.join(target, "new.vault"))
        out = c.run(args, env=env_here, stdin=data)
        sec.record(out, {69, 73} if args == ["init"] else {69}, f"{what}: {' '.join(args[:2])}")
        sec.fact(f"writes -> {out.label}")


# ---------------------------------------------------------------------------------------------
# Bad descriptors and bad input


def bad_input(c, sec, P, deadline):
    """Every odd descriptor and argument ends with a documented status, never a crash or hang."""
    rng = c.rng("bad-input")
    vault, key, items = c.new_vault(sec, rng, items=2)
    folder = os.path.dirname(vault)
    env = c.env(vault, key)
    value = items["item-0"]
    fifo = os.path.join(folder, "fifo")
    os.mkfifo(fifo, 0o600)
    directory = c.mkdir("a-directory")
    link = os.path.join(folder, "link.vault")
    os.symlink(vault, link)
    keylink = os.path.join(folder, "key-link")
    os.symlink(key, keylink)
    loop = os.path.join(folder, "loop")
    os.symlink(loop, loop)
    short_key = os.path.join(folder, "short-key")
    with open(short_key, "wb") as f:
        f.write(b"short")
    os.chmod(short_key, 0o600)
    loose_key = os.path.join(folder, "loose-key")
    shutil.copy(key, loose_key)
    os.chmod(loose_key, 0o644)
    loose = c.mkdir("loose")
    loose_vault = os.path.join(loose, "v.vault")
    shutil.copy(vault, loose_vault)
    os.chmod(loose_vault, 0o644)
    pvault = os.path.join(c.mkdir("pass"), "v.vault")
    sec.record(c.run(["init", "--kdf", "interactive"], env=c.env(pvault, COFFER_PASSPHRASE="pw")), {0}, "init")
    vault_fd = os.open(vault, os.O_RDONLY)
    big = os.path.join(folder, "big")
    with open(big, "wb") as f:
        f.write(b"p" * (MAX_SECRET + 10))
    big_fd = os.open(big, os.O_RDONLY)

    def case(name, args, expect, env=env, stdin=b"", check=None, sigpipe_ok=False, **kwargs):
        out = c.run(args, env=env, stdin=stdin, timeout=20, **kwargs)
        sec.record(out, expect, name, sigpipe_ok=sigpipe_ok)
        sec.fact("cases")
        if check and out.status == 0:
            check(out, name)
        return out

    def same_secret(out, name):
        if out.out != value:
            sec.fail("wrong", f"{name}: get printed the wrong bytes")

    nul = subprocess.DEVNULL
    penv = c.env(pvault)
    # Descriptors.
    case("passphrase fd closed", ["list", "--passphrase-fd", "9"], {64}, env=penv)
    case("passphrase fd on another vault's file", ["list", "--passphrase-fd", str(vault_fd)], {2, 64},
         env=c.env(pvault), pass_fds=[vault_fd])
    r = os.open(pvault, os.O_RDONLY)
    case("passphrase fd on its own vault", ["list", "--vault", pvault, "--passphrase-fd", str(r)], {64},
         env=c.env(), pass_fds=[r])
    os.close(r)
    r = write_pipe(b"")
    case("passphrase fd empty", ["list", "--passphrase-fd", str(r)], {64}, env=penv, pass_fds=[r])
    os.close(r)
    case("passphrase fd over 1 MiB", ["list", "--passphrase-fd", str(big_fd)], {64}, env=penv, pass_fds=[big_fd])
    for bad in ("-1", "99999", "abc", "2147483648", "1", "2"):
        case(f"passphrase fd {bad}", ["list", "--passphrase-fd", bad], {2, 64}, env=penv)
    r = write_pipe(b"wrong")
    case("wrong passphrase by fd", ["list", "--passphrase-fd", str(r)], {2}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"\xff\xfe")
    case("passphrase fd not UTF-8", ["list", "--passphrase-fd", str(r)], {2, 64, 65}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"pw\n")
    case("right passphrase by fd", ["list", "--passphrase-fd", str(r)], {0}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"x")
    case("new passphrase fd closed", ["passwd", "--new-passphrase-fd", "9"], {64},
         env=c.env(pvault, COFFER_PASSPHRASE="pw"))
    case("new passphrase fd = passphrase fd", ["passwd", "--passphrase-fd", str(r), "--new-passphrase-fd", str(r)],
         {2, 64}, env=c.env(pvault), pass_fds=[r])
    os.close(r)
    case("no passphrase, no terminal", ["list"], {2}, env=penv, stdin=nul)
    case("stdout closed: get", ["get", "svc", "item-0"], {74}, shell_redirect=">&-")
    case("stdout closed: list", ["list"], {74}, shell_redirect=">&-")
    case("stdout closed: set", ["set", "svc", "quiet"], {0}, stdin=b"v", shell_redirect=">&-")
    case("stdout /dev/full: get", ["get", "svc", "item-0"], {74}, shell_redirect=">/dev/full")
    case("stdout /dev/full: check", ["check"], {74}, shell_redirect=">/dev/full")
    case("stderr closed, item missing", ["get", "svc", "missing"], {1}, shell_redirect="2>&-")
    case("stderr /dev/full, item missing", ["get", "svc", "missing"], {1}, shell_redirect="2>/dev/full")
    case("stdin, stdout, stderr closed", ["get", "svc", "item-0"], {74}, shell_redirect="<&- >&- 2>&-")
    case("stdin closed: set", ["set", "svc", "x"], {64}, shell_redirect="<&-")
    case("stdin closed: get", ["get", "svc", "item-0"], {0}, check=same_secret, shell_redirect="<&-")
    case("stdin a directory: set", ["set", "svc", "x"], {64, 65, 70}, shell_redirect=f"<{directory}")
    case("stdin /dev/zero: set", ["set", "svc", "x"], {65}, shell_redirect="</dev/zero")
    case("stdin the vault: set", ["set", "svc", "self"], {0, 64, 65}, shell_redirect=f"<{vault}")
    # Sizes.
    exact = rng.randbytes(MAX_SECRET)
    out = case("secret of exactly 1 MiB", ["set", "svc", "exact"], {0}, stdin=exact)
    if out.status == 0:
        case("get 1 MiB", ["get", "svc", "exact"], {0}, check=lambda o, n: o.out == exact or sec.fail("wrong", n))
    case("secret of 1 MiB + 1", ["set", "svc", "over"], {65}, stdin=exact + b"x")
    case("secret of 5 MiB", ["set", "svc", "over"], {65}, stdin=rng.randbytes(5 * MAX_SECRET))
    case("item over the limit absent", ["get", "svc", "over"], {1})
    binary = bytes(range(256)) * 3
    case("binary secret", ["set", "svc", "binary"], {0}, stdin=binary)
    case("binary secret back", ["get", "svc", "binary"], {0}, check=lambda o, n: o.out == binary or sec.fail("wrong", n))
    case("empty secret", ["set", "svc", "empty"], {0, 64, 65}, stdin=b"")
    for n in ("0", "-1", "1000000000001", "10000000000000", str(2**63 - 1), str(2**63), str(2**64), "1e9", "nan", ""):
        case(f"--expires-in {n}", ["set", "svc", "exp", "--expires-in", n], {64}, stdin=b"v")
    case("--expires-in 10^12", ["set", "svc", "exp", "--expires-in", "1000000000000"], {0}, stdin=b"v")
    case("get the item expiring in 10^12 s", ["get", "svc", "exp"], {0})
    long_name = "s" * 100000
    case("very long service", ["set", long_name, "a"], {0, 64, 65}, stdin=b"v")
    case("very long label", ["set", "svc", "lbl", "--label", "l" * 120000], {0, 64, 65}, stdin=b"v")
    case("many attributes", ["set", "svc", "attrs"] + [f"--attribute=k{i}=v" for i in range(3000)], {0, 64, 65}, stdin=b"v")
    case("attribute without =", ["set", "svc", "attrs", "--attribute", "novalue"], {64}, stdin=b"v")
    # Encoding.
    case("argv not UTF-8", ["get", b"svc\xff", "item-0"], {64})
    case("argv not UTF-8 (set)", ["set", "svc", b"\xc3\x28"], {64}, stdin=b"v")
    case("argv with NUL-free control bytes", ["set", "svc\x01\x1b[31m", "acct\n"], {0}, stdin=b"v")
    case("list escapes control bytes", ["list"], {0},
         check=lambda o, n: b"\x1b" not in o.out or sec.fail("wrong", f"{n}: list printed a raw escape"))
    case("$COFFER_VAULT not UTF-8", ["list"], {64}, env=dict(env, COFFER_VAULT=os.fsencode(vault) + b"\xff"))
    case("$COFFER_PASSPHRASE not UTF-8", ["list"], {64}, env=c.env(pvault, COFFER_PASSPHRASE=b"pw\xff"))
    case("$HOME not UTF-8", ["list"], {0, 64}, env=dict(env, HOME=b"/tmp/\xff"))
    case("$COFFER_VAULT empty, $XDG_DATA_HOME not UTF-8", ["list"], {64, 66},
         env=dict(env, COFFER_VAULT="", XDG_DATA_HOME=b"/\xfe"))
    case("$COFFER_BACKEND bogus", ["list"], {64}, env=dict(env, COFFER_BACKEND="bogus"))
    case("$COFFER_UNLOCK bogus", ["list"], {64}, env=dict(env, COFFER_UNLOCK="bogus"))
    case("Secret Service without a bus", ["list", "--backend", "secret-service"], {69})
    case("--unlock secret-service without a bus", ["list", "--unlock", "secret-service"], {2, 69})
    # Files.
    case("vault is a FIFO", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(fifo, key))
    case("key file is a FIFO", ["list"], {2, 64, 77}, env=c.env(vault, fifo))
    case("vault is a directory", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(directory, key))
    case("vault is /dev/null", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env("/dev/null", key))
    case("vault is /dev/zero", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env("/dev/zero", key))
    case("key file is /dev/zero", ["list"], {2, 64, 77}, env=c.env(vault, "/dev/zero"))
    case("key file is /dev/null", ["list"], {2, 64, 77}, env=c.env(vault, "/dev/null"))
    case("key file is a directory", ["list"], {2, 64, 69, 77}, env=c.env(vault, directory))
    case("key file is short", ["list"], {2, 64}, env=c.env(vault, short_key))
    case("key file readable by others", ["list"], {77}, env=c.env(vault, loose_key))
    case("key file missing", ["list"], {2, 64}, env=c.env(vault, os.path.join(folder, "nope")))
    case("key file through a symlink", ["get", "svc", "item-0"], {0, 77}, env=c.env(vault, keylink), check=same_secret)
    case("vault through a symlink", ["get", "svc", "item-0"], {0}, env=c.env(link, key), check=same_secret)
    case("vault symlink loop", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(loop, key))
    case("vault readable by others", ["list"], {77}, env=c.env(loose_vault, key))
    case("vault missing", ["list"], {66}, env=c.env(os.path.join(folder, "nope.vault"), key))
    case("vault in a missing folder", ["get", "svc", "x"], {66}, env=c.env(os.path.join(folder, "a/b/c.vault"), key))
    case("init over an existing vault", ["init"], {73})
    case("init over a FIFO", ["init"], {64, 69, 70, 73, 77}, env=c.env(fifo, key))
    case("init over a directory", ["init"], {64, 69, 70, 73, 77}, env=c.env(directory, key))
    case("init with a short key file", ["init"], {64}, env=c.env(os.path.join(c.mkdir("short"), "v.vault"), short_key))
    case("vault path empty", ["list", "--vault", ""], {0, 64, 66})
    case("vault path with NUL-like escape", ["list", "--vault", folder + "/\\0"], {66})
    case("key file is the vault", ["list"], {2, 64, 77}, env=c.env(vault, vault))
    case("get still fine", ["get", "svc", "item-0"], {0}, check=same_secret)
    os.close(vault_fd)
    os.close(big_fd)
    # A broken pipe: the process may end by SIGPIPE (documented) or exit 74.
    r, w = os.pipe()
    os.close(r)
    case("stdout a broken pipe", ["get", "svc", "exact"], {74}, stdout=w, sigpipe_ok=True)
    os.close(w)
    argv_fuzz(c, sec, P, deadline, rng, vault, key, fifo, directory, link, loop)
    c.expect_opens(sec, env, "after bad input")


# The fuzz grammar: each command with its positional arguments and the options it takes;
# every command also takes the root's options.
FUZZ_COMMANDS = {
    "init": (0, ["--kdf", "--secret-service-slot"]),
    "set": (2, ["--label", "--comment", "--expires-in", "--attribute", "--internet"]),
    "get": (2, ["--internet"]),
    "delete": (2, ["--internet"]),
    "list": (0, ["--service", "--json"]),
    "passwd": (0, ["--new-passphrase-fd", "--kdf"]),
    "slots": (0, []),
    "slots list": (0, []),
    "slots add": (0, ["--add-keyfile", "--add-passphrase", "--add-secret-service", "--new-passphrase-fd", "--kdf"]),
    "slots remove": (1, []),
    "rotate-key": (0, ["--also-keyfile", "--also-passphrase-fd"]),
    "check": (0, []),
    "doctor": (0, []),
    "help": (1, []),
    "--help": (0, []),
    "bogus": (0, []),
}
ROOT_OPTIONS = ["--vault", "--keyfile", "--passphrase-fd", "--backend", "--unlock", "--secret-service-timeout"]


def argv_fuzz(c, sec, P, deadline, rng, vault, key, fifo, directory, link, loop):
    """Random argument vectors from a small grammar, on a copy of the vault that is reset now and then."""
    folder = c.mkdir("fuzz")
    copy = os.path.join(folder, "v.vault")
    fkey = os.path.join(folder, "key")
    shutil.copy2(key, fkey)

    def reset():
        for path in files_of(copy):
            os.unlink(path)
        shutil.copy2(vault, copy)

    reset()
    paths = [copy, fkey, link, loop, fifo, directory, "/dev/null", "/dev/zero", os.path.join(folder, "new.vault"),
             os.path.join(folder, "deep/er/new.vault"), os.path.join(folder, "new-key"), ""]
    words = ["svc", "item-0", "item-1", "svc", "item-0", "", "-", "--", "-x", "a" * 5000, "ü€\u200b", "\x1b[2J",
             "\n", " ", b"\xff", b"\xc0\xaf", "%s%n", "../../etc/passwd", "0", "-1", "1", "2", "65", str(2**63),
             "1e308", "nan"]
    fds = ["0", "3", "9", "-1", "x", str(2**40)]
    values = {
        "--vault": paths, "--keyfile": paths, "--passphrase-fd": fds, "--new-passphrase-fd": fds,
        "--also-passphrase-fd": fds, "--kdf": ["interactive", "bogus", ""], "--label": words, "--comment": words,
        "--expires-in": ["1", "0", "-5", str(2**63), "x", "1000000000000"],
        "--attribute": ["a=b", "=", "novalue", "x=" + "y" * 3000, "k=ü"], "--service": words,
        "--unlock": ["keyfile", "passphrase", "secret-service", "keyfile,passphrase", "x", ""],
        "--backend": ["vault", "vault", "secret-service", "x"],
        "--secret-service-timeout": ["0.5", "5", "0.5", "0", "-1", "1e9", "x"],
        "--add-keyfile": paths, "--also-keyfile": paths,
    }
    every_option = sorted(set(ROOT_OPTIONS) | {o for _, opts in FUZZ_COMMANDS.values() for o in opts})
    for i in range(P["fuzz"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {i} of {P['fuzz']} random argument vectors"
            break
        command = rng.choice(sorted(FUZZ_COMMANDS))
        positional, own = FUZZ_COMMANDS[command]
        argv = command.split()
        tail = [rng.choice(words[:5] if rng.random() < 0.8 else words) for _ in range(positional)]
        if rng.random() < 0.1:
            tail = tail[:-1] if tail else [rng.choice(words)]  # one too few or too many
        for _ in range(rng.randint(0, 4)):
            pool = own + ROOT_OPTIONS if own and rng.random() < 0.85 else every_option
            name = rng.choice(pool if rng.random() < 0.9 else ROOT_OPTIONS)
            tail.append(name)
            if name in values and rng.random() < 0.95:
                tail.append(rng.choice(values[name]))
        argv += tail
        if command == "init" and "--kdf" not in argv:
            argv += ["--kdf", "interactive"]  # keep Argon2id cheap
        env = c.env(copy if rng.random() < 0.85 else None, fkey if rng.random() < 0.75 else None)
        if rng.random() < 0.2:
            env["COFFER_PASSPHRASE"] = rng.choice(["pw", "", "ü"])
        if rng.random() < 0.1:
            env["COFFER_NEW_PASSPHRASE"] = rng.choice(["new", ""])
        pipes = []
        if rng.random() < 0.4:  # a readable descriptor for the *-fd options to name
            pipes = [write_pipe(rng.choice([b"pw", b"", rng.randbytes(rng.randint(1, 64))]))]
            argv = [str(pipes[0]) if a == "3" else a for a in argv]
        stdin = rng.choice([b"", b"secret", rng.randbytes(rng.randint(0, 2000)), subprocess.DEVNULL])
        out = c.run(argv, env=env, stdin=stdin, pass_fds=pipes, timeout=20)
        for fd in pipes:
            os.close(fd)
        sec.record(out, None, f"fuzz {i}")
        sec.fact("random argument vectors")
        sec.fact(f"random argument vectors -> {out.label}")
        if rng.random() < 0.05 or not os.path.exists(copy):
            reset()


# ---------------------------------------------------------------------------------------------
# Profiles and the report


PROFILES = {
    # bounded: about 2 minutes on a 2-core machine, cut at 4.5 (--budget); full: about 25 minutes.
    "bounded": dict(budget=270, kill_trials=40, kill_window=0.4, kill_accounts=30, passwd_trials=16,
                    rotate_items=30, rotate_trials=12, slots_trials=16, init_trials=20, workers=8, ops=50,
                    kill_ops=25, init_races=3, copies=500, corrupt_items=12, gets_per_copy=2, full_rounds=2,
                    fuzz=200),
    "full": dict(budget=2400, kill_trials=300, kill_window=0.9, kill_accounts=200, passwd_trials=60,
                 rotate_items=60, rotate_trials=60, slots_trials=80, init_trials=80, workers=8, ops=500,
                 kill_ops=150, init_races=20, copies=6400, corrupt_items=20, gets_per_copy=3, full_rounds=8,
                 fuzz=600),
}

SECTIONS = [
    # (name, function, share of the budget: a section stops, saying so, when its share is spent)
    ("kill-writes", kill_writes, 0.29),
    ("kill-passwd", kill_passwd, 0.03),
    ("kill-rotate", kill_rotate, 0.04),
    ("kill-slots", kill_slots, 0.04),
    ("kill-init", kill_init, 0.03),
    ("concurrency", concurrency, 0.09),
    ("corruption", corruption, 0.33),
    ("disk-full", disk_full, 0.07),
    ("read-only", read_only, 0.02),
    ("bad-input", bad_input, 0.06),
]


def report(sections, seed, seconds):
    print()
    print(f"torture: summary (seed {seed}, {seconds:.0f} s)")
    header = f"{'section':<13}{'lost':>6}{'wrong':>7}{'crash':>7}{'hang':>6}{'unexp':>7}  {'time':>6}  exit statuses"
    print(header)
    print("-" * len(header))
    totals = collections.Counter()
    for sec in sections:
        for kind in Section.FAILURES:
            totals[kind] += sec.failures[kind]
        statuses = " ".join(f"{k}:{v}" for k, v in sorted(sec.statuses.items(), key=status_order))
        if sec.skipped:
            statuses = f"skipped: {sec.skipped}" + (f"; {statuses}" if statuses else "")
        f = sec.failures
        print(f"{sec.name:<13}{f['lost']:>6}{f['wrong']:>7}{f['crashes']:>7}{f['hangs']:>6}{f['unexpected']:>7}"
              f"  {sec.seconds:>5.0f}s  {statuses}")
    print("-" * len(header))
    print(f"{'total':<13}{totals['lost']:>6}{totals['wrong']:>7}{totals['crashes']:>7}{totals['hangs']:>6}"
          f"{totals['unexpected']:>7}")
    return totals


def status_order(item):
    key = item[0]
    return (0, int(key)) if key.isdigit() else (1, key)


def print_section(sec):
    state = "FAIL" if sec.failed else "skipped" if sec.skipped else "ok"
    print(f"\n== {sec.name}: {state} ({sec.seconds:.0f} s)", flush=True)
    if sec.skipped:
        print(f"   skipped: {sec.skipped}")
    if sec.stopped_early:
        print(f"   stopped early: {sec.stopped_early}")
    for name, count in sorted(sec.facts.items()):
        print(f"   {name}: {count}")
    for line in sec.details:
        print(f"   {line}")
    print("   exit statuses: " + (" ".join(f"{k}:{v}" for k, v in sorted(sec.statuses.items(), key=status_order)) or "none"))
    for line in sec.examples:
        print(f"   {line}")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--coffer", required=True, help="the coffer binary")
    parser.add_argument("--seed", type=int, help="replay this seed (default: random, printed first)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full")
    parser.add_argument("--budget", type=float, help="seconds for the whole campaign (default: the profile's)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds before a command counts as hung")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every trial count")
    parser.add_argument("--only", help="comma-separated sections to run: " + ",".join(n for n, _, _ in SECTIONS))
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--verbose", action="store_true", help="print every command and its outcome")
    args = parser.parse_args()
    Section.verbose = args.verbose
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2**32)
    print(f"torture: seed {args.seed} (replay: scripts/torture.py --coffer {args.coffer} --profile {args.profile} "
          f"--seed {args.seed})", flush=True)
    args.coffer = os.path.abspath(args.coffer)
    if not os.access(args.coffer, os.X_OK):
        parser.error(f"{args.coffer} is not an executable")
    P = dict(PROFILES[args.profile])
    for name, value in P.items():
        if name not in ("budget", "kill_window", "workers") and isinstance(value, int):
            P[name] = max(1, int(value * args.scale))
    budget = args.budget or P["budget"]
    only = set(args.only.split(",")) if args.only else None
    if only and only - {n for n, _, _ in SECTIONS}:
        parser.error(f"unknown section: {', '.join(sorted(only - {n for n, _, _ in SECTIONS}))}")
    os.umask(0o077)
    root = tempfile.mkdtemp(prefix="coffer-torture-")
    os.chmod(root, 0o700)
    campaign = Campaign(args, root)

    def stop(signum, _frame):
        campaign.runner.kill_all()  # at once, so worker threads stop starting commands too
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    started = time.monotonic()
    sections = []
    interrupted = False
    try:
        chosen = [s for s in SECTIONS if not only or s[0] in only]
        share_total = sum(share for _, _, share in chosen)
        for name, function, share in chosen:
            sec = Section(name)
            sections.append(sec)
            begin = time.monotonic()
            print(f"\n-- {name} ...", flush=True)
            try:
                function(campaign, sec, P, begin + budget * share / share_total)
            except Exception as error:  # a broken scenario is a failure of the run, not a silent pass
                sec.fail("unexpected", f"the scenario itself failed: {type(error).__name__}: {error}")
                import traceback
                traceback.print_exc()
            sec.seconds = time.monotonic() - begin
            print_section(sec)
    except KeyboardInterrupt:
        interrupted = True
        print("\ntorture: interrupted", file=sys.stderr)
    finally:
        campaign.cleanup()
        if args.keep:
            print(f"torture: scratch kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    totals = report(sections, args.seed, time.monotonic() - started)
    if campaign.failure_dir:
        print(f"torture: failing copies kept in {campaign.failure_dir}")
    failed = any(totals[k] for k in Section.FAILURES)
    if failed or interrupted:
        print(f"torture: FAILED (replay with --seed {args.seed})")
        return 1
    print("torture: passed: nothing lost, no wrong data, no crash, no hang")
    return 0


if __name__ == "__main__":
    sys.exit(main())
