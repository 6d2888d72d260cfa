"""The kill-slots section. `slots add` (key file or passphrase) killed at random: the old key still
opens the vault and reads every item; the new credential works if the command exited 0.
"""

import os
import time

from torture.campaign import write_pipe


def kill_slots(c, sec, P, deadline):
    """slots add killed at random: the old key still opens; the new one does if acknowledged."""
    rng = c.rng("kill-slots")
    vault = key = env = items = None
    slots = passphrase_slots = 64
    duration = {}
    for trial in range(P["slots_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['slots_trials']} trials"
            break
        if slots >= 60 or passphrase_slots >= 8:  # a vault holds 64 slots, 8 of them passphrases
            vault, key, items = c.new_vault(sec, rng, items=3)
            env = c.env(vault, key)
            slots = passphrase_slots = 0
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
        kill_after = rng.uniform(0, 2 * duration[kind]) if kind in duration else None
        out = c.run(args, env=env, pass_fds=fds, kill_after=kill_after)
        for fd in fds:
            os.close(fd)
        sec.record(out, {0}, f"trial {trial}")
        if out.status == 0 and kind not in duration:
            duration[kind] = out.seconds
        sec.fact("killed" if out.killed else "completed")
        slots += 1  # counted even when killed: the slot may have been committed
        passphrase_slots += kind == "passphrase"
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
