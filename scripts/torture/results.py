"""What the campaign counts, section by section, and the summary it prints."""

import collections
import signal
import sys
import threading

from torture.runner import DOCUMENTED


class Section:
    """Counts for one scenario: status histogram, failures by kind, facts worth printing."""

    FAILURES = ("lost", "wrong", "crashes", "hangs", "unexpected")

    verbose = False

    def __init__(self, name):
        self.name = name
        self.statuses = collections.Counter()
        self.failures = collections.Counter()
        self.facts = collections.Counter()
        self.examples = []
        self.details = []
        self.skipped = None
        self.stopped_early = None
        self.seconds = 0.0
        self.lock = threading.Lock()

    def fact(self, name, count=1):
        with self.lock:
            self.facts[name] += count

    def fail(self, kind, text):
        with self.lock:
            self.failures[kind] += 1
            if len(self.examples) < 25:
                self.examples.append(f"{kind}: {text}")

    def record(self, outcome, expect=None, what="", sigpipe_ok=False):
        """Counts an outcome; a crash, hang, undocumented or unexpected status is a failure."""
        with self.lock:
            self.statuses[outcome.label] += 1
        where = f"{what}: `{shown(outcome.argv)}` -> {outcome.describe()}"
        if Section.verbose:
            print(f"   [{self.name}] {where}", flush=True)
        if outcome.hung:
            self.fail("hangs", where)
        elif outcome.killed:
            pass
        elif outcome.signal is not None:
            if not (sigpipe_ok and outcome.signal == signal.SIGPIPE):
                self.fail("crashes", where)
        elif outcome.status not in DOCUMENTED:
            self.fail("unexpected", "undocumented status, " + where)
        elif expect is not None and outcome.status not in expect:
            self.fail("unexpected", f"expected {sorted(expect)}, " + where)
        return outcome

    @property
    def failed(self):
        return any(self.failures[k] for k in self.FAILURES)


def shown(argv):
    parts = []
    for arg in argv[-8:]:
        text = arg.decode("utf-8", "backslashreplace") if isinstance(arg, bytes) else str(arg)
        parts.append(text if len(text) < 60 else text[:57] + "...")
    return " ".join(parts)


def report(sections, seed, seconds):
    print()
    print(f"torture: summary (seed {seed}, {seconds:.0f} s)")
    header = f"{'section':<13}{'lost':>6}{'wrong':>7}{'crash':>7}{'hang':>6}{'unexp':>7}  {'time':>6}  exit statuses"
    print(header)
    print("-" * len(header))
    totals = collections.Counter()
    for sec in sections:
        for kind in Section.FAILURES:
            totals[kind] += sec.failures[kind]
        statuses = " ".join(f"{k}:{v}" for k, v in sorted(sec.statuses.items(), key=status_order))
        if sec.skipped:
            statuses = f"skipped: {sec.skipped}" + (f"; {statuses}" if statuses else "")
        f = sec.failures
        print(f"{sec.name:<13}{f['lost']:>6}{f['wrong']:>7}{f['crashes']:>7}{f['hangs']:>6}{f['unexpected']:>7}"
              f"  {sec.seconds:>5.0f}s  {statuses}")
    print("-" * len(header))
    print(f"{'total':<13}{totals['lost']:>6}{totals['wrong']:>7}{totals['crashes']:>7}{totals['hangs']:>6}"
          f"{totals['unexpected']:>7}")
    return totals


def status_order(item):
    key = item[0]
    return (0, int(key)) if key.isdigit() else (1, key)


def print_section(sec):
    state = "FAIL" if sec.failed else "skipped" if sec.skipped else "ok"
    print(f"\n== {sec.name}: {state} ({sec.seconds:.0f} s)", flush=True)
    if sec.skipped:
        print(f"   skipped: {sec.skipped}")
    if sec.stopped_early:
        print(f"   stopped early: {sec.stopped_early}")
    for name, count in sorted(sec.facts.items()):
        print(f"   {name}: {count}")
    for line in sec.details:
        print(f"   {line}")
    print("   exit statuses: " + (" ".join(f"{k}:{v}" for k, v in sorted(sec.statuses.items(), key=status_order)) or "none"))
    for line in sec.examples:
        print(f"   {line}")
    sys.stdout.flush()
