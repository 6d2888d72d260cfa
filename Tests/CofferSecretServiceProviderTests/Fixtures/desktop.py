"""What the desktop fixtures share (seahorse_sidebar.py here, CofferCLITests' pinentry_gnome3.py):
the session bus's names, the accessibility bus, waiting with a deadline, and walking the AT-SPI
tree (the accessibility tree screen readers use)."""
import os
import subprocess
import time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

# Stretched under a sanitizer, as the Swift tests' bounds are (COFFER_TEST_TIME_SCALE, TestTiming).
DEADLINE = 60 * max(1, int(os.environ.get("COFFER_TEST_TIME_SCALE", "1")))
bus = open_dbus_connection(bus="SESSION")
daemon = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")


def has_owner(name):
    return bus.send_and_get_reply(new_method_call(daemon, "NameHasOwner", "s", (name,))).body[0]


def wait_for(condition, what, fixture):
    """`condition`'s first true value, checked every 0.2 s; the fixture ends after DEADLINE."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise SystemExit(f"{fixture}: {what} did not happen within {DEADLINE} s")


def start_accessibility_bus(started, fixture):
    """The accessibility bus, on this session bus, as a desktop session starts it."""
    started.append(subprocess.Popen(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_for(lambda: has_owner("org.a11y.Bus"), "the accessibility bus", fixture)


def end_all(started):
    """Ends what the fixture started, the last first."""
    for process in reversed(started):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def find_all(node, role, found):
    if node.getRoleName() == role:
        found.append(node)
    for index in range(node.childCount):
        child = node.getChildAtIndex(index)
        if child is not None:
            find_all(child, role, found)
    return found


def showing(node):
    import pyatspi
    return pyatspi.STATE_SHOWING in node.getState().getStates()
