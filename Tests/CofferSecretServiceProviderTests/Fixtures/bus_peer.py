"""A client that stays on the session bus, for the tests of who is behind a unique name.

bus_peer.py GO HOLD: connects (jeepney), prints its unique name, then waits until a line can be
read from the FIFO GO. Then it forks: the child keeps the connection and waits until the FIFO
HOLD can be read, the parent prints the child's PID and ends.
"""
import os
import sys

from jeepney.io.blocking import open_dbus_connection

go, hold = sys.argv[1], sys.argv[2]
connection = open_dbus_connection(bus="SESSION")
print(connection.unique_name, flush=True)
with open(go) as fifo:
    fifo.readline()
child = os.fork()
if child:
    print(child, flush=True)
    os._exit(0)
# The child lets go of the test's pipes, so that the parent's end is seen.
null = os.open(os.devnull, os.O_RDWR)
for descriptor in (0, 1, 2):
    os.dup2(null, descriptor)
with open(hold) as fifo:
    fifo.read()
