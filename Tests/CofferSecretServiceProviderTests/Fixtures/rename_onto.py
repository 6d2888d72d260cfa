"""A program that tries to take another program's item by renaming its own onto it.

rename_onto.py SERVICE USERNAME: connects (jeepney), creates an item of its own
(service=rename.example, username=planted, secret "planted") in a plain session, then sets that
item's Attributes to service=SERVICE, username=USERNAME. Prints, as JSON, the D-Bus error name of
the Set ("" when it succeeded) and the path of its own item.
"""
import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

service_name, username = sys.argv[1], sys.argv[2]
ss = "org.freedesktop.secrets"
service = DBusAddress("/org/freedesktop/secrets", bus_name=ss, interface="org.freedesktop.Secret.Service")
default = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=ss, interface="org.freedesktop.Secret.Collection")
connection = open_dbus_connection(bus="SESSION")


def call(address, method, signature=None, body=()):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
    if reply.header.message_type.name == "error":
        return None, reply.header.fields[4]
    return list(reply.body), ""


session = call(service, "OpenSession", "sv", ("plain", ("s", "")))[0][1]
properties = {"org.freedesktop.Secret.Item.Label": ("s", "Planted"),
              "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "rename.example", "username": "planted"})}
item = call(default, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", b"planted", "text/plain"), False))[0][0]
properties_of_item = DBusAddress(item, bus_name=ss, interface="org.freedesktop.DBus.Properties")
_, error = call(properties_of_item, "Set", "ssv",
                ("org.freedesktop.Secret.Item", "Attributes", ("a{ss}", {"service": service_name, "username": username})))
print(json.dumps({"error": error, "item": item}))
