"""The disk-full section. (root: small tmpfs) sets until the disk is full and beyond: failures are 69,
everything acknowledged reads back, `check` is clean; `rotate-key`, `slots add`, `delete` and `init`
on the full disk fail cleanly; after space is freed writes work.
"""

import contextlib
import os
import time

from torture.campaign import secret, can_mount


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
    with open(filler, "wb") as f:  # a quarter of the disk, freed at the end to make room again
        f.write(b"\0" * (size * 1024 // 4))
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
