#!/usr/bin/python3
"""Locks collections and unlocks them through prompts, with jeepney, and prints what happened as
JSON: what Unlock answered, and the Completed signal's dismissed flag and result.

    prompt_client.py created     lock the login collection, then unlock a created collection
    prompt_client.py login       lock the login collection, then unlock it
    prompt_client.py dismiss     lock the login collection, unlock it, and Dismiss the prompt
    prompt_client.py dismiss-running ROUNDS STARTED
                                 lock the login collection; ROUNDS times: unlock it, Prompt, wait
                                 until the prompter has added its line to the file STARTED, Dismiss
    prompt_client.py concurrent COUNT
                                 lock the login collection; COUNT connections each unlock it and
                                 Prompt, all before any prompt completes; then wait for every
                                 Completed
    prompt_client.py leave STARTED
                                 lock the login collection, unlock it, Prompt, wait until the
                                 prompter has added its line to STARTED, and leave the bus
    prompt_client.py items PATH...
                                 unlock the items named (a path may come more than once) in one
                                 call and Prompt: what Unlock answered, and whether the prompt
                                 completed dismissed
"""
import contextlib
import json
import os
import sys
import time

from jeepney import DBusAddress, MatchRule, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
LOGIN = "/org/freedesktop/secrets/collection/login"
connection = open_dbus_connection(bus="SESSION")


def call(address, method, signature=None, body=()):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=60)
    if reply.header.message_type.name == "error":
        raise SystemExit(f"{method}: {reply.header.fields[4]} {reply.body}")
    return reply.body


def locked(path):
    properties = DBusAddress(path, bus_name=SS, interface="org.freedesktop.DBus.Properties")
    return call(properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Locked"))[0][1]


def wait_for_lines(path, count):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path) as file:
                if len(file.read().splitlines()) >= count:
                    return
        time.sleep(0.005)
    raise SystemExit(f"the prompter did not start: fewer than {count} lines in {path}")


def dismiss_running(rounds, started):
    call(SERVICE, "Lock", "ao", ([LOGIN],))
    rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Prompt", member="Completed")
    connection.send_and_get_reply(message_bus.AddMatch(rule))
    dismissed = []
    with connection.filter(rule, bufsize=4) as queue:
        for index in range(rounds):
            _unlocked, prompt = call(SERVICE, "Unlock", "ao", ([LOGIN],))
            address = DBusAddress(prompt, bus_name=SS, interface="org.freedesktop.Secret.Prompt")
            call(address, "Prompt", "s", ("",))
            wait_for_lines(started, index + 1)
            call(address, "Dismiss")
            completed = connection.recv_until_filtered(queue, timeout=60)
            while completed.header.fields[1] != prompt:
                completed = connection.recv_until_filtered(queue, timeout=60)
            dismissed.append(completed.body[0])
    return {"rounds": len(dismissed), "all_dismissed": all(dismissed), "locked_after": locked(LOGIN)}


def concurrent(count):
    call(SERVICE, "Lock", "ao", ([LOGIN],))
    rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Prompt", member="Completed")
    results = []
    with contextlib.ExitStack() as stack:
        clients = []
        for _ in range(count):
            client = stack.enter_context(open_dbus_connection(bus="SESSION"))
            client.send_and_get_reply(message_bus.AddMatch(rule))
            queue = stack.enter_context(client.filter(rule, bufsize=4))
            reply = client.send_and_get_reply(new_method_call(SERVICE, "Unlock", "ao", ([LOGIN],)), timeout=60)
            clients.append((client, queue, reply.body[1]))
        for client, _queue, prompt in clients:
            address = DBusAddress(prompt, bus_name=SS, interface="org.freedesktop.Secret.Prompt")
            client.send_and_get_reply(new_method_call(address, "Prompt", "s", ("",)), timeout=60)
        for client, queue, prompt in clients:
            completed = client.recv_until_filtered(queue, timeout=60)
            while completed.header.fields[1] != prompt:
                completed = client.recv_until_filtered(queue, timeout=60)
            results.append({"dismissed": completed.body[0], "result": completed.body[1][1]})
    return {"completed": results, "locked_after": locked(LOGIN)}


def run_prompt(prompt, dismiss=False):
    """Prompt (or Dismiss) `prompt`, and the body of its Completed signal."""
    rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Prompt", member="Completed", path=prompt)
    connection.send_and_get_reply(message_bus.AddMatch(rule))
    with connection.filter(rule) as queue:
        address = DBusAddress(prompt, bus_name=SS, interface="org.freedesktop.Secret.Prompt")
        call(address, "Dismiss" if dismiss else "Prompt", None if dismiss else "s", () if dismiss else ("",))
        return connection.recv_until_filtered(queue, timeout=120).body


mode = sys.argv[1]
if mode == "items":
    unlocked, prompt = call(SERVICE, "Unlock", "ao", (sys.argv[2:],))
    report = {"unlocked": unlocked, "prompted": prompt != "/"}
    if prompt != "/":
        report["dismissed"] = run_prompt(prompt)[0]
    json.dump(report, sys.stdout, sort_keys=True)
    sys.exit(0)
if mode == "concurrent":
    json.dump(concurrent(int(sys.argv[2])), sys.stdout, sort_keys=True)
    sys.exit(0)
if mode == "dismiss-running":
    json.dump(dismiss_running(int(sys.argv[2]), sys.argv[3]), sys.stdout, sort_keys=True)
    sys.exit(0)
if mode == "leave":
    call(SERVICE, "Lock", "ao", ([LOGIN],))
    _unlocked, prompt = call(SERVICE, "Unlock", "ao", ([LOGIN],))
    call(DBusAddress(prompt, bus_name=SS, interface="org.freedesktop.Secret.Prompt"), "Prompt", "s", ("",))
    wait_for_lines(sys.argv[2], 1)
    json.dump({"prompted": True}, sys.stdout)
    sys.exit(0)
report = {}
target = LOGIN
if mode == "created":
    target = call(SERVICE, "CreateCollection", "a{sv}s", ({"org.freedesktop.Secret.Collection.Label": ("s", "Work")}, ""))[0]
call(SERVICE, "Lock", "ao", ([LOGIN],))
report["locked_before"] = locked(target)
unlocked, prompt = call(SERVICE, "Unlock", "ao", ([target],))
report["unlock_answer"] = {"unlocked": unlocked, "prompted": prompt != "/"}
dismissed, (_signature, result) = run_prompt(prompt, dismiss=mode == "dismiss")
report["completed"] = {"dismissed": dismissed, "result": result}
report["locked_after"] = locked(target)
report["target"] = target
json.dump(report, sys.stdout, sort_keys=True)
