#!/usr/bin/python3
"""Sends Secret Service calls without waiting for their replies, as an asynchronous client may:
CreateItem, then at once SearchItems for the item it creates, 20 times with new attributes, on
one connection (jeepney). Prints, as JSON, how many of the searches found their item and the
replies' order."""
import json

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"
service = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
collection = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=SS, interface="org.freedesktop.Secret.Collection")

connection = open_dbus_connection(bus="SESSION")
session = connection.send_and_get_reply(new_method_call(service, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
# A first search, answered the usual way, makes the connection known to the provider.
connection.send_and_get_reply(new_method_call(service, "SearchItems", "a{ss}", ({"service": "pipelined.example"},)))

found = 0
order = []
for index in range(20):
    attributes = {"service": "pipelined.example", "username": "user%d" % index}
    properties = {"org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes), "org.freedesktop.Secret.Item.Label": ("s", "pipelined")}
    create, search = next(connection.outgoing_serial), next(connection.outgoing_serial)
    connection.send(new_method_call(collection, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", b"secret", "text/plain"), True)), serial=create)
    connection.send(new_method_call(service, "SearchItems", "a{ss}", (attributes,)), serial=search)
    replies = {}
    while len(replies) < 2:
        message = connection.receive(timeout=10)
        if message.header.message_type in (MessageType.method_return, MessageType.error):
            serial = message.header.fields.get(HeaderFields.reply_serial)
            if serial in (create, search):
                replies[serial] = message
                order.append("create" if serial == create else "search")
    reply = replies[search]
    if reply.header.message_type == MessageType.method_return and len(reply.body[0]) == 1:
        found += 1

print(json.dumps({"found": found, "order": order}))
