#!/usr/bin/env python3
"""Runs a program on a pseudo-terminal, sends it a signal while it shows a hidden prompt, and
reports the terminal's echo flag before, during and after.

Usage: signal_at_prompt.py PROMPT SIGNAL ANSWER PROGRAM [ARGUMENT...]

SIGNAL is INT or TSTP (typed as Ctrl-C or Ctrl-Z, as a user would) or TERM or HUP (sent with
kill). The program runs in a process group of its own in the terminal's foreground, as a shell
with job control runs it, so Ctrl-Z really stops it. After a stop the program is continued and
ANSWER is typed at the prompt. Prints one JSON object:
  echo_at_prompt   whether echo was on while the prompt waited (it must not be)
  echo_after       whether echo was on once the program had ended
  echo_stopped     after a stop: whether echo was on while the program was stopped
  echo_continued   after a stop: whether echo was on once the program was continued
  outcome          "exit N", "signal N" or "timeout"
Every wait is bounded; on a timeout the program is killed.
"""
import json
import os
import select
import signal
import sys
import termios
import time

TIMEOUT = 20


def echo_on(fd):
    return bool(termios.tcgetattr(fd)[3] & termios.ECHO)


def main():
    prompt, which, answer, program = sys.argv[1].encode(), sys.argv[2], sys.argv[3], sys.argv[4:]
    os.setsid()
    master, slave = os.openpty()
    # The first terminal a session leader opens becomes its controlling terminal.
    path = os.ttyname(slave)
    os.close(slave)
    slave = os.open(path, os.O_RDWR)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(master)
        os.execv(program[0], program)
    try:
        os.setpgid(pid, pid)
    except PermissionError:
        pass  # the child has already made its group and run the program (setpgid then says EACCES)
    os.tcsetpgrp(slave, pid)
    report = {}

    def finish(outcome):
        report["outcome"] = outcome
        print(json.dumps(report))
        sys.exit(0)

    def kill_and_finish():
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        finish("timeout")

    transcript = bytearray()
    deadline = time.monotonic() + TIMEOUT
    while prompt not in transcript:
        if time.monotonic() > deadline:
            kill_and_finish()
        if select.select([master], [], [], 0.1)[0]:
            transcript.extend(os.read(master, 4096))

    def wait_status(flags):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            waited, status = os.waitpid(pid, flags | os.WNOHANG)
            if waited == pid:
                return status
            if select.select([master], [], [], 0.02)[0]:
                os.read(master, 4096)
        kill_and_finish()

    report["echo_at_prompt"] = echo_on(slave)
    if which == "INT":
        os.write(master, b"\x03")
    elif which == "TSTP":
        os.write(master, b"\x1a")
    else:
        os.kill(pid, getattr(signal, "SIG" + which))
    status = wait_status(os.WUNTRACED)
    if os.WIFSTOPPED(status):
        report["echo_stopped"] = echo_on(slave)
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.5)
        report["echo_continued"] = echo_on(slave)
        os.write(master, answer.encode() + b"\n")
        status = wait_status(0)
    report["echo_after"] = echo_on(slave)
    if os.WIFEXITED(status):
        finish("exit %d" % os.WEXITSTATUS(status))
    finish("signal %d" % os.WTERMSIG(status))


if __name__ == "__main__":
    main()
