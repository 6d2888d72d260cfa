"""The kill-audit section (needs coffer-test-helper, which `swift build --build-tests` puts beside
coffer; `--helper PATH` names another): a process that sets an item and appends an audit entry
(vault format 3), each its own commit, over and over (`coffer-test-helper audit-loop`), is killed at
random: afterwards the vault opens (`list`, and `check`, which verifies every audit entry), every
acknowledged item is listed and a sample reads back, and every acknowledged audit entry is in
the log (`coffer-test-helper audit-dump`).
"""

import os
import time


def kill_audit(c, sec, P, deadline):
    """Item writes and audit appends killed at random; everything acknowledged must survive."""
    helper = c.args.helper
    if not os.access(helper, os.X_OK):
        sec.skipped = f"no coffer-test-helper at {helper} (swift build --build-tests builds it; or --helper PATH)"
        return
    rng = c.rng("kill-audit")
    vault, key, _ = c.new_vault(sec, rng)
    env = c.env(vault, key)
    service = "com.example.audit"  # the helper's
    acknowledged = []  # accounts whose item was set
    audited = set()  # accounts whose audit entry was appended
    duration = None  # of a run that was not killed: kills land anywhere in one
    for trial in range(P["audit_trials"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {trial} of {P['audit_trials']} trials"
            break
        sec.fact("trials")
        prefix = f"t{trial}"
        out = c.run(["audit-loop", vault, key, prefix, str(P["audit_appends"])], program=helper, env=env,
                    kill_after=None if duration is None else rng.uniform(0, duration))
        sec.record(out, {0}, f"trial {trial}")
        sec.fact("killed" if out.killed else "completed")
        duration = duration or out.seconds
        for line in out.out.decode(errors="replace").splitlines():
            kind, _, index = line.partition(" ")
            if kind == "set":
                acknowledged.append(f"{prefix}-{index}")
            elif kind == "audited":
                audited.add(f"{prefix}-{index}")
        sec.fact("acknowledged appends", len([a for a in audited if a.startswith(prefix + "-")]))
        if not c.expect_opens(sec, env, f"trial {trial}"):
            break
        dump = c.run(["audit-dump", vault, key], program=helper, env=env)
        sec.record(dump, {0}, f"trial {trial}, reading the log")
        logged = set(dump.out.decode(errors="replace").split())
        for account in sorted(audited - logged):
            sec.fail("lost", f"trial {trial}: the acknowledged audit entry for {account} is not in the log")
        listed = c.run(["list"], env=env)
        names = {line.split(b"\t")[2].decode() for line in listed.out.splitlines() if line.count(b"\t") >= 2}
        for account in acknowledged:
            if account not in names:
                sec.fail("lost", f"trial {trial}: the acknowledged item {account} is missing from list")
        for account in rng.sample(acknowledged, min(P["audit_verify"], len(acknowledged))):
            c.expect_value(sec, env, account, f"{account}-secret".encode(), f"trial {trial}", service=service)
