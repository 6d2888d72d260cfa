"""A bulk read, as a script that takes every secret it can would do it (jeepney, plain session):
SearchItems with no attributes, GetSecrets on everything listed, unlocked or locked, and GetSecret
on the first locked item. Prints, as JSON, how many were listed unlocked and locked, the secrets
GetSecrets gave, and GetSecret's answer ("a secret" or the D-Bus error's name; "" for none tried).
"""
import json

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

ss = "org.freedesktop.secrets"
service = DBusAddress("/org/freedesktop/secrets", bus_name=ss, interface="org.freedesktop.Secret.Service")
connection = open_dbus_connection(bus="SESSION")


def call(address, method, signature=None, body=()):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
    if reply.header.message_type.name == "error":
        return None, reply.header.fields[4]
    return list(reply.body), None


session = call(service, "OpenSession", "sv", ("plain", ("s", "")))[0][1]
unlocked, locked = call(service, "SearchItems", "a{ss}", ({},))[0]
secrets, _ = call(service, "GetSecrets", "aoo", (unlocked + locked, session))
single = ""
if locked:
    reply, error = call(DBusAddress(locked[0], bus_name=ss, interface="org.freedesktop.Secret.Item"), "GetSecret", "o", (session,))
    single = error or "a secret"
print(json.dumps({"unlocked": len(unlocked), "locked": len(locked), "single": single,
                  "secrets": [value[2].decode() for value in secrets[0].values()]}))
