"""A TPM2 emulated by swtpm on loopback ports: the campaign's machine-slot section uses it."""

import os
import random
import signal
import socket
import subprocess
import time


class SoftwareTPM:
    """swtpm on two free loopback ports (commands on N, control on N+1), state in `folder`."""

    def __init__(self, folder):
        self.proc = None
        for _ in range(20):
            port = random.SystemRandom().randrange(20000, 30000)
            if not (self._free(port) and self._free(port + 1)):
                continue
            proc = subprocess.Popen(
                ["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={folder}",
                 "--server", f"type=tcp,port={port},bindaddr=127.0.0.1",
                 "--ctrl", f"type=tcp,port={port + 1},bindaddr=127.0.0.1",
                 "--flags", "not-need-init,startup-clear"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(200):
                if not self._free(port) or proc.poll() is not None:
                    break
                time.sleep(0.02)
            if proc.poll() is None and not self._free(port):
                self.proc, self.device = proc, f"swtpm:host=127.0.0.1,port={port}"
                break
            proc.kill()
            proc.wait()
        if self.proc is None:
            raise RuntimeError("swtpm did not start")
        self.tools({"TPM2TOOLS_TCTI": self.device}, ["tpm2_pcrextend", "7:sha256=" + "0" * 63 + "1"])

    @staticmethod
    def _free(port):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False

    def tools(self, env, argv):
        subprocess.run(argv, env={**os.environ, **env}, capture_output=True, timeout=20)

    def flush(self):
        """Flushes the sessions systemd-creds leaves behind with no resource manager."""
        for kind in ("-t", "-l", "-s"):
            self.tools({"TPM2TOOLS_TCTI": self.device}, ["tpm2_flushcontext", kind])

    def close(self):
        self.proc.send_signal(signal.SIGCONT)
        self.proc.kill()
        self.proc.wait()
