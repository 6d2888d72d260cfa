"""The bad-input section. Closed, misdirected and oversized descriptors (--passphrase-fd, stdin,
stdout, stderr, /dev/full, a broken pipe), invalid UTF-8 in argv and environment, absurd
"""

import os
import shutil
import subprocess
import time

from torture.runner import MAX_SECRET
from torture.campaign import files_of, write_pipe


def bad_input(c, sec, P, deadline):
    """Every odd descriptor and argument ends with a documented status, never a crash or hang."""
    rng = c.rng("bad-input")
    vault, key, items = c.new_vault(sec, rng, items=2)
    folder = os.path.dirname(vault)
    env = c.env(vault, key)
    value = items["item-0"]
    fifo = os.path.join(folder, "fifo")
    os.mkfifo(fifo, 0o600)
    directory = c.mkdir("a-directory")
    link = os.path.join(folder, "link.vault")
    os.symlink(vault, link)
    keylink = os.path.join(folder, "key-link")
    os.symlink(key, keylink)
    loop = os.path.join(folder, "loop")
    os.symlink(loop, loop)
    short_key = os.path.join(folder, "short-key")
    with open(short_key, "wb") as f:
        f.write(b"short")
    os.chmod(short_key, 0o600)
    loose_key = os.path.join(folder, "loose-key")
    shutil.copy(key, loose_key)
    os.chmod(loose_key, 0o644)
    loose = c.mkdir("loose")
    loose_vault = os.path.join(loose, "v.vault")
    shutil.copy(vault, loose_vault)
    os.chmod(loose_vault, 0o644)
    pvault = os.path.join(c.mkdir("pass"), "v.vault")
    sec.record(c.run(["init", "--kdf", "interactive"], env=c.env(pvault, COFFER_PASSPHRASE="pw")), {0}, "init")
    vault_fd = os.open(vault, os.O_RDONLY)
    big = os.path.join(folder, "big")
    with open(big, "wb") as f:
        f.write(b"p" * (MAX_SECRET + 10))
    big_fd = os.open(big, os.O_RDONLY)

    def case(name, args, expect, env=env, stdin=b"", check=None, sigpipe_ok=False, **kwargs):
        out = c.run(args, env=env, stdin=stdin, timeout=20, **kwargs)
        sec.record(out, expect, name, sigpipe_ok=sigpipe_ok)
        sec.fact("cases")
        if check and out.status == 0:
            check(out, name)
        return out

    def same_secret(out, name):
        if out.out != value:
            sec.fail("wrong", f"{name}: get printed the wrong bytes")

    nul = subprocess.DEVNULL
    penv = c.env(pvault)
    # Descriptors.
    case("passphrase fd closed", ["list", "--passphrase-fd", "9"], {64}, env=penv)
    case("passphrase fd on another vault's file", ["list", "--passphrase-fd", str(vault_fd)], {2, 64},
         env=c.env(pvault), pass_fds=[vault_fd])
    r = os.open(pvault, os.O_RDONLY)
    case("passphrase fd on its own vault", ["list", "--vault", pvault, "--passphrase-fd", str(r)], {64},
         env=c.env(), pass_fds=[r])
    os.close(r)
    r = write_pipe(b"")
    case("passphrase fd empty", ["list", "--passphrase-fd", str(r)], {64}, env=penv, pass_fds=[r])
    os.close(r)
    case("passphrase fd over 1 MiB", ["list", "--passphrase-fd", str(big_fd)], {64}, env=penv, pass_fds=[big_fd])
    for bad in ("-1", "99999", "abc", "2147483648", "1", "2"):
        case(f"passphrase fd {bad}", ["list", "--passphrase-fd", bad], {2, 64}, env=penv)
    r = write_pipe(b"wrong")
    case("wrong passphrase by fd", ["list", "--passphrase-fd", str(r)], {2}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"\xff\xfe")
    case("passphrase fd not UTF-8", ["list", "--passphrase-fd", str(r)], {2, 64, 65}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"pw\n")
    case("right passphrase by fd", ["list", "--passphrase-fd", str(r)], {0}, env=penv, pass_fds=[r])
    os.close(r)
    r = write_pipe(b"x")
    case("new passphrase fd closed", ["passwd", "--new-passphrase-fd", "9"], {64},
         env=c.env(pvault, COFFER_PASSPHRASE="pw"))
    case("new passphrase fd = passphrase fd", ["passwd", "--passphrase-fd", str(r), "--new-passphrase-fd", str(r)],
         {2, 64}, env=c.env(pvault), pass_fds=[r])
    os.close(r)
    case("no passphrase, no terminal", ["list"], {2}, env=penv, stdin=nul)
    case("stdout closed: get", ["get", "svc", "item-0"], {74}, shell_redirect=">&-")
    case("stdout closed: list", ["list"], {74}, shell_redirect=">&-")
    case("stdout closed: set", ["set", "svc", "quiet"], {0}, stdin=b"v", shell_redirect=">&-")
    case("stdout /dev/full: get", ["get", "svc", "item-0"], {74}, shell_redirect=">/dev/full")
    case("stdout /dev/full: check", ["check"], {74}, shell_redirect=">/dev/full")
    case("stderr closed, item missing", ["get", "svc", "missing"], {1}, shell_redirect="2>&-")
    case("stderr /dev/full, item missing", ["get", "svc", "missing"], {1}, shell_redirect="2>/dev/full")
    case("stdin, stdout, stderr closed", ["get", "svc", "item-0"], {74}, shell_redirect="<&- >&- 2>&-")
    case("stdin closed: set", ["set", "svc", "x"], {64}, shell_redirect="<&-")
    case("stdin closed: get", ["get", "svc", "item-0"], {0}, check=same_secret, shell_redirect="<&-")
    case("stdin a directory: set", ["set", "svc", "x"], {64, 65, 70}, shell_redirect=f"<{directory}")
    case("stdin /dev/zero: set", ["set", "svc", "x"], {65}, shell_redirect="</dev/zero")
    case("stdin the vault: set", ["set", "svc", "self"], {0, 64, 65}, shell_redirect=f"<{vault}")
    # Sizes.
    exact = rng.randbytes(MAX_SECRET)
    out = case("secret of exactly 1 MiB", ["set", "svc", "exact"], {0}, stdin=exact)
    if out.status == 0:
        case("get 1 MiB", ["get", "svc", "exact"], {0}, check=lambda o, n: o.out == exact or sec.fail("wrong", n))
    case("secret of 1 MiB + 1", ["set", "svc", "over"], {65}, stdin=exact + b"x")
    case("secret of 5 MiB", ["set", "svc", "over"], {65}, stdin=rng.randbytes(5 * MAX_SECRET))
    case("item over the limit absent", ["get", "svc", "over"], {1})
    binary = bytes(range(256)) * 3
    case("binary secret", ["set", "svc", "binary"], {0}, stdin=binary)
    case("binary secret back", ["get", "svc", "binary"], {0}, check=lambda o, n: o.out == binary or sec.fail("wrong", n))
    case("empty secret", ["set", "svc", "empty"], {0, 64, 65}, stdin=b"")
    for n in ("0", "-1", "1000000000001", "10000000000000", str(2**63 - 1), str(2**63), str(2**64), "1e9", "nan", ""):
        case(f"--expires-in {n}", ["set", "svc", "exp", "--expires-in", n], {64}, stdin=b"v")
    case("--expires-in 10^12", ["set", "svc", "exp", "--expires-in", "1000000000000"], {0}, stdin=b"v")
    case("get the item expiring in 10^12 s", ["get", "svc", "exp"], {0})
    long_name = "s" * 100000
    case("very long service", ["set", long_name, "a"], {0, 64, 65}, stdin=b"v")
    case("very long label", ["set", "svc", "lbl", "--label", "l" * 120000], {0, 64, 65}, stdin=b"v")
    case("many attributes", ["set", "svc", "attrs"] + [f"--attribute=k{i}=v" for i in range(3000)], {0, 64, 65}, stdin=b"v")
    case("attribute without =", ["set", "svc", "attrs", "--attribute", "novalue"], {64}, stdin=b"v")
    # Encoding.
    case("argv not UTF-8", ["get", b"svc\xff", "item-0"], {64})
    case("argv not UTF-8 (set)", ["set", "svc", b"\xc3\x28"], {64}, stdin=b"v")
    case("argv with NUL-free control bytes", ["set", "svc\x01\x1b[31m", "acct\n"], {0}, stdin=b"v")
    case("list escapes control bytes", ["list"], {0},
         check=lambda o, n: b"\x1b" not in o.out or sec.fail("wrong", f"{n}: list printed a raw escape"))
    case("$COFFER_VAULT not UTF-8", ["list"], {64}, env=dict(env, COFFER_VAULT=os.fsencode(vault) + b"\xff"))
    case("$COFFER_PASSPHRASE not UTF-8", ["list"], {64}, env=c.env(pvault, COFFER_PASSPHRASE=b"pw\xff"))
    case("$HOME not UTF-8", ["list"], {0, 64}, env=dict(env, HOME=b"/tmp/\xff"))
    case("$COFFER_VAULT empty, $XDG_DATA_HOME not UTF-8", ["list"], {64, 66},
         env=dict(env, COFFER_VAULT="", XDG_DATA_HOME=b"/\xfe"))
    case("$COFFER_BACKEND bogus", ["list"], {64}, env=dict(env, COFFER_BACKEND="bogus"))
    case("$COFFER_UNLOCK bogus", ["list"], {64}, env=dict(env, COFFER_UNLOCK="bogus"))
    case("Secret Service without a bus", ["list", "--backend", "secret-service"], {69})
    case("--unlock secret-service without a bus", ["list", "--unlock", "secret-service"], {2, 69})
    # Files.
    case("vault is a FIFO", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(fifo, key))
    case("key file is a FIFO", ["list"], {2, 64, 77}, env=c.env(vault, fifo))
    case("vault is a directory", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(directory, key))
    case("vault is /dev/null", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env("/dev/null", key))
    case("vault is /dev/zero", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env("/dev/zero", key))
    case("key file is /dev/zero", ["list"], {2, 64, 77}, env=c.env(vault, "/dev/zero"))
    case("key file is /dev/null", ["list"], {2, 64, 77}, env=c.env(vault, "/dev/null"))
    case("key file is a directory", ["list"], {2, 64, 69, 77}, env=c.env(vault, directory))
    case("key file is short", ["list"], {2, 64}, env=c.env(vault, short_key))
    case("key file readable by others", ["list"], {77}, env=c.env(vault, loose_key))
    case("key file missing", ["list"], {2, 64}, env=c.env(vault, os.path.join(folder, "nope")))
    case("key file through a symlink", ["get", "svc", "item-0"], {0, 77}, env=c.env(vault, keylink), check=same_secret)
    case("vault through a symlink", ["get", "svc", "item-0"], {0}, env=c.env(link, key), check=same_secret)
    case("vault symlink loop", ["list"], {3, 64, 66, 69, 70, 77}, env=c.env(loop, key))
    case("vault readable by others", ["list"], {77}, env=c.env(loose_vault, key))
    case("vault missing", ["list"], {66}, env=c.env(os.path.join(folder, "nope.vault"), key))
    case("vault in a missing folder", ["get", "svc", "x"], {66}, env=c.env(os.path.join(folder, "a/b/c.vault"), key))
    case("init over an existing vault", ["init"], {73})
    case("init over a FIFO", ["init"], {64, 69, 70, 73, 77}, env=c.env(fifo, key))
    case("init over a directory", ["init"], {64, 69, 70, 73, 77}, env=c.env(directory, key))
    case("init with a short key file", ["init"], {64}, env=c.env(os.path.join(c.mkdir("short"), "v.vault"), short_key))
    case("vault path empty", ["list", "--vault", ""], {0, 64, 66})
    case("vault path with NUL-like escape", ["list", "--vault", folder + "/\\0"], {66})
    case("key file is the vault", ["list"], {2, 64, 77}, env=c.env(vault, vault))
    case("get still fine", ["get", "svc", "item-0"], {0}, check=same_secret)
    os.close(vault_fd)
    os.close(big_fd)
    # A broken pipe: the process may end by SIGPIPE (documented) or exit 74.
    r, w = os.pipe()
    os.close(r)
    case("stdout a broken pipe", ["get", "svc", "exact"], {74}, stdout=w, sigpipe_ok=True)
    os.close(w)
    argv_fuzz(c, sec, P, deadline, rng, vault, key, fifo, directory, link, loop)
    c.expect_opens(sec, env, "after bad input")


# The fuzz grammar: each command with its positional arguments and the options it takes;
# every command also takes the root's options.
FUZZ_COMMANDS = {
    "init": (0, ["--kdf", "--secret-service-slot"]),
    "set": (2, ["--label", "--comment", "--expires-in", "--attribute", "--internet"]),
    "get": (2, ["--internet"]),
    "delete": (2, ["--internet"]),
    "list": (0, ["--service", "--json"]),
    "passwd": (0, ["--new-passphrase-fd", "--kdf"]),
    "slots": (0, []),
    "slots list": (0, []),
    "slots add": (0, ["--add-keyfile", "--add-passphrase", "--add-secret-service", "--new-passphrase-fd", "--kdf"]),
    "slots remove": (1, []),
    "rotate-key": (0, ["--also-keyfile", "--also-passphrase-fd"]),
    "check": (0, []),
    "doctor": (0, []),
    "help": (1, []),
    "--help": (0, []),
    "bogus": (0, []),
}
ROOT_OPTIONS = ["--vault", "--keyfile", "--passphrase-fd", "--backend", "--unlock", "--secret-service-timeout"]


def argv_fuzz(c, sec, P, deadline, rng, vault, key, fifo, directory, link, loop):
    """Random argument vectors from a small grammar, on a copy of the vault that is reset now and then."""
    folder = c.mkdir("fuzz")
    copy = os.path.join(folder, "v.vault")
    fkey = os.path.join(folder, "key")
    shutil.copy2(key, fkey)

    def reset():
        for path in files_of(copy):
            os.unlink(path)
        shutil.copy2(vault, copy)

    reset()
    paths = [copy, fkey, link, loop, fifo, directory, "/dev/null", "/dev/zero", os.path.join(folder, "new.vault"),
             os.path.join(folder, "deep/er/new.vault"), os.path.join(folder, "new-key"), ""]
    words = ["svc", "item-0", "item-1", "svc", "item-0", "", "-", "--", "-x", "a" * 5000, "ü€\u200b", "\x1b[2J",
             "\n", " ", b"\xff", b"\xc0\xaf", "%s%n", "../../etc/passwd", "0", "-1", "1", "2", "65", str(2**63),
             "1e308", "nan"]
    fds = ["0", "3", "9", "-1", "x", str(2**40)]
    values = {
        "--vault": paths, "--keyfile": paths, "--passphrase-fd": fds, "--new-passphrase-fd": fds,
        "--also-passphrase-fd": fds, "--kdf": ["interactive", "bogus", ""], "--label": words, "--comment": words,
        "--expires-in": ["1", "0", "-5", str(2**63), "x", "1000000000000"],
        "--attribute": ["a=b", "=", "novalue", "x=" + "y" * 3000, "k=ü"], "--service": words,
        "--unlock": ["keyfile", "passphrase", "secret-service", "keyfile,passphrase", "x", ""],
        "--backend": ["vault", "vault", "secret-service", "x"],
        "--secret-service-timeout": ["0.5", "5", "0.5", "0", "-1", "1e9", "x"],
        "--add-keyfile": paths, "--also-keyfile": paths,
    }
    every_option = sorted(set(ROOT_OPTIONS) | {o for _, opts in FUZZ_COMMANDS.values() for o in opts})
    for i in range(P["fuzz"]):
        if time.monotonic() > deadline:
            sec.stopped_early = f"budget reached after {i} of {P['fuzz']} random argument vectors"
            break
        command = rng.choice(sorted(FUZZ_COMMANDS))
        positional, own = FUZZ_COMMANDS[command]
        argv = command.split()
        tail = [rng.choice(words[:5] if rng.random() < 0.8 else words) for _ in range(positional)]
        if rng.random() < 0.1:
            tail = tail[:-1] if tail else [rng.choice(words)]  # one too few or too many
        for _ in range(rng.randint(0, 4)):
            pool = own + ROOT_OPTIONS if own and rng.random() < 0.85 else every_option
            name = rng.choice(pool if rng.random() < 0.9 else ROOT_OPTIONS)
            tail.append(name)
            if name in values and rng.random() < 0.95:
                tail.append(rng.choice(values[name]))
        argv += tail
        if command == "init" and "--kdf" not in argv:
            argv += ["--kdf", "interactive"]  # keep Argon2id cheap
        env = c.env(copy if rng.random() < 0.85 else None, fkey if rng.random() < 0.75 else None)
        if rng.random() < 0.2:
            env["COFFER_PASSPHRASE"] = rng.choice(["pw", "", "ü"])
        if rng.random() < 0.1:
            env["COFFER_NEW_PASSPHRASE"] = rng.choice(["new", ""])
        pipes = []
        if rng.random() < 0.4:  # a readable descriptor for the *-fd options to name
            pipes = [write_pipe(rng.choice([b"pw", b"", rng.randbytes(rng.randint(1, 64))]))]
            argv = [str(pipes[0]) if a == "3" else a for a in argv]
        stdin = rng.choice([b"", b"secret", rng.randbytes(rng.randint(0, 2000)), subprocess.DEVNULL])
        out = c.run(argv, env=env, stdin=stdin, pass_fds=pipes, timeout=20)
        for fd in pipes:
            os.close(fd)
        sec.record(out, None, f"fuzz {i}")
        sec.fact("random argument vectors")
        sec.fact(f"random argument vectors -> {out.label}")
        if rng.random() < 0.05 or not os.path.exists(copy):
            reset()
