"""Running one `coffer` command: its own process group, a timeout, a kill at a chosen moment."""

import contextlib
import os
import signal
import subprocess
import threading
import time


# Exit statuses `coffer --help` documents for the vault commands.
DOCUMENTED = {0, 1, 2, 3, 64, 65, 66, 69, 70, 73, 74, 75, 77}
MAX_SECRET = 1 << 20  # Limits.maxSecretBytes


class Outcome:
    """One finished command: its exit status or signal, output, and whether it hung."""

    __slots__ = ("argv", "status", "signal", "hung", "killed", "out", "err", "seconds")

    def __init__(self, argv, status, sig, hung, killed, out, err, seconds):
        self.argv, self.status, self.signal, self.hung, self.killed = argv, status, sig, hung, killed
        self.out, self.err, self.seconds = out or b"", err or b"", seconds

    @property
    def label(self):
        if self.hung:
            return "hang"
        if self.killed:
            return "killed"
        if self.signal is not None:
            return signal.Signals(self.signal).name
        return str(self.status)

    def describe(self):
        err = self.err.decode("utf-8", "replace").strip().splitlines()
        return f"{self.label} ({err[-1][:160] if err else 'no stderr'})"


class Runner:
    """Starts every command in its own process group and kills what is left on exit."""

    def __init__(self, coffer, base_env, timeout):
        self.coffer = coffer
        self.base_env = base_env
        self.timeout = timeout
        self.live = set()
        self.lock = threading.Lock()
        self.stopping = False

    def env(self, **extra):
        env = dict(self.base_env)
        for key, value in extra.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def run(self, args, env=None, stdin=b"", kill_after=None, timeout=None, pass_fds=(),
            stdout=subprocess.PIPE, shell_redirect=None, program=None):
        """Runs `coffer args` (or `program args`). kill_after: SIGKILL the process group after that
        many seconds.

        shell_redirect: a /bin/sh redirection applied with `exec` (e.g. ">&-"), so the command
        keeps the shell's pid and its own exit status or signal.
        """
        if self.stopping:
            raise KeyboardInterrupt("the campaign is stopping")
        argv = [program or self.coffer] + list(args)
        if shell_redirect is not None:
            argv = ["/bin/sh", "-c", 'exec "$@" ' + shell_redirect, "sh"] + argv
        timeout = timeout or self.timeout
        stdin_arg = subprocess.PIPE if isinstance(stdin, (bytes, bytearray)) else stdin
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdin=stdin_arg, stdout=stdout, stderr=subprocess.PIPE,
                                env=env if env is not None else self.base_env, pass_fds=pass_fds,
                                start_new_session=True, close_fds=True)
        with self.lock:
            self.live.add(proc)
        hung = killed = False
        data = stdin if stdin_arg is subprocess.PIPE else None
        try:
            limit = timeout if kill_after is None else min(kill_after, timeout)
            try:
                out, err = proc.communicate(data, timeout=limit)
            except subprocess.TimeoutExpired:
                if kill_after is not None and kill_after < timeout:
                    killed = True
                else:
                    hung = True
                self._kill(proc)
                out, err = proc.communicate()
        finally:
            with self.lock:
                self.live.discard(proc)
        if self.stopping:  # killed by kill_all(): not an outcome to count
            raise KeyboardInterrupt("the campaign is stopping")
        code = proc.returncode
        sig = -code if code < 0 else None
        if killed and sig != signal.SIGKILL:
            killed = False  # it finished on its own just before the kill landed
        return Outcome(argv, None if sig else code, sig, hung, killed, out, err, time.monotonic() - started)

    @staticmethod
    def _kill(proc):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def kill_all(self):
        """Kills every running command; no new one starts after this."""
        with self.lock:
            self.stopping = True
            for proc in list(self.live):
                self._kill(proc)
