"""The campaign's sections, in the order they run, each with its share of the time budget: a
section stops, saying so, when its share is spent."""

from torture.sections.bad_input import bad_input
from torture.sections.concurrency import concurrency
from torture.sections.corruption import corruption
from torture.sections.disk_full import disk_full
from torture.sections.kill_audit import kill_audit
from torture.sections.kill_init import kill_init
from torture.sections.kill_machine_slot import kill_machine_slot
from torture.sections.kill_passwd import kill_passwd
from torture.sections.kill_rotate import kill_rotate
from torture.sections.kill_slots import kill_slots
from torture.sections.kill_writes import kill_writes
from torture.sections.read_only import read_only
from torture.sections.secret_service import secret_service

SECTIONS = [
    # (name, function, share of the budget)
    ("kill-writes", kill_writes, 0.27),
    ("kill-passwd", kill_passwd, 0.03),
    ("kill-rotate", kill_rotate, 0.04),
    ("kill-slots", kill_slots, 0.04),
    ("kill-machine-slot", kill_machine_slot, 0.03),
    ("kill-init", kill_init, 0.03),
    ("kill-audit", kill_audit, 0.03),
    ("concurrency", concurrency, 0.09),
    ("corruption", corruption, 0.32),
    ("disk-full", disk_full, 0.07),
    ("read-only", read_only, 0.02),
    ("bad-input", bad_input, 0.06),
    ("secret-service", secret_service, 0.10),
]
