#!/usr/bin/env python3
"""A stand-in for the Coffer agent run by another user: it binds the socket (as root), then
drops to uid and gid 65534 before it listens, so that the kernel records that uid as the
listener's (SO_PEERCRED), as for a squatter's own process.

Usage: foreign_agent.py SOCKET

Prints "ready" on stderr once it listens. It answers every whole frame as an agent would a
ping (an `ok` reply with an `agent` field), so a client that trusted it would go on to send
its next request, and prints one line on stdout per connection once the client is done:
"connection N" with the number of bytes the client sent. Every wait is bounded.
"""
import os
import socket
import struct
import sys

path = sys.argv[1]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
listener.listen(16)
print("ready", file=sys.stderr, flush=True)

# ok (0x80) with the agent field (0x25): this pid and protocol version 1.
body = bytes([1, 0x80, 0x25]) + struct.pack(">I", 8) + struct.pack(">II", os.getpid(), 1)
reply = struct.pack(">I", len(body)) + body

while True:
    connection, _ = listener.accept()
    connection.settimeout(10)
    received = b""
    answered = 0
    try:
        while True:
            data = connection.recv(65536)
            if not data:
                break
            received += data
            # Answer each whole frame once.
            offset, frames = 0, 0
            while len(received) - offset >= 4:
                length = struct.unpack(">I", received[offset:offset + 4])[0]
                if len(received) - offset - 4 < length:
                    break
                offset += 4 + length
                frames += 1
            while answered < frames:
                connection.sendall(reply)
                answered += 1
    except OSError:
        pass
    print(f"connection {len(received)}", flush=True)
    connection.close()
