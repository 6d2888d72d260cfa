#!/usr/bin/python3
"""Listens, with jeepney, to every signal on the Secret Service's paths, until the test's own
signal coffer.test.Sentinel.Done arrives; prints "listening" once subscribed, then the members and
first arguments of the Secret Service's signals it received, as JSON.
"""
import json

from jeepney import MatchRule
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

connection = open_dbus_connection(bus="SESSION")
provider = MatchRule(type="signal", path_namespace="/org/freedesktop/secrets")
sentinel = MatchRule(type="signal", interface="coffer.test.Sentinel")
seen = []
with connection.filter(provider) as signals, connection.filter(sentinel) as done:
    connection.send_and_get_reply(message_bus.AddMatch(provider))
    connection.send_and_get_reply(message_bus.AddMatch(sentinel))
    print("listening", flush=True)
    while not done:
        connection.recv_messages(timeout=30)
        while signals:
            message = signals.popleft()
            seen.append([message.header.fields[3], str(message.body[0]) if message.body else ""])
print(json.dumps(seen))
