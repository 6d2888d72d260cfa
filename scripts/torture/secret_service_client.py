#!/usr/bin/python3
"""A Secret Service client for the torture campaign's secret-service section
(scripts/torture/sections/secret_service.py), written with jeepney (Debian's python3-jeepney), so
that the provider is driven by no code of its own.
It runs with Debian's /usr/bin/python3, which has jeepney; it needs DBUS_SESSION_BUS_ADDRESS.

    create CLIENT COUNT     CreateItem COUNT items ss-CLIENT/0.. on the default alias; prints "ok N"
                            as each reply arrives (flushed), and exits 3 when the service goes away
    mixed CLIENT OPS SEED   OPS random CreateItem (replace) / GetSecret / Delete calls on the items
                            mix-CLIENT/0..19; exits 4 on a read that is not the last write, else
                            prints its final model as JSON
    dump PREFIX             every item whose service starts with PREFIX, as JSON {service/user: secret}
"""
import json
import random
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

SS = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=SS, interface="org.freedesktop.Secret.Service")
DEFAULT = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=SS, interface="org.freedesktop.Secret.Collection")


class Gone(Exception):
    pass


def call(connection, address, method, signature=None, body=()):
    try:
        reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
    except Exception as error:  # the connection or the service went away
        raise Gone(str(error))
    if reply.header.message_type.name == "error":
        raise Gone(f"{reply.header.fields[4]}: {reply.body}")
    return reply.body


def item_address(path):
    return DBusAddress(path, bus_name=SS, interface="org.freedesktop.Secret.Item")


def store(connection, session, service, user, value):
    attributes = {"service": service, "username": user, "torture": "1"}
    properties = {"org.freedesktop.Secret.Item.Label": ("s", f"{service} {user}"),
                  "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
    item, _prompt = call(connection, DEFAULT, "CreateItem", "a{sv}(oayays)b",
                         (properties, (session, b"", value, "text/plain"), True))
    return item


def find(connection, service, user):
    items = call(connection, DEFAULT, "SearchItems", "a{ss}", ({"service": service, "username": user},))[0]
    return items


def main():
    mode = sys.argv[1]
    connection = open_dbus_connection(bus="SESSION")
    session = call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[1]
    try:
        if mode == "create":
            client, count = sys.argv[2], int(sys.argv[3])
            for n in range(count):
                store(connection, session, f"ss-{client}", str(n), f"{client}:{n}".encode())
                print(f"ok {n}", flush=True)
        elif mode == "mixed":
            client, ops, rng = sys.argv[2], int(sys.argv[3]), random.Random(sys.argv[4])
            model, service = {}, f"mix-{client}"
            for _ in range(ops):
                user, action = str(rng.randrange(20)), rng.random()
                if action < 0.45:
                    value = f"{client}:{rng.randrange(1 << 30)}".encode()
                    store(connection, session, service, user, value)
                    model[user] = value.decode()
                elif action < 0.8:
                    found = find(connection, service, user)
                    got = call(connection, item_address(found[0]), "GetSecret", "o", (session,))[0][2].decode() if found else None
                    if got != model.get(user):
                        print(f"wrong {service}/{user}: read {got!r}, last wrote {model.get(user)!r}", flush=True)
                        return 4
                else:
                    for path in find(connection, service, user):
                        call(connection, item_address(path), "Delete", "", ())
                    model.pop(user, None)
            print(json.dumps(model), flush=True)
        elif mode == "dump":
            prefix = sys.argv[2]
            paths = call(connection, SERVICE, "SearchItems", "a{ss}", ({"torture": "1"},))[0]
            secrets = call(connection, SERVICE, "GetSecrets", "aoo", (paths, session))[0]
            out = {}
            for path, (_, _, value, _) in secrets.items():
                attributes = call(connection, item_address(path).with_interface("org.freedesktop.DBus.Properties"),
                                  "Get", "ss", ("org.freedesktop.Secret.Item", "Attributes"))[0][1]
                if attributes["service"].startswith(prefix):
                    out[f"{attributes['service']}/{attributes['username']}"] = value.decode()
            print(json.dumps(out, sort_keys=True), flush=True)
    except Gone as error:
        print(f"gone {error}", file=sys.stderr, flush=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
