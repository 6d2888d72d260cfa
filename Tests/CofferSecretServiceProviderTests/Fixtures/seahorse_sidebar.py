#!/usr/bin/python3
"""Seahorse (GNOME's Passwords and Keys) on the session bus's Secret Service, read through AT-SPI
(the accessibility tree screen readers use), printed as JSON. Run it under xvfb-run.

    seahorse_sidebar.py SCREENSHOT_FOLDER

Starts the accessibility bus and Seahorse, waits until Seahorse's sidebar lists its "Passwords"
collections (clicking "Back" when the narrow window shows a collection instead), and reports each
row's labels and whether it has a button. Then clicks the button of the "Login" row (Seahorse's
lock button: on a locked collection it unlocks it) and waits until Login is unlocked on the bus.
Writes a screenshot of the screen before and after the click when ImageMagick's import is there.
Everything it started is ended before it prints.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from jeepney import DBusAddress, new_method_call

from desktop import bus, end_all, find_all, showing, start_accessibility_bus, wait_for as wait

LOGIN = "/org/freedesktop/secrets/collection/login"


def login_locked():
    properties = DBusAddress(LOGIN, bus_name="org.freedesktop.secrets", interface="org.freedesktop.DBus.Properties")
    reply = bus.send_and_get_reply(new_method_call(properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Locked")))
    return reply.body[0][1]


def wait_for(condition, what):
    return wait(condition, what, "seahorse_sidebar")


def screenshot(name):
    if shutil.which("import") and os.environ.get("DISPLAY"):
        subprocess.run(["import", "-window", "root", os.path.join(sys.argv[1], name)], timeout=30, check=False)


def sidebar_rows(app):
    """The showing rows of the sidebar's list: their labels, and their push buttons."""
    rows = []
    for box in find_all(app, "list box", []):
        for item in find_all(box, "list item", []):
            labels = [label.name for label in find_all(item, "label", []) if showing(label)]
            if labels:
                rows.append((labels, [button for button in find_all(item, "push button", []) if showing(button)]))
    return rows


started = []
report = {}
try:
    start_accessibility_bus(started, "seahorse_sidebar")
    started.append(subprocess.Popen(["seahorse"], env=dict(os.environ, GSETTINGS_BACKEND="memory"),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    import pyatspi

    def application():
        return next((app for app in pyatspi.Registry.getDesktop(0) if app is not None and app.name == "seahorse"), None)

    app = wait_for(application, "Seahorse's window")

    def login_row():
        rows = sidebar_rows(app)
        if any("Login" in labels for labels, _ in rows):
            return rows
        back = [button for button in find_all(app, "push button", []) if button.name == "Back" and showing(button)]
        if back:
            back[0].queryAction().doAction(0)
        return None

    rows = wait_for(login_row, "the Login row")
    screenshot("seahorse-locked.png")
    report["rows"] = [{"labels": labels, "buttons": len(buttons)} for labels, buttons in rows]
    report["locked_before"] = login_locked()
    button = next(buttons for labels, buttons in rows if "Login" in labels)[0]
    button.queryAction().doAction(0)
    wait_for(lambda: not login_locked(), "the unlock")
    report["locked_after"] = login_locked()
    time.sleep(1)  # Seahorse redraws the row
    screenshot("seahorse-unlocked.png")
finally:
    end_all(started)
json.dump(report, sys.stdout, sort_keys=True)
