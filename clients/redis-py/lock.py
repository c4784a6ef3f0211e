"""redis-py's `Lock`, unmodified, as its documentation uses it, reporting
its lock events to `locksmith serve --protocol resp`.

Each client is a thread with its own connection, and each round is the
documentation's

    with r.lock("lock", timeout=..., blocking_timeout=...):
        ...  # the critical section

with the critical section's opening and closing writes reported as
`begin` and `end`. Every line goes to the events port as `CLIENT EVENT`
(see docs/serve.md); the judge is locksmith's. A hold longer than the
lock's `timeout` lets the key expire under its holder: what the judge
then sees is redis-py's documented caveat, not a fault of the server.

Usage: python3 clients/redis-py/lock.py --redis 127.0.0.1:2281 \
           --events 127.0.0.1:2282 --clients 2 --rounds 20 --hold-ms 50
"""

import argparse
import logging
import socket
import sys
import threading
import time

import redis


class Events:
    """One connection to the events port, shared by the client threads."""

    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.mutex = threading.Lock()

    def report(self, client, event):
        with self.mutex:
            self.sock.sendall(f"{client} {event}\n".encode())


def run_client(name, args, events, failures):
    host, port = args.redis.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port))
    try:
        for _ in range(args.rounds):
            events.report(name, "acquiring")
            try:
                with r.lock(args.key, timeout=args.timeout_ms / 1000,
                            blocking_timeout=args.blocking_timeout_ms / 1000):
                    events.report(name, "acquired")
                    events.report(name, "begin")
                    time.sleep(args.hold_ms / 1000)
                    events.report(name, "end")
                    events.report(name, "released")
            except Exception as e:  # what the library raised, reported
                logging.warning("%s: %s: %s", name, type(e).__name__, e)
                failures.append(f"{name}: {type(e).__name__}")
            time.sleep(args.think_ms / 1000)
    finally:
        events.report(name, "finished")
        r.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--redis", required=True, help="locksmith serve's RESP port, HOST:PORT")
    p.add_argument("--events", required=True, help="its lock-events port, HOST:PORT")
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--hold-ms", type=int, default=50)
    p.add_argument("--think-ms", type=int, default=10)
    p.add_argument("--timeout-ms", type=int, default=1000,
                   help="the lock's timeout: the key's TTL")
    p.add_argument("--blocking-timeout-ms", type=int, default=10000)
    p.add_argument("--key", default="lock")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(relativeCreated)6d %(message)s")
    events = Events(args.events)
    failures = []
    threads = [threading.Thread(target=run_client, args=(f"r{i + 1}", args, events, failures))
               for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"redis-py {args.clients} clients x {args.rounds} rounds done; "
          f"exceptions: {len(failures)} {sorted(set(failures))}")


if __name__ == "__main__":
    main()
