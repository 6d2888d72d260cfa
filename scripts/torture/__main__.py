"""The campaign's command line: `python3 scripts/torture --coffer PATH [--profile bounded]
[--seed N] [--only SECTIONS]`, or `python3 -m torture` with scripts/ on PYTHONPATH."""

import argparse
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback

if not __package__:  # run as `python3 scripts/torture`: import the package from scripts/
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import torture  # noqa: E402
from torture.campaign import Campaign  # noqa: E402
from torture.profiles import PROFILES, SCALED  # noqa: E402
from torture.results import Section, print_section, report  # noqa: E402
from torture.sections import SECTIONS  # noqa: E402


def main():
    parser = argparse.ArgumentParser(prog="python3 scripts/torture", description=torture.__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--coffer", required=True, help="the coffer binary")
    parser.add_argument("--helper", help="coffer-test-helper, for kill-audit (default: beside --coffer)")
    parser.add_argument("--seed", type=int, help="replay this seed (default: random, printed first)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full")
    parser.add_argument("--budget", type=float, help="seconds for the whole campaign (default: the profile's)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds before a command counts as hung")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every trial count")
    parser.add_argument("--only", help="comma-separated sections to run: " + ",".join(n for n, _, _ in SECTIONS))
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--verbose", action="store_true", help="print every command and its outcome")
    args = parser.parse_args()
    Section.verbose = args.verbose
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2**32)
    print(f"torture: seed {args.seed} (replay: make torture TORTURE=\"--profile {args.profile} --seed {args.seed}\", "
          f"or python3 scripts/torture --coffer PATH --profile {args.profile} --seed {args.seed})", flush=True)
    args.coffer = os.path.abspath(args.coffer)
    args.helper = os.path.abspath(args.helper or os.path.join(os.path.dirname(args.coffer), "coffer-test-helper"))
    if not os.access(args.coffer, os.X_OK):
        parser.error(f"{args.coffer} is not an executable")
    P = dict(PROFILES[args.profile])
    for name in SCALED:
        P[name] = max(1, int(P[name] * args.scale))
    budget = args.budget or P["budget"]
    only = set(args.only.split(",")) if args.only else None
    if only and only - {n for n, _, _ in SECTIONS}:
        parser.error(f"unknown section: {', '.join(sorted(only - {n for n, _, _ in SECTIONS}))}")
    os.umask(0o077)
    root = tempfile.mkdtemp(prefix="coffer-torture-")
    os.chmod(root, 0o700)
    campaign = Campaign(args, root)

    def stop(signum, _frame):
        campaign.runner.kill_all()  # at once, so worker threads stop starting commands too
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    started = time.monotonic()
    sections = []
    interrupted = False
    try:
        chosen = [s for s in SECTIONS if not only or s[0] in only]
        share_total = sum(share for _, _, share in chosen)
        for name, function, share in chosen:
            sec = Section(name)
            sections.append(sec)
            begin = time.monotonic()
            print(f"\n-- {name} ...", flush=True)
            try:
                function(campaign, sec, P, begin + budget * share / share_total)
            except Exception as error:  # a broken scenario is a failure of the run, not a silent pass
                sec.fail("unexpected", f"the scenario itself failed: {type(error).__name__}: {error}")
                traceback.print_exc()
            sec.seconds = time.monotonic() - begin
            print_section(sec)
    except KeyboardInterrupt:
        interrupted = True
        print("\ntorture: interrupted", file=sys.stderr)
    finally:
        campaign.cleanup()
        if args.keep:
            print(f"torture: scratch kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    totals = report(sections, args.seed, time.monotonic() - started)
    if campaign.failure_dir:
        print(f"torture: failing copies kept in {campaign.failure_dir}")
    failed = any(totals[k] for k in Section.FAILURES)
    if failed or interrupted:
        print(f"torture: FAILED (replay with --seed {args.seed})")
        return 1
    print("torture: passed: nothing lost, no wrong data, no crash, no hang")
    return 0


sys.exit(main())
