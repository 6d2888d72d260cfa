"""The kill-rotate section. `rotate-key` (two key-file slots, many items) killed at random: both key
files still open the vault, every item reads back, `check` exits 0.
"""

import os
import time


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
        out = c.run(args, env=env, kill_after=rng.uniform(0, 2 * duration))
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
