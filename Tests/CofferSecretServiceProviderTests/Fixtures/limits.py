#!/usr/bin/python3
"""Fills the provider's limits with jeepney, from many connections of one user, and prints as JSON
what a client that comes later got.

    limits.py sessions PER TOTAL       one connection holds PER sessions and is refused one more;
                                       then connections of PER each fill TOTAL, and a late one opens one
    limits.py prompts PER TOTAL        the same with Unlock prompts (the login collection is locked)
    limits.py collections PER TOTAL    one connection creates PER collections and is refused one more;
                                       a second creates one; more connections fill TOTAL, and the next is refused
    limits.py search COUNT             one SearchItems with COUNT attributes
"""
import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
LOGIN = "/org/freedesktop/secrets/collection/login"
report = {}


def call(connection, method, signature, body, address=SERVICE):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=120)
    if reply.header.message_type.name == "error":
        return reply.header.fields[4], None
    return "ok", reply.body


def open_session(connection):
    return call(connection, "OpenSession", "sv", ("plain", ("s", "")))


def unlock(connection):
    return call(connection, "Unlock", "ao", ([LOGIN],))


def create(connection, label):
    return call(connection, "CreateCollection", "a{sv}s", ({"org.freedesktop.Secret.Collection.Label": ("s", label)}, ""))


def fill(make, per, total):
    """One connection at its own limit, then more connections at theirs until TOTAL."""
    first = open_dbus_connection(bus="SESSION")
    answers = [make(first)[0] for _ in range(per + 1)]
    report["first_connection"] = [answers[:per].count("ok"), answers[per]]
    crowd = [first]
    while len(crowd) * per < total:
        connection = open_dbus_connection(bus="SESSION")
        crowd.append(connection)
        for _ in range(per):
            make(connection)
    late = open_dbus_connection(bus="SESSION")
    status, body = make(late)
    report["late"] = status
    return crowd, late, body


mode = sys.argv[1]
if mode == "sessions":
    per, total = int(sys.argv[2]), int(sys.argv[3])
    early = open_dbus_connection(bus="SESSION")
    _, (_, early_session) = open_session(early)
    crowd, late, _ = fill(open_session, per, total)
    # The early client, holding one session, kept it: the crowd's own made room.
    probe = DBusAddress(early_session, bus_name=SS, interface="org.freedesktop.Secret.Session")
    report["early_kept"] = call(early, "Close", "", (), address=probe)[0]
    report["crowd_refused_more"] = open_session(crowd[-1])[0]
elif mode == "prompts":
    per, total = int(sys.argv[2]), int(sys.argv[3])
    crowd, late, body = fill(unlock, per, total)
    report["late_prompt"] = body[1] if body else None
elif mode == "collections":
    per, total = int(sys.argv[2]), int(sys.argv[3])
    first = open_dbus_connection(bus="SESSION")
    answers = [create(first, "first %d" % i)[0] for i in range(per + 1)]
    report["first_connection"] = [answers[:per].count("ok"), answers[per]]
    second = open_dbus_connection(bus="SESSION")
    report["second"] = create(second, "second")[0]
    made = per + 1
    crowd = [first, second]
    while made < total:
        connection = open_dbus_connection(bus="SESSION")
        crowd.append(connection)
        for i in range(min(per, total - made)):
            made += create(connection, "crowd %d %d" % (len(crowd), i))[0] == "ok"
    report["made"] = made
    report["past_total"] = create(open_dbus_connection(bus="SESSION"), "one too many")[0]
elif mode == "search":
    count = int(sys.argv[2])
    connection = open_dbus_connection(bus="SESSION")
    attributes = {"name%07d" % i: "value" for i in range(count)}
    report["search"] = call(connection, "SearchItems", "a{ss}", (attributes,))[0]
    report["after"] = call(connection, "SearchItems", "a{ss}", ({"service": "kept.example"},))[0]
json.dump(report, sys.stdout, sort_keys=True)
