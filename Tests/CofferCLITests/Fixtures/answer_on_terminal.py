#!/usr/bin/env python3
"""Runs a program on a pseudo-terminal (its controlling terminal) and answers its prompts.

Usage: answer_on_terminal.py STEPS PROGRAM [ARGUMENT...]

STEPS is a JSON list of [expected text, answer] pairs: for each, wait until the program has
written the text (after the previous match), then type the answer and Enter. Afterwards,
everything the terminal showed (the program's output and the terminal's echo) is written to
stdout, and the exit status is the program's. Each wait is bounded; a program that does not
prompt in time is killed and the status is 124.
"""
import json
import os
import pty
import select
import signal
import sys
import time

TIMEOUT = 30


def main():
    steps = json.loads(sys.argv[1])
    program = sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(program[0], program)
    transcript = bytearray()
    position = 0

    def read_more(timeout):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(fd, 4096)
        except OSError:
            return False
        transcript.extend(data)
        return bool(data)

    def give_up():
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.stdout.write(transcript.decode("utf-8", "replace"))
        sys.exit(124)

    for expected, answer in steps:
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = transcript.find(expected.encode(), position)
            if found >= 0:
                position = found + len(expected.encode())
                break
            if time.monotonic() > deadline or not read_more(0.1):
                give_up()
        os.write(fd, answer.encode() + b"\n")

    deadline = time.monotonic() + TIMEOUT
    while read_more(0.1):
        if time.monotonic() > deadline:
            give_up()
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(transcript.decode("utf-8", "replace"))
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
