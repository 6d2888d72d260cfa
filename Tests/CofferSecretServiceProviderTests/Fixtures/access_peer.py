"""A client whose process ends while its connection lives on, for the test of a reused PID.

access_peer.py own GO TRY RESULT: connects (jeepney), stores an item with CreateItem in a plain
session (so the item is owned by python3 running this script), reads it back with GetSecret,
prints its path and what it read, then waits until a line can be read from the FIFO GO. Then it
forks: the parent prints the child's PID and ends; the child, on the same connection, waits
until a line can be read from TRY, then calls GetSecret and GetSecrets on the item again and
writes what they answered, as JSON, to RESULT.

access_peer.py idle: prints "ready" and waits for its standard input to close (the same
program, started at the PID the first one had).
"""
import json
import os
import sys

if sys.argv[1] == "idle":
    print("ready", flush=True)
    sys.stdin.read()
    sys.exit(0)

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

go, attempt, result = sys.argv[2], sys.argv[3], sys.argv[4]
ss = "org.freedesktop.secrets"
service = DBusAddress("/org/freedesktop/secrets", bus_name=ss, interface="org.freedesktop.Secret.Service")
default = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=ss, interface="org.freedesktop.Secret.Collection")
connection = open_dbus_connection(bus="SESSION")


def call(address, method, signature=None, body=()):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
    if reply.header.message_type.name == "error":
        return {"error": reply.header.fields[4]}
    return {"reply": list(reply.body)}


session = call(service, "OpenSession", "sv", ("plain", ("s", "")))["reply"][1]
properties = {"org.freedesktop.Secret.Item.Label": ("s", "Reused"),
              "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "reuse.example", "username": "ada"})}
item = call(default, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", b"mine", "text/plain"), True))["reply"][0]
address = DBusAddress(item, bus_name=ss, interface="org.freedesktop.Secret.Item")
print(item, call(address, "GetSecret", "o", (session,))["reply"][0][2].decode(), flush=True)
with open(go) as fifo:
    fifo.readline()
child = os.fork()
if child:
    print(child, flush=True)
    os._exit(0)
null = os.open(os.devnull, os.O_RDWR)
for descriptor in (0, 1, 2):
    os.dup2(null, descriptor)
with open(attempt) as fifo:
    fifo.readline()
single = call(address, "GetSecret", "o", (session,))
bulk = call(service, "GetSecrets", "aoo", ([item], session))
answers = {"GetSecret": single.get("error", "a secret"),
           "GetSecrets": bulk.get("error") or len(bulk["reply"][0])}
with open(result + ".part", "w") as out:
    json.dump(answers, out)
os.rename(result + ".part", result)
