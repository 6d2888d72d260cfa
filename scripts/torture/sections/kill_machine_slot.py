"""The kill-machine-slot section. `slots add --add-systemd-creds` (host key, or a TPM2 emulated by
swtpm on a loopback port) killed once while it waits on a stopped TPM (SIGSTOP), then at random: the
passphrase still opens the vault and reads every item; the new slot opens (--unlock systemd-creds)
if the command exited 0. Skipped without swtpm, tpm2-tools or systemd-creds, or (the host key) when
not root.
"""

import os
import shutil
import signal
import time

from torture.campaign import secret
from torture.software_tpm import SoftwareTPM


def kill_machine_slot(c, sec, P, deadline):
    """slots add --add-systemd-creds killed at random: the passphrase still opens every item."""
    missing = [tool for tool in ("swtpm", "tpm2_flushcontext", "tpm2_pcrextend", "systemd-creds") if shutil.which(tool) is None]
    if missing:
        sec.skipped = f"{', '.join(missing)} not installed (Debian: swtpm, swtpm-tools, tpm2-tools, libtss2-tcti-swtpm0)"
        return
    rng = c.rng("kill-machine-slot")
    folder = c.mkdir("machine")
    tpm = SoftwareTPM(c.mkdir("tpm-state"))
    try:
        passphrase = "machine slot torture"
        vault = os.path.join(folder, "m.vault")
        # A host key of the campaign's own ($SYSTEMD_CREDENTIAL_SECRET): the machine's is untouched.
        env = c.env(vault, COFFER_PASSPHRASE=passphrase, COFFER_TPM2_DEVICE=tpm.device,
                    SYSTEMD_CREDENTIAL_SECRET=os.path.join(folder, "credential.secret"))
        sec.record(c.run(["init", "--kdf", "interactive"], env=env), {0}, "init")
        items = {}
        for i in range(3):
            items[f"item-{i}"] = secret(rng, 1, 100)
            sec.record(c.run(["set", "svc", f"item-{i}"], env=env, stdin=items[f"item-{i}"]), {0}, "set")
        keys = ["tpm2"] + (["host", "host+tpm2"] if os.geteuid() == 0 else [])
        duration = {}
        slots = 1 + 3  # the passphrase slot, and one of each kind made once to time it
        for trial in range(P["machine_trials"] + 1):
            if time.monotonic() > deadline:
                sec.stopped_early = f"budget reached after {trial} trials"
                break
            if slots >= 60:
                sec.details.append("stopped at 60 slots")
                break
            sec.fact("trials")
            with_key = keys[trial % len(keys)]
            args = ["slots", "add", "--add-systemd-creds", "--with-key", with_key]
            # The first trial, so that even the bounded run's few seconds make it: kill -9 while
            # `slots add` waits inside its transaction on a stopped TPM.
            frozen = trial == 0
            if frozen:
                with_key, args = "tpm2", ["slots", "add", "--add-systemd-creds", "--with-key", "tpm2"]
                tpm.proc.send_signal(signal.SIGSTOP)
                kill_after = 1.5
            else:
                kill_after = rng.uniform(0, 2 * duration[with_key]) if with_key in duration else None
            out = c.run(args, env=env, kill_after=kill_after)
            if frozen:
                tpm.proc.send_signal(signal.SIGCONT)
                sec.fact("killed while the TPM was stopped" if out.killed else "finished although the TPM was stopped")
            sec.record(out, {0, 75} if frozen else {0}, f"trial {trial} ({with_key})")
            if out.status == 0 and with_key not in duration:
                duration[with_key] = out.seconds
            sec.fact("killed" if out.killed else "completed")
            slots += 1
            tpm.flush()
            for account, value in items.items():
                c.expect_value(sec, env, account, value, f"trial {trial}")
            c.expect_opens(sec, env, f"trial {trial}")
            probe = c.run(["--unlock", "systemd-creds", "get", "svc", "item-0"], env=c.env(vault, COFFER_TPM2_DEVICE=tpm.device,
                          SYSTEMD_CREDENTIAL_SECRET=env["SYSTEMD_CREDENTIAL_SECRET"]))
            tpm.flush()
            # A killed add left no slot, or a whole one: then systemd-creds opens (0) or the
            # vault has no such slot yet (2).
            sec.record(probe, {0} if out.status == 0 else {0, 2}, f"trial {trial}, the machine slot")
            if probe.status == 0:
                sec.fact("machine slot opens")
                if probe.out != items["item-0"]:
                    sec.fail("wrong", f"trial {trial}: the machine slot reads item-0 wrong")
    finally:
        tpm.close()
