#!/usr/bin/python3
"""`coffer prompter pinentry --program /usr/bin/pinentry-gnome3` on a display, its dialog (gcr's
system prompter, which pinentry-gnome3 asks over D-Bus) read and pressed through AT-SPI (the
tree screen readers use), printed as JSON. Run it under xvfb-run and its own dbus-run-session
(so that the bus activates gcr-prompter on this display):

    pinentry_gnome3.py COFFER SCREENSHOT_FOLDER access BUTTON [BUTTON]
    pinentry_gnome3.py COFFER SCREENSHOT_FOLDER passphrase TEXT

For access, asks "may /usr/bin/python3 read Mail for Ada", presses the first question's button
named BUTTON, then the second's. For a passphrase, types TEXT in the password field and presses
the dialog's other button than Cancel. Reports each dialog's labels and buttons, and the
prompter's answer, exit status and stderr. Screenshots of each dialog, cropped to it, go to
SCREENSHOT_FOLDER (pinentry-gnome3-1.png, -2.png) when ImageMagick's import is there.
Everything it started is ended before it prints.
"""
import json
import os
import shutil
import subprocess
import sys
import time

# The desktop fixtures' shared helpers live beside Seahorse's fixture.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "CofferSecretServiceProviderTests", "Fixtures"))
from desktop import DEADLINE, end_all, find_all, showing, start_accessibility_bus, wait_for as wait  # noqa: E402

coffer, screenshots, mode, choices = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]


def wait_for(condition, what):
    return wait(condition, what, "pinentry_gnome3")


def dialog(after=None):
    """gcr-prompter's showing dialog, once it shows labels other than `after` (a new question);
    None while there is none, or while the tree changes under the walk (a dialog closing)."""
    try:
        return showing_dialog(after)
    except Exception:  # noqa: BLE001 (GLib.GError: an object went away during the walk)
        return None


def showing_dialog(after):
    import pyatspi
    for app in pyatspi.Registry.getDesktop(0):
        if app is None or app.name != "gcr-prompter":
            continue
        for window in find_all(app, "dialog", []):
            labels = [label.name for label in find_all(window, "label", []) if showing(label) and label.name]
            buttons = [button for button in find_all(window, "push button", []) if showing(button)]
            if buttons and labels and labels != after:
                return window, labels, buttons
    return None


def screenshot(window, name):
    if not shutil.which("import"):
        return
    import pyatspi
    extents = window.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    geometry = f"{extents.width}x{extents.height}+{extents.x}+{extents.y}"
    subprocess.run(["import", "-window", "root", "-crop", geometry, "+repage", os.path.join(screenshots, name)],
                   timeout=30, check=False)


def press(buttons, name):
    button = next((button for button in buttons if button.name == name), None)
    if button is None:
        raise SystemExit(f"pinentry_gnome3: no button {name!r} among {[button.name for button in buttons]}")
    button.queryAction().doAction(0)


started = []
report = {"dialogs": []}
try:
    start_accessibility_bus(started, "pinentry_gnome3")
    environment = dict(os.environ, COFFER_PROMPT_KIND=mode, COFFER_PROMPT_TIMEOUT="60")
    if mode == "access":
        environment.update(COFFER_PROMPT_PROGRAM="/usr/bin/python3", COFFER_PROMPT_ITEM="Mail for Ada",
                           COFFER_PROMPT_VAULT="/home/ada/.local/share/coffer/default.vault")
        environment["COFFER_PROMPT"] = ("A program asks to read an item of your Coffer vault.\nProgram: /usr/bin/python3\n"
                                        "Item: Mail for Ada\nVault: /home/ada/.local/share/coffer/default.vault")
    else:
        environment["COFFER_PROMPT"] = "Unlock the Coffer collection Login"
    prompter = subprocess.Popen([coffer, "prompter", "pinentry", "--program", "/usr/bin/pinentry-gnome3"], env=environment,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started.append(prompter)
    import pyatspi  # noqa: F401 (after the accessibility bus is up)

    previous = None
    steps = choices if mode == "access" else [None]
    for number, choice in enumerate(steps, start=1):
        window, labels, buttons = wait_for(lambda: dialog(previous), f"dialog {number}")
        time.sleep(0.5)  # drawn
        screenshot(window, f"pinentry-gnome3-{number}.png")
        report["dialogs"].append({"labels": labels, "buttons": [button.name for button in buttons]})
        if mode == "passphrase":
            field = next(field for field in find_all(window, "password text", []) if showing(field))
            field.queryEditableText().setTextContents(choices[0])
            press(buttons, next(button.name for button in buttons if button.name != "Cancel"))
        else:
            press(buttons, choice)
        previous = labels
        if mode == "access" and choice == "Deny":
            break
    output, errors = prompter.communicate(timeout=DEADLINE)
    report.update(answer=output.decode(), status=prompter.returncode, stderr=errors.decode())
finally:
    end_all(started)
print(json.dumps(report))
