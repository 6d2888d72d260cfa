#!/usr/bin/python3
"""Drives a Secret Service with python-secretstorage (Debian's python3-secretstorage) and
jeepney, and prints what it saw as JSON. Written for Coffer's tests; the clients are not Coffer's.

    secretstorage_client.py ALGORITHM      ALGORITHM: dh (secretstorage's default) or plain

It needs DBUS_SESSION_BUS_ADDRESS, and a provider whose prompter answers the login passphrase.
"""
import json
import sys

import secretstorage
from jeepney import DBusErrorResponse, MatchRule, HeaderFields
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from secretstorage.dhcrypto import Session
from secretstorage.util import DBusAddressWrapper, format_secret, open_session

SS_PATH = "/org/freedesktop/secrets"
SERVICE = "org.freedesktop.Secret.Service"

report = {}
connection = secretstorage.dbus_init()


def session_for(algorithm):
    if algorithm == "dh":
        session = open_session(connection)
        assert session.encrypted, "the provider offers dh-ietf1024-sha256-aes128-cbc-pkcs7"
        return session
    session = Session()
    service = DBusAddressWrapper(SS_PATH, SERVICE, connection)
    _output, path = service.call("OpenSession", "sv", "plain", ("s", ""))
    session.encrypted = False
    session.object_path = path
    return session


session = session_for(sys.argv[1])
report["algorithm"] = "dh" if session.encrypted else "plain"

default = secretstorage.get_default_collection(connection, session)
report["default"] = {"path": default.collection_path, "label": default.get_label(), "locked": default.is_locked()}

# Collection signals, seen by another connection that listens to the service.
service_rule = MatchRule(type="signal", interface=SERVICE, path=SS_PATH)
with open_dbus_connection(bus="SESSION") as watcher:
    watcher.send_and_get_reply(message_bus.AddMatch(service_rule))
    with watcher.filter(service_rule) as queue:
        created = secretstorage.create_collection(connection, "Work Keys", session=session)
        message = watcher.recv_until_filtered(queue, timeout=10)
        report["collection_signal"] = [message.header.fields[HeaderFields.member], message.body[0]]
report["created"] = {"path": created.collection_path, "label": created.get_label()}
report["collections"] = sorted(c.collection_path for c in secretstorage.get_all_collections(connection))

# Item signals, seen by another connection that listens to the new collection.
rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Collection", path=created.collection_path)
signals = []
with open_dbus_connection(bus="SESSION") as watcher:
    watcher.send_and_get_reply(message_bus.AddMatch(rule))
    with watcher.filter(rule) as queue:
        item = created.create_item("Token", {"app": "coffer-test", "kind": "token"}, b"\x00\x01binary\xff",
                                   content_type="application/octet-stream")
        item.set_label("Renamed token")
        item.set_attributes({"app": "coffer-test", "kind": "refresh"})
        copy = created.create_item("Plain", {"app": "coffer-test", "kind": "text"}, "héllo".encode(), replace=False)
        copy.delete()
        for _ in range(5):
            message = watcher.recv_until_filtered(queue, timeout=10)
            signals.append([message.header.fields[HeaderFields.member], message.body[0]])
report["signals"] = signals
report["item"] = {
    "path": item.item_path, "copy": copy.item_path, "label": item.get_label(), "attributes": item.get_attributes(),
    "secret": list(item.get_secret()), "content_type": item.get_secret_content_type(),
}

def properties(path, interface):
    wrapper = DBusAddressWrapper(path, interface, connection)
    return {name: wrapper.get_property(name) for name in ("Created", "Modified")}


def error_name(call):
    try:
        call()
    except DBusErrorResponse as error:
        return error.name
    except Exception as error:
        cause = error.__cause__
        return cause.name if isinstance(cause, DBusErrorResponse) else type(error).__name__
    return None


typed = created.create_item("Typed", {"app": "coffer-test", "kind": "typed", "xdg:schema": "org.example.Password"}, b"t")
item_wrapper = DBusAddressWrapper(typed.item_path, "org.freedesktop.Secret.Item", connection)
collection_wrapper = DBusAddressWrapper(created.collection_path, "org.freedesktop.Secret.Collection", connection)
report["properties"] = {
    "item": properties(item.item_path, "org.freedesktop.Secret.Item"),
    "collection": properties(created.collection_path, "org.freedesktop.Secret.Collection"),
    "type": item_wrapper.get_property("Type"),
    "items": sorted(collection_wrapper.get_property("Items")),
}
typed.delete()

# Aliases: ReadAlias, SetAlias, and the alias path as an object path.
service_wrapper = DBusAddressWrapper(SS_PATH, SERVICE, connection)
report["aliases"] = {"default": service_wrapper.call("ReadAlias", "s", "default")[0],
                     "unknown": service_wrapper.call("ReadAlias", "s", "work")[0]}
service_wrapper.call("SetAlias", "so", "work", created.collection_path)
report["aliases"]["work"] = service_wrapper.call("ReadAlias", "s", "work")[0]
report["aliases"]["work_label"] = DBusAddressWrapper(
    "/org/freedesktop/secrets/aliases/work", "org.freedesktop.Secret.Collection", connection).get_property("Label")
service_wrapper.call("SetAlias", "so", "work", "/")
report["aliases"]["work_removed"] = service_wrapper.call("ReadAlias", "s", "work")[0]

item.set_secret(b"new text", content_type="text/plain")
report["item_after_set_secret"] = {"secret": item.get_secret().decode(), "content_type": item.get_secret_content_type(),
                                   "label": item.get_label()}
report["search"] = sorted(i.item_path for i in created.search_items({"app": "coffer-test"}))

created.lock()
report["created_locked"] = created.is_locked()
report["locked_items"] = collection_wrapper.get_property("Items")
report["locked_errors"] = {
    # Raw calls: secretstorage would refuse these itself, before asking.
    "create_item": error_name(lambda: collection_wrapper.call(
        "CreateItem", "a{sv}(oayays)b",
        {"org.freedesktop.Secret.Item.Label": ("s", "Refused"),
         "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"app": "coffer-test"})},
        format_secret(session, b"x", "text/plain"), False)),
    "get_secret": error_name(lambda: DBusAddressWrapper(item.item_path, "org.freedesktop.Secret.Item", connection).call(
        "GetSecret", "o", session.object_path)),
    "item_label": error_name(lambda: DBusAddressWrapper(item.item_path, "org.freedesktop.Secret.Item", connection).get_property("Label")),
}
report["created_unlock_dismissed"] = created.unlock()
report["created_relocked"] = created.is_locked()

default.lock()
report["default_locked"] = default.is_locked()
report["default_unlock_dismissed"] = default.unlock()
report["default_unlocked"] = not default.is_locked()

created.set_label("Renamed keys")
report["created_label"] = created.get_label()
created.delete()
report["collections_after_delete"] = sorted(c.collection_path for c in secretstorage.get_all_collections(connection))
json.dump(report, sys.stdout, sort_keys=True)
