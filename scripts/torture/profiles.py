"""How much each run does: the bounded profile `make test` runs, the full one `make torture` runs."""

PROFILES = {
    # On a 2-core machine: bounded about 2 minutes beside make docs, cut at 4.5 (make test's share: a
    # smoke pass of every section); full about 30, cut at 45 (--budget).
    "bounded": dict(budget=270, ss_kill_trials=1, ss_creates=1000, ss_kill_window=3.0, ss_ops=60, kill_trials=24, kill_window=0.4, kill_accounts=30, kill_verify=12,
                    audit_trials=12, audit_appends=60, audit_verify=3,
                    passwd_trials=12, rotate_items=30, rotate_trials=10, slots_trials=12, init_trials=16, machine_trials=5,
                    workers=8, ops=30, kill_ops=15, init_races=3, copies=240, corrupt_items=12,
                    gets_per_copy=2, full_rounds=2, fuzz=100),
    "full": dict(budget=2700, ss_kill_trials=5, ss_creates=1000, ss_kill_window=8.0, ss_ops=500, kill_trials=300, kill_window=1.3, kill_accounts=200, kill_verify=12,
                 audit_trials=60, audit_appends=200, audit_verify=8,
                 passwd_trials=60, rotate_items=60, rotate_trials=60, slots_trials=80, init_trials=80, machine_trials=40,
                 workers=8, ops=500, kill_ops=150, init_races=20, copies=6400, corrupt_items=20,
                 gets_per_copy=2, full_rounds=8, fuzz=600),
}
# What --scale multiplies: the numbers of trials, operations and copies.
SCALED = {"kill_trials", "audit_trials", "passwd_trials", "rotate_trials", "slots_trials", "init_trials", "machine_trials", "ops", "kill_ops",
          "init_races", "copies", "full_rounds", "fuzz"}
