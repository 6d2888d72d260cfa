"""Coffer's fault campaign: `make torture` (full) and the bounded run inside `make test`.

Runs the `coffer` CLI through kill -9, concurrency, corrupted copies, a full disk, read-only
media and bad descriptors and input, and fails on any lost write, wrong data, crash or hang.

    python3 scripts/torture --coffer .build/debug/coffer                  # full campaign, random seed
    python3 scripts/torture --coffer PATH --profile bounded               # what `make test` runs
    python3 scripts/torture --coffer PATH --seed 1234 --only corruption   # replay one section
    python3 scripts/torture --coffer PATH --helper PATH/coffer-test-helper  # kill-audit's helper elsewhere

(`python3 -m torture ...` with scripts/ on PYTHONPATH is the same.) The seed is printed first.
The same seed makes the same choices (accounts, values, kill delays, mutations, argument
vectors); kill -9 timing still depends on the machine, so a kill trial replays the same plan,
not the same instant. A failing corrupted copy is kept (its path is printed) so it can be fed to
`coffer` by hand.

The package
-----------
__main__.py        the command line: options, the sections in order, the summary and exit status
runner.py          runs one `coffer` command, or another program's (own process group, timeout, kill -9 at a chosen time)
results.py         a section's counts (statuses, failures by kind, facts) and the summary table
campaign.py        what the sections share: scratch folders, seeded randomness, vaults, checks, mounts
profiles.py        the bounded and full profiles: trial counts and the time budget
software_tpm.py    swtpm on loopback ports (kill-machine-slot)
private_bus.py     a dbus-daemon of the campaign's own (secret-service)
secret_service_client.py  the jeepney client the secret-service section drives the agent with
sections/          one module a section, in the order they run (sections/__init__.py); each
                   module's docstring says what it checks: kill-writes, kill-passwd,
                   kill-rotate, kill-slots, kill-machine-slot, kill-init, kill-audit, concurrency,
                   corruption, disk-full, read-only, bad-input, secret-service

A section is a function (campaign, section, profile, deadline): it runs commands through
`campaign.run`, counts each outcome with `section.record(outcome, expected statuses, what)`,
and reports what it found with `section.fail(kind, text)` and `section.fact(name)`. A new
section is a module in sections/ and one line in sections/__init__.py.

Classification: "crash" is death by any signal we did not send (SIGPIPE only where a broken
pipe is the point); "hang" is a command that outlived its timeout (then killed); "lost" is an
acknowledged write (exit 0) read back absent or different, or a vault that no longer opens;
"wrong data" is an exit 0 printing bytes other than the ones the campaign knows must be there;
"unexpected" is an undocumented exit status, or a documented one the contract rules out in that
place (a 69 "busy" under concurrency, exit 0 writing to read-only media). All five fail the run.
"""
