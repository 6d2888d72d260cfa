#!/usr/bin/python3
"""Sends a Secret Service calls that break the rules, and a crowd of connections, with jeepney (Debian's python3-jeepney),
and prints, per case, the D-Bus error name it got back (or "ok") as JSON.

    bad_input.py ITEM_PATH      ITEM_PATH: an item that exists in the login collection
"""
import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse

SS = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
LOGIN = DBusAddress("/org/freedesktop/secrets/collection/login", bus_name=SS, interface="org.freedesktop.Secret.Collection")
item_path = sys.argv[1]
ITEM = DBusAddress(item_path, bus_name=SS, interface="org.freedesktop.Secret.Item")
results = {}


def call(connection, address, method, signature=None, body=(), interface=None):
    message = new_method_call(address if interface is None else address.with_interface(interface), method, signature, body)
    reply = connection.send_and_get_reply(message, timeout=20)
    if reply.header.message_type.name == "error":
        return reply.header.fields[4], reply.body  # HeaderFields.error_name
    return "ok", reply.body


def case(name, connection, *arguments, **keywords):
    results[name] = call(connection, *arguments, **keywords)[0]


a = open_dbus_connection(bus="SESSION")
b = open_dbus_connection(bus="SESSION")

# Signatures and paths.
case("open_session_wrong_signature", a, SERVICE, "OpenSession", "i", (1,))
case("search_wrong_signature", a, LOGIN, "SearchItems", "s", ("service",))
case("create_item_wrong_signature", a, LOGIN, "CreateItem", "a{sv}b", ({}, True))
case("unknown_method", a, SERVICE, "Frobnicate", "", ())
case("unknown_collection", a, DBusAddress("/org/freedesktop/secrets/collection/nope", bus_name=SS,
                                          interface="org.freedesktop.Secret.Collection"), "SearchItems", "a{ss}", ({},))
case("unknown_alias", a, DBusAddress("/org/freedesktop/secrets/aliases/nope", bus_name=SS,
                                     interface="org.freedesktop.Secret.Collection"), "SearchItems", "a{ss}", ({},))
missing_item = "/org/freedesktop/secrets/collection/login/" + "0" * 64
case("unknown_item", a, DBusAddress(missing_item, bus_name=SS, interface="org.freedesktop.Secret.Item"), "Delete", "", ())
case("malformed_item_path", a, DBusAddress("/org/freedesktop/secrets/collection/login/xyz", bus_name=SS,
                                           interface="org.freedesktop.Secret.Item"), "Delete", "", ())
case("unknown_property", a, ITEM, "Get", "ss", ("org.freedesktop.Secret.Item", "Colour"),
     interface="org.freedesktop.DBus.Properties")
case("read_only_property", a, ITEM, "Set", "ssv", ("org.freedesktop.Secret.Item", "Created", ("t", 1)),
     interface="org.freedesktop.DBus.Properties")
case("property_of_wrong_type", a, ITEM, "Set", "ssv", ("org.freedesktop.Secret.Item", "Label", ("u", 1)),
     interface="org.freedesktop.DBus.Properties")

# Sessions: the algorithm, the Diffie-Hellman input, and another connection's session.
case("unknown_algorithm", a, SERVICE, "OpenSession", "sv", ("rot13", ("s", "")))
case("dh_input_not_bytes", a, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("s", "x")))
case("dh_input_zero", a, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x00")))
case("dh_input_too_long", a, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x01" * 200)))
_, (_, session_a) = call(a, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
case("get_secret_with_own_session", a, ITEM, "GetSecret", "o", (session_a,))
case("get_secret_with_another_connections_session", b, ITEM, "GetSecret", "o", (session_a,))
case("get_secrets_with_another_connections_session", b, SERVICE, "GetSecrets", "ao" + "o", ([item_path], session_a))
case("close_another_connections_session", b, DBusAddress(session_a, bus_name=SS, interface="org.freedesktop.Secret.Session"),
     "Close", "", ())
case("unknown_session", a, ITEM, "GetSecret", "o", ("/org/freedesktop/secrets/session/none",))
case("set_secret_with_another_connections_session", b, ITEM, "SetSecret", "(oayays)",
     ((session_a, b"", b"stolen", "text/plain"),))
_, (_, session_dh) = call(a, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x02")))
case("dh_secret_bad_iv", a, ITEM, "SetSecret", "(oayays)", ((session_dh, b"short", b"0" * 16, "text/plain"),))
case("dh_secret_not_blocks", a, ITEM, "SetSecret", "(oayays)", ((session_dh, b"i" * 16, b"0" * 15, "text/plain"),))

# Sizes.
huge_secret = b"x" * (2 << 20)
case("huge_secret", a, LOGIN, "CreateItem", "a{sv}(oayays)b",
     ({"org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"k": "v"})}, (session_a, b"", huge_secret, "text/plain"), True))
case("huge_attribute_value", a, LOGIN, "CreateItem", "a{sv}(oayays)b",
     ({"org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"k": "v" * 10000})}, (session_a, b"", b"s", "text/plain"), True))
case("many_attributes", a, LOGIN, "CreateItem", "a{sv}(oayays)b",
     ({"org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"k%d" % i: "v" for i in range(100)})},
      (session_a, b"", b"s", "text/plain"), True))
case("huge_label", a, LOGIN, "CreateItem", "a{sv}(oayays)b",
     ({"org.freedesktop.Secret.Item.Label": ("s", "l" * 10000)}, (session_a, b"", b"s", "text/plain"), True))
case("attributes_of_wrong_type", a, LOGIN, "CreateItem", "a{sv}(oayays)b",
     ({"org.freedesktop.Secret.Item.Attributes": ("s", "service")}, (session_a, b"", b"s", "text/plain"), True))

# Too many sessions on one connection: the 33rd is refused, the others still work.
opened = [call(a, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[0] for _ in range(40)]
results["sessions_opened_before_refusal"] = opened.index("org.freedesktop.DBus.Error.LimitsExceeded") if \
    "org.freedesktop.DBus.Error.LimitsExceeded" in opened else len(opened)

# Many connections at once, each with sessions, then all gone without closing anything.
crowd = [open_dbus_connection(bus="SESSION") for _ in range(150)]
results["crowd_sessions"] = sum(call(c, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[0] == "ok" for c in crowd for _ in range(2))
for c in crowd:
    c.close()

# The provider still serves, and the item is still there.
results["still_serving"] = call(b, ITEM, "Get", "ss", ("org.freedesktop.Secret.Item", "Label"),
                                interface="org.freedesktop.DBus.Properties")[0]
json.dump(results, sys.stdout, sort_keys=True)
