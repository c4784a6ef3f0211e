"""kazoo 2.11's `Lock`, unmodified, as its documentation uses it, reporting
its lock events to `locksmith serve`.

Each client is a thread with its own `KazooClient` (its own session), and
each round is the documentation's

    lock = zk.Lock("/lockpath", "my-identifier")
    with lock:  # blocks waiting for lock acquisition
        # do something with the lock

with the critical section's opening and closing writes reported as
`begin` and `end`. Every line goes to the events port as
`CLIENT EVENT SESSION` (see docs/serve.md); the judge is locksmith's.

Usage: python3 clients/kazoo/lock.py --zk 127.0.0.1:2281 \
           --events 127.0.0.1:2282 --clients 2 --rounds 20 --hold-ms 50
"""

import argparse
import logging
import socket
import sys
import threading
import time

from kazoo.client import KazooClient


class Events:
    """One connection to the events port, shared by the client threads."""

    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.mutex = threading.Lock()

    def report(self, client, event, zk):
        session = zk.client_id[0] if zk.client_id else 0
        with self.mutex:
            self.sock.sendall(f"{client} {event} 0x{session:x}\n".encode())


def run_client(name, args, events, failures):
    zk = KazooClient(hosts=args.zk, timeout=args.timeout)
    zk.add_listener(lambda state: logging.info("%s: connection %s", name, state))
    zk.start()
    lock = zk.Lock(args.path, name)
    try:
        for _ in range(args.rounds):
            events.report(name, "acquiring", zk)
            try:
                with lock:
                    events.report(name, "acquired", zk)
                    events.report(name, "begin", zk)
                    time.sleep(args.hold_ms / 1000)
                    events.report(name, "end", zk)
                    events.report(name, "released", zk)
            except Exception as e:  # escaped the lock's code: the thread is gone
                logging.warning("%s: %s: %s", name, type(e).__name__, e)
                events.report(name, "died", zk)
                failures.append(f"{name}: {type(e).__name__}")
                break
            time.sleep(args.think_ms / 1000)
    finally:
        events.report(name, "finished", zk)
        zk.stop()
        zk.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--zk", required=True, help="locksmith serve's ZooKeeper, HOST:PORT")
    p.add_argument("--events", required=True, help="its lock-events port, HOST:PORT")
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--hold-ms", type=int, default=50)
    p.add_argument("--think-ms", type=int, default=10)
    p.add_argument("--path", default="/lock")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="the session timeout kazoo asks for (the server's wins)")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(relativeCreated)6d %(message)s")
    events = Events(args.events)
    failures = []
    threads = [threading.Thread(target=run_client, args=(f"k{i + 1}", args, events, failures))
               for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"kazoo {args.clients} clients x {args.rounds} rounds done; "
          f"exceptions: {len(failures)} {sorted(set(failures))}")


if __name__ == "__main__":
    main()
