#!/usr/bin/python3
"""What a locked collection shows, read with jeepney, printed as JSON.

    locked_client.py properties   store an item in the login collection and in a created one, lock
                                  the login collection (which locks both), then read every property
                                  of both collections and both items: GetAll, and Get of each name
    locked_client.py search       store an item, lock the login collection, then search the service
                                  for it and for something absent, and read every property of each
                                  object the searches list
"""
import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
LOGIN = "/org/freedesktop/secrets/collection/login"
COLLECTION = "org.freedesktop.Secret.Collection"
ITEM = "org.freedesktop.Secret.Item"
NAMES = {COLLECTION: ["Items", "Label", "Locked", "Created", "Modified"],
         ITEM: ["Locked", "Attributes", "Label", "Type", "Created", "Modified"]}
connection = open_dbus_connection(bus="SESSION")


def call(address, method, signature=None, body=()):
    """The reply's body, or the error's name as {"error": name}."""
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=60)
    if reply.header.message_type.name == "error":
        return {"error": reply.header.fields[4]}
    return reply.body


def plain(variant):
    _signature, value = variant
    return value


def properties(path, interface):
    """GetAll's answer, and each property read alone: its value or its error's name."""
    address = DBusAddress(path, bus_name=SS, interface="org.freedesktop.DBus.Properties")
    everything = call(address, "GetAll", "s", (interface,))
    one_by_one = {}
    for name in NAMES[interface]:
        answer = call(address, "Get", "ss", (interface, name))
        one_by_one[name] = answer if isinstance(answer, dict) else {"value": plain(answer[0])}
    return {
        "getall": everything if isinstance(everything, dict) else {k: plain(v) for k, v in everything[0].items()},
        "get": one_by_one,
    }


def store(collection, attributes, secret):
    _output, session = call(SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
    address = DBusAddress(collection, bus_name=SS, interface=COLLECTION)
    item_properties = {"org.freedesktop.Secret.Item.Label": ("s", "Private label"),
                       "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
    return call(address, "CreateItem", "a{sv}(oayays)b", (item_properties, (session, b"", secret, "text/plain"), True))[0]


mode = sys.argv[1]
report = {}
if mode == "properties":
    created = call(SERVICE, "CreateCollection", "a{sv}s", ({"org.freedesktop.Secret.Collection.Label": ("s", "Work")}, ""))[0]
    login_item = store(LOGIN, {"service": "private.example", "username": "ada-q7x"}, b"login secret")
    created_item = store(created, {"service": "work.example", "username": "bob-z9w"}, b"work secret")
    call(SERVICE, "Lock", "ao", ([LOGIN],))
    report = {
        "login": properties(LOGIN, COLLECTION), "created": properties(created, COLLECTION),
        "login_item": properties(login_item, ITEM), "created_item": properties(created_item, ITEM),
        "created_path": created, "login_item_path": login_item, "created_item_path": created_item,
    }
elif mode == "search":
    store(LOGIN, {"service": "private.example", "username": "ada-q7x"}, b"login secret")
    call(SERVICE, "Lock", "ao", ([LOGIN],))
    for name, attributes in [("present", {"service": "private.example"}), ("absent", {"service": "nothing.example"})]:
        unlocked, locked = call(SERVICE, "SearchItems", "a{ss}", (attributes,))
        report[name] = {"unlocked": unlocked, "locked": locked, "objects": [properties(path, ITEM) for path in locked]}
json.dump(report, sys.stdout, sort_keys=True)
