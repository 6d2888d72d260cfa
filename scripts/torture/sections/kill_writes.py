"""The kill-writes section. A writer runs `set`/`delete` one process at a time and is killed (SIGKILL)
at a random moment. Every write that exited 0 must read back exactly; the write in flight may have
happened or not, nothing else; `list` and `check` must exit 0.
"""

import time

from torture.campaign import secret, verify_account


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
        # Verify: the vault opens, the account written when the kill came holds its old or its new
        # value, and a sample of the others touched reads back as acknowledged (the final pass
        # reads every account).
        c.expect_opens(sec, env, f"trial {trial}")
        sample = set(maybe) | set(rng.sample(sorted(touched), min(len(touched), P["kill_verify"])))
        for account in sorted(sample):
            verify_account(c, sec, env, account, known, maybe, f"trial {trial}")
    for account in accounts:  # a final pass over everything
        verify_account(c, sec, env, account, known, maybe, "final pass")
