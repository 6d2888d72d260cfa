#!/usr/bin/python3
"""Makes Secret Service calls with jeepney and prints, as JSON, what each answered: the D-Bus error
name, or the reply's values. The calls come as JSON on the command line:

    ss_calls.py '[["name", "PATH", "INTERFACE", "METHOD", "SIGNATURE", [ARGUMENTS...]], ...]'
    ss_calls.py -       the same JSON on stdin (for calls too long for a command line)

An argument written {"bytes": "text"} is sent as bytes; {"variant": ["SIGNATURE", VALUE]} as a variant;
{"struct": [VALUES...]} as a struct;
"$session" is the session the last successful OpenSession opened.
"""
import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"


session = "/"


def decode(value):
    if value == "$session":
        return session
    if isinstance(value, dict) and "bytes" in value:
        return value["bytes"].encode()
    if isinstance(value, dict) and "struct" in value:
        return tuple(decode(item) for item in value["struct"])
    if isinstance(value, dict) and "variant" in value:
        return (value["variant"][0], decode(value["variant"][1]))
    if isinstance(value, dict):
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def printable(value):
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, (list, tuple)):
        return [printable(item) for item in value]
    if isinstance(value, dict):
        return {key: printable(item) for key, item in value.items()}
    return value


connection = open_dbus_connection(bus="SESSION")
results = {}
calls = json.load(sys.stdin) if sys.argv[1] == "-" else json.loads(sys.argv[1])
for name, path, interface, method, signature, arguments in calls:
    message = new_method_call(DBusAddress(path, bus_name=SS, interface=interface), method, signature or None, tuple(decode(arguments)))
    reply = connection.send_and_get_reply(message, timeout=60)
    if reply.header.message_type.name == "error":
        results[name] = {"error": reply.header.fields[4]}
    else:
        results[name] = {"reply": printable(list(reply.body))}
        if method == "OpenSession":
            session = reply.body[1]
json.dump(results, sys.stdout, sort_keys=True)
