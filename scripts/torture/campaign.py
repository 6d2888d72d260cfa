"""What every section shares: the scratch folder, seeded randomness, vaults, checks, mounts."""

import hashlib
import os
import random
import shutil
import subprocess
import tempfile
import threading

from torture.runner import Runner


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

    def keep(self, label, files):
        """Keeps a failing case ({file name: bytes}) outside the scratch folder; returns where."""
        with self.lock:
            if self.failure_dir is None:
                self.failure_dir = tempfile.mkdtemp(prefix=f"coffer-torture-failures-{self.seed}-")
            target = os.path.join(self.failure_dir, label)
        os.makedirs(target, mode=0o700, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(target, name), "wb") as f:
                f.write(data)
        return target

    def mount(self, *args):
        """Runs mount(8); returns None or the reason it failed."""
        result = subprocess.run(["mount", *args], capture_output=True, text=True)
        if result.returncode != 0:
            return (result.stderr.strip() or f"mount exited {result.returncode}").splitlines()[-1]
        self.mounts.append(args[-1])
        return None

    def umount(self, target):
        if subprocess.run(["umount", target], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", target], capture_output=True)
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


def can_mount():
    if os.geteuid() != 0:
        return "not root: mounting a tmpfs needs root"
    if shutil.which("mount") is None:
        return "mount(8) is not installed"
    return None
