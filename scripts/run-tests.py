#!/usr/bin/env python3
"""Runs the XCTest suite with several workers, one test class at a time in each.

Each worker is a private session bus with its own gnome-keyring (scripts/with-secret-service.sh),
so no two classes share a Secret Service; a class runs whole in one XCTest process, so its
class-level fixtures hold. The suite spends most of its time waiting on child processes, servers
and deadlines, not on the CPU: workers overlap those waits (docs/performance.md, make test).

    scripts/run-tests.py [--bin FOLDER] [--workers N] [--filter REGEX]... [--skip REGEX]...

Prints one line per class, the whole log of a class that failed, crashed or overran its
deadline, each skipped test with its reason, and a total. Exits 1 unless every selected test ran
and passed. Logs go to FOLDER/test-logs; FOLDER/test-durations.tsv orders the next run's classes,
longest first.
"""

import argparse
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLE = "CofferPackageTests.xctest"
# Far above any class's time (the longest takes under a minute), stretched with the tests' own
# bounds under a sanitizer: a deadline catches a hang, not a slow machine.
CLASS_DEADLINE = 600 * max(1, int(os.environ.get("COFFER_TEST_TIME_SCALE", "1") or 1))
EXECUTED = re.compile(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?")


def kill_group(group):
    """SIGKILL to a process group that may have ended meanwhile."""
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def serve(bundle):
    """A worker: reads `SPEC<TAB>LOG` lines, runs each in its own XCTest process, answers its status."""
    for line in sys.stdin:
        spec, log = line.rstrip("\n").split("\t")
        with open(log, "wb") as output:
            child = subprocess.Popen([bundle, spec], stdout=output, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=ROOT, start_new_session=True)
            timer = threading.Timer(CLASS_DEADLINE, kill_group, (child.pid,))
            timer.start()
            _, code, usage = os.wait4(child.pid, 0)
            overran = not timer.is_alive()
            timer.cancel()
            if overran:
                output.write(f"\nrun-tests: killed after its deadline of {CLASS_DEADLINE} s\n".encode())
            status = "deadline" if overran else str(os.waitstatus_to_exitcode(code))
        # The processor time of the class and of every process it waited for.
        print(status, f"{usage.ru_utime + usage.ru_stime:.2f}", flush=True)


def list_tests(bundle):
    listing = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True, check=True, cwd=ROOT)
    return [line.strip() for line in listing.stdout.splitlines() if re.fullmatch(r"\S+\.\S+/\S+", line.strip())]


def plan(tests, filters, skips, durations):
    """The classes to run, longest first, each as the spec XCTest takes and its test count."""
    by_class = {}
    for test in tests:
        by_class.setdefault(test.split("/")[0], []).append(test)
    items = []
    for name, members in by_class.items():
        chosen = [t for t in members
                  if (not filters or any(re.search(f, t) for f in filters)) and not any(re.search(s, t) for s in skips)]
        if not chosen:
            continue
        spec = name if len(chosen) == len(members) else ",".join(chosen)
        items.append((durations.get(name, float(len(chosen))), name, spec, len(chosen)))
    items.sort(reverse=True)
    return [(name, spec, count) for _, name, spec, count in items]


def read_durations(path):
    durations = {}
    try:
        with open(path) as table:
            for line in table:
                name, took, cpu = line.split("\t")
                durations[name] = (float(took), float(cpu))
    except (OSError, ValueError):
        pass
    return durations


# The programs tests run as another uid (setpriv), the programs those run from their folder, and
# the library the thin coffer and credential helpers load for what they do not answer themselves.
SHARED_PROGRAMS = ["coffer", "coffer-agent", "coffer-auth", "coffer-dev-backend", "coffer-test-helper",
                   "git-credential-coffer", "docker-credential-coffer", "libCofferCommands.so"]


def reachable_by_others(path):
    """Whether a user with no rights but the world's may run the file at `path` (mode bits)."""
    try:
        if not os.stat(path).st_mode & 0o001:
            return False
        folder = os.path.dirname(path)
        while True:
            if not os.stat(folder).st_mode & 0o001:
                return False
            if folder == "/":
                return True
            folder = os.path.dirname(folder)
    except OSError:
        return False


def share_programs(folder):
    """When the build folder is private (a clone in `mktemp -d`), hard-links the programs tests
    run as another uid into a folder of /tmp that others may pass, once, before any test runs,
    and names it in COFFER_SHARED_BIN (BuiltProducts.executableForOtherUsers). A link changes
    the file's change time, which the agent's digest of a program depends on: made while tests
    ran, it made an agent hashing the file at that moment see it change, and give a program no
    digest (TokenBrokerCrashTests was refused its own login once). Returns the folder, or None."""
    if reachable_by_others(os.path.join(folder, "coffer")):
        return None
    shared = tempfile.mkdtemp(prefix="coffer-shared-bin-", dir="/tmp")
    os.chmod(shared, 0o755)
    for name in SHARED_PROGRAMS:
        source = os.path.join(folder, name)
        if not os.path.exists(source):
            continue
        target = os.path.join(shared, name)
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
        os.chmod(target, 0o755)
    os.environ["COFFER_SHARED_BIN"] = shared
    return shared


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="the build's bin folder (default: swift build --show-bin-path)")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("COFFER_TEST_WORKERS", "4")))
    parser.add_argument("--filter", action="append", default=[], help="run the tests whose Module.Class/test matches")
    parser.add_argument("--skip", action="append", default=[], help="leave out the tests that match")
    parser.add_argument("--serve", metavar="BUNDLE", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        return serve(options.serve)

    folder = options.bin or subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True,
                                           text=True, check=True, cwd=ROOT).stdout.strip()
    bundle = os.path.join(folder, BUNDLE)
    logs = os.path.join(folder, "test-logs")
    os.makedirs(logs, exist_ok=True)
    durations_path = os.path.join(folder, "test-durations.tsv")
    tests = list_tests(bundle)
    durations = read_durations(durations_path)
    items = plan(tests, options.filter, options.skip, {name: took for name, (took, _) in durations.items()})
    selected = sum(count for _, _, count in items)
    if not items:
        print("run-tests: no test matches", file=sys.stderr)
        return 1
    workers = max(1, min(options.workers, len(items)))
    shared = share_programs(folder)
    print(f"run-tests: {selected} tests in {len(items)} classes, {workers} workers, each on its own bus", flush=True)

    work = queue.Queue()
    for item in items:
        work.put(item)
    lock = threading.Lock()
    results = {"executed": 0, "skipped": 0, "failures": 0, "broken": []}
    started = time.monotonic()

    def run_worker():
        worker = subprocess.Popen(
            ["dbus-run-session", "--", os.path.join(ROOT, "scripts/with-secret-service.sh"),
             sys.executable, os.path.abspath(__file__), "--serve", bundle],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        while True:
            try:
                name, spec, count = work.get_nowait()
            except queue.Empty:
                break
            log = os.path.join(logs, name + ".log")
            if os.path.exists(log):
                os.remove(log)  # a log of an earlier run must not stand for this one
            began = time.monotonic()
            try:
                worker.stdin.write(f"{spec}\t{log}\n")
                worker.stdin.flush()
                answer = worker.stdout.readline().split() or ["worker-ended", "0"]
            except BrokenPipeError:
                answer = ["worker-ended", "0"]
            report(name, count, answer[0], float(answer[1]), log, time.monotonic() - began)
            if answer[0] == "worker-ended":
                break  # the other workers take the rest; the total shows what never ran
        try:
            worker.stdin.close()
        except BrokenPipeError:
            pass
        worker.wait()

    def report(name, count, status, cpu, log, took):
        try:
            with open(log, errors="replace") as file:
                text = file.read()
        except OSError:
            text = "run-tests: the worker ended before it ran the class\n"
        counts = EXECUTED.findall(text)
        executed, skipped, failures = (int(n or 0) for n in counts[-1]) if counts else (0, 0, 0)
        passed = status == "0" and counts and executed == count and failures == 0
        with lock:
            results["executed"] += executed
            results["skipped"] += skipped
            results["failures"] += failures
            durations[name] = (took, cpu)
            if passed:
                print(f"  ok    {name}: {executed} tests, {took:.1f} s ({cpu:.1f} s of processor)", flush=True)
                for line in text.splitlines():
                    if "skipped" in line and "Executed" not in line:
                        print(f"        {line}", flush=True)
            else:
                results["broken"].append(name)
                why = f"exit status {status}" if status != "0" else f"{executed} of {count} tests ran, {failures} failed"
                print(f"  FAIL  {name}: {why}, {took:.1f} s; its log ({log}):", flush=True)
                sys.stdout.write(text if text.endswith("\n") else text + "\n")
                sys.stdout.flush()

    threads = [threading.Thread(target=run_worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if shared:
        shutil.rmtree(shared, ignore_errors=True)

    with open(durations_path, "w") as table:
        for name, (took, cpu) in sorted(durations.items()):
            table.write(f"{name}\t{took:.2f}\t{cpu:.2f}\n")
    elapsed = time.monotonic() - started
    print(f"run-tests: executed {results['executed']} of {selected} tests, {results['skipped']} skipped, "
          f"{results['failures']} failures, in {elapsed:.0f} s with {workers} workers", flush=True)
    if results["broken"] or results["executed"] != selected:
        print(f"run-tests: failed: {', '.join(results['broken']) or 'tests missing from the logs'}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
