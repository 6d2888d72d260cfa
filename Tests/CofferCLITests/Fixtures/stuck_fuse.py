#!/usr/bin/env python3
"""A FUSE file system whose server never answers, as a dead hard-mounted NFS home does: a
process that touches it sleeps in the kernel, and SIGKILL does not end it.

Usage: stuck_fuse.py FOLDER

Mounts over FOLDER (as root, with mount(2): no fusermount), answers the kernel's FUSE_INIT,
then reads every request and answers none. A request the server has read waits for its answer
uninterruptibly (state D), even after SIGKILL. Prints "ready" on stderr once mounted, or
"cannot mount: REASON" and exits 2. On SIGTERM, or when its parent ends, it unmounts (lazily)
and exits: closing /dev/fuse aborts the connection, and every process stuck on it goes on.
"""
import ctypes
import errno
import os
import signal
import struct
import sys

MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2
PR_SET_PDEATHSIG = 1
FUSE_INIT = 26

folder = os.fsencode(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)


def leave(*_):
    libc.umount2(folder, MNT_DETACH)
    os._exit(0)


try:
    device = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
except OSError as error:
    print(f"cannot mount: /dev/fuse: {error.strerror}", file=sys.stderr, flush=True)
    sys.exit(2)
options = f"fd={device},rootmode=40755,user_id=0,group_id=0,allow_other".encode()
if libc.mount(b"stuck", folder, b"fuse.stuck", MS_NOSUID | MS_NODEV, options) != 0:
    print(f"cannot mount: mount(2): {os.strerror(ctypes.get_errno())}", file=sys.stderr, flush=True)
    sys.exit(2)
signal.signal(signal.SIGTERM, leave)
signal.signal(signal.SIGINT, leave)
libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
if os.getppid() == 1:
    leave()

while True:
    try:
        request = os.read(device, 1 << 21)
    except OSError as error:
        if error.errno == errno.ENODEV:
            leave()
        raise
    length, opcode, unique = struct.unpack_from("<IIQ", request)
    if opcode == FUSE_INIT:
        major, minor, readahead, flags = struct.unpack_from("<IIII", request, 40)
        # fuse_init_out, 64 bytes: the kernel's version, no optional feature, 4 KiB writes.
        body = struct.pack("<IIIIHHIIHHII6I", 7, min(minor, 31), readahead, 0, 1, 1, 4096, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        os.write(device, struct.pack("<IiQ", 16 + len(body), 0, unique) + body)
        print("ready", file=sys.stderr, flush=True)
