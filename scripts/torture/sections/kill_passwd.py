"""The kill-passwd section. `passwd` on a passphrase vault (--kdf interactive) killed at random:
afterwards the old or the new passphrase opens the vault (never neither); on exit 0 only the new.
"""

import os
import time

from torture.campaign import secret, write_pipe


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
        kill_after = None if duration is None else rng.uniform(0, 2 * duration)
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
