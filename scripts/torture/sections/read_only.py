"""The read-only section. (root: read-only bind mount; otherwise a read-only folder) reads work or fail
cleanly, every write fails with a documented status, the vault is unchanged.
"""

import os
import shutil
import sqlite3
import subprocess

from torture.campaign import secret, sha, files_of, can_mount


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
            # A checkpointed vault on a read-only mount must read (Vault.open opens it immutable).
            reads = {0} if how == "read-only bind mount" and not with_wal else {0, 69}
            read_only_checks(c, sec, c.env(ro_vault, key), items, f"{variant} on a {how}", target, reads)
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


def read_only_checks(c, sec, env, items, what, target, reads):
    for account, value in items.items():
        out = c.run(["get", "svc", account], env=env)
        sec.record(out, reads, f"{what}: get")
        sec.fact(f"reads -> {out.label}")
        if out.status == 0 and out.out != value:
            sec.fail("wrong", f"{what}: get {account} printed the wrong bytes")
    for args in (["list"], ["check"], ["slots", "list"]):
        out = c.run(args, env=env)
        sec.record(out, reads, f"{what}: {args[0]}")
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
