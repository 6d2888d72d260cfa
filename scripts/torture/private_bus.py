"""A D-Bus session bus of the campaign's own: dbus-daemon on a socket in a scratch folder."""

import contextlib
import os
import signal
import socket as sockets
import subprocess
import time


class PrivateBus:
    """dbus-daemon on a socket in `folder`, with no service activation."""

    def __init__(self, folder):
        socket = os.path.join(folder, "bus")
        config = os.path.join(folder, "bus.conf")
        with open(config, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>""")
        self.address = f"unix:path={socket}"
        self.process = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        # Until it accepts: the file appears at bind(), before listen(), and a client that
        # connects in between is refused.
        for _ in range(500):
            if self._accepts(socket):
                break
            time.sleep(0.01)

    @staticmethod
    def _accepts(path):
        with sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM) as probe:
            try:
                probe.connect(path)
                return True
            except OSError:
                return False

    def owned(self, name):
        out = subprocess.run(["dbus-send", f"--bus={self.address}", "--print-reply", "--dest=org.freedesktop.DBus",
                              "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", f"string:{name}"],
                             capture_output=True, text=True, timeout=10)
        return "boolean true" in out.stdout

    def stop(self):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
