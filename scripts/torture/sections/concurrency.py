"""The concurrency section. N processes x M operations (set/get/delete/list, own and shared items) on
one vault: no lost write, no wrong read, no "busy" (69) or "no vault" (66); then N writers at once
with one write in five killed (perhaps holding the write lock): the others never see "busy", every
acknowledged write survives; then N simultaneous `init`s of one path: exactly one succeeds, the
others get 73.
"""

import concurrent.futures
import os
import random
import threading
import time

from torture.campaign import secret, verify_account


def concurrency(c, sec, P, deadline):
    """N processes at once on one vault; then N simultaneous inits of one path."""
    rng = c.rng("concurrency")
    vault, key, stable = c.new_vault(sec, rng, items=8)
    env = c.env(vault, key)
    workers, ops = P["workers"], P["ops"]
    shared_written = set()
    shared_lock = threading.Lock()
    timeout = max(c.args.timeout, 60)  # above the vault's 30 s busy timeout
    seeds = [rng.getrandbits(64) for _ in range(workers)]
    models = [dict() for _ in range(workers)]

    def worker(w):
        wrng = random.Random(seeds[w])
        model = models[w]
        own = [f"w{w}-{i}" for i in range(5)]
        for i in range(ops):
            if time.monotonic() > deadline:
                sec.stopped_early = "budget reached during the operations"
                return
            roll = wrng.random()
            account = wrng.choice(own)
            if roll < 0.35:
                value = f"w{w}.{i}:".encode() + secret(wrng, 1, 200)
                out = c.run(["set", "svc", account], env=env, stdin=value, timeout=timeout)
                sec.record(out, {0}, "set")
                if out.status == 0:
                    model[account] = value
                    sec.fact("acknowledged writes")
            elif roll < 0.55:
                c.expect_value(sec, env, account, model.get(account), "get own")
            elif roll < 0.65:
                out = c.run(["delete", "svc", account], env=env, timeout=timeout)
                expected = 0 if model.get(account) is not None else 1
                sec.record(out, {expected}, "delete own")
                if out.status == 0:
                    model[account] = None
            elif roll < 0.75:
                account = wrng.choice(sorted(stable))
                c.expect_value(sec, env, account, stable[account], "get stable")
            elif roll < 0.85:
                out = c.run(["list"], env=env, timeout=timeout)
                sec.record(out, {0}, "list")
                lines = out.out.count(b"\n")
                if out.status == 0 and lines < len(stable):
                    sec.fail("lost", f"list printed {lines} items, fewer than the {len(stable)} stable ones")
            elif roll < 0.93:
                value = f"shared w{w}.{i}".encode()
                with shared_lock:
                    shared_written.add(value)
                out = c.run(["set", "svc", "shared"], env=env, stdin=value, timeout=timeout)
                sec.record(out, {0}, "set shared")
            else:
                out = c.run(["get", "svc", "shared"], env=env, timeout=timeout)
                sec.record(out, {0, 1}, "get shared")
                with shared_lock:
                    if out.status == 0 and out.out not in shared_written:
                        sec.fail("wrong", "shared item read back a value nobody wrote")
            sec.fact("operations")

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for future in [pool.submit(worker, w) for w in range(workers)]:
            future.result()
    for w, model in enumerate(models):
        for account, value in sorted(model.items()):
            c.expect_value(sec, env, account, value, "final pass")
    for account, value in stable.items():
        c.expect_value(sec, env, account, value, "final pass")
    c.expect_opens(sec, env, "final")

    # N writers at once, some of them killed mid-write (perhaps holding the write lock): the
    # others must not see "busy" or a broken vault, and every acknowledged write survives.
    killed_writers(c, sec, P, deadline, env, seeds, timeout)

    # Simultaneous creation of one vault: one wins, the rest are told it exists.
    folder = c.mkdir("race")
    racekey = c.keyfile(folder, rng)
    for round_ in range(P["init_races"]):
        vault = os.path.join(folder, f"r{round_}.vault")
        renv = c.env(vault, racekey)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            outs = list(pool.map(lambda _: c.run(["init"], env=renv, timeout=timeout), range(workers)))
        for out in outs:
            sec.record(out, {0, 73}, f"init race {round_}")
        winners = sum(out.status == 0 for out in outs)
        sec.fact("init races")
        if winners != 1:
            sec.fail("unexpected", f"init race {round_}: {winners} of {workers} inits exited 0")
        c.expect_opens(sec, renv, f"init race {round_}")
    for status, meaning in ((66, "no vault"), (69, "busy or storage")):
        sec.fact(f"status {status} ({meaning}) seen", sec.statuses.get(str(status), 0))


def killed_writers(c, sec, P, deadline, env, seeds, timeout):
    known = {}
    maybe = {}
    lock = threading.Lock()

    def writer(w):
        wrng = random.Random(seeds[w] ^ 0x5EED)
        own = [f"k{w}-{i}" for i in range(5)]
        for i in range(P["kill_ops"]):
            if time.monotonic() > deadline:
                sec.stopped_early = "budget reached during the killed writers"
                return
            account = wrng.choice(own)
            value = f"k{w}.{i}:".encode() + secret(wrng, 1, 300)
            kill = wrng.random() < 0.2
            out = c.run(["set", "svc", account], env=env, stdin=value, timeout=timeout,
                        kill_after=wrng.uniform(0, 0.08) if kill else None)
            sec.record(out, {0}, "killed writers: set")
            with lock:
                before = maybe.pop(account, {known.get(account)})
                if out.killed:
                    sec.fact("killed writers: killed in flight")
                    maybe[account] = before | {value}
                elif out.status == 0:
                    sec.fact("killed writers: acknowledged writes")
                    known[account] = value
                else:
                    maybe[account] = before

    with concurrent.futures.ThreadPoolExecutor(len(seeds)) as pool:
        for future in [pool.submit(writer, w) for w in range(len(seeds))]:
            future.result()
    c.expect_opens(sec, env, "after the killed writers")
    for account in sorted(set(known) | set(maybe)):
        verify_account(c, sec, env, account, known, maybe, "after the killed writers")
