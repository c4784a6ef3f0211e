#!/usr/bin/env python3
"""Sums up a timeline written by `locksmith real --timeline FILE` (a real
ZooKeeper) or `locksmith replay --timeline FILE` (the simulator): the same
lines from both, so two runs can be set side by side.

    scripts/timeline.py FILE [--skip FRACTION]

Prints the requests per second, each operation's round trip (a client's
requests are answered in the order it sent them: ZooKeeper's per-session
FIFO), and, for every change of a directory's children that the timeline
shows (a getChildren reply carries the children's version, `cversion`),
how many clients had a children watch armed on it when it changed: those
whose last watching getChildren read the version before. A change no
client had read the version before of is counted apart (its kind is not
known). --skip leaves out the first part of the run, before the clients
settle (default 0.1).
"""
import collections
import re
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--skip")]
    skip = 0.1
    for a in argv[1:]:
        if a.startswith("--skip="):
            skip = float(a.split("=", 1)[1])
    if len(args) != 1 or not 0 <= skip < 1:
        sys.exit("usage: scripts/timeline.py FILE [--skip=FRACTION]")
    events = []
    with open(args[0], encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) != 4 or parts[2] not in ("send", "reply", "event"):
                sys.exit(f"{args[0]}:{n}: expected `<ns> c<N> send|reply|event <value>`")
            events.append((int(parts[0]), parts[1], parts[2], parts[3]))
    if not events:
        sys.exit(f"{args[0]}: no events")
    events = events[int(len(events) * skip):]

    # Round trips: each client's replies answer its sends in order.
    pending = collections.defaultdict(collections.deque)
    trips = collections.defaultdict(list)
    # Children watches: who read which version, with a watch.
    readers = collections.defaultdict(set)
    children_at = {}
    for t, c, kind, value in events:
        if kind == "send":
            op = value.split(" ", 1)[0]
            pending[c].append((t, op, "watch: true" in value))
        elif kind == "reply" and pending[c]:
            t0, op, watch = pending[c].popleft()
            trips[op].append((t - t0) / 1e3)
            m = re.search(r"cversion: (-?\d+).*num_children: (\d+)", value)
            if op == "GetChildren" and m:
                v = int(m.group(1))
                children_at[v] = int(m.group(2))
                if watch:
                    readers[v].add(c)

    span = (events[-1][0] - events[0][0]) / 1e9
    sends = sum(1 for e in events if e[2] == "send")
    clients = len({e[1] for e in events})
    print(f"{args[0]}: {len(events)} events of {clients} clients over {span:.3f} s "
          f"(the first {skip:.0%} skipped)")
    if span > 0:
        print(f"requests: {sends / span:.0f} per second")
    print("round trip, µs (p10 / p50 / p90):")
    for op in sorted(trips):
        x = sorted(trips[op])
        q = lambda f: x[min(len(x) - 1, int(len(x) * f))]
        print(f"  {op:<12} {len(x):>7}  {q(0.1):.0f} / {q(0.5):.0f} / {q(0.9):.0f}")

    if not children_at:
        return
    armed = collections.defaultdict(list)
    unread = 0
    for v in range(min(children_at), max(children_at)):
        if v not in children_at:
            unread += 1
        elif v + 1 in children_at:
            change = "create" if children_at[v + 1] > children_at[v] else "delete"
            armed[change].append(len(readers[v]))
    print("children changes, with the clients watching when each fired:")
    for change in sorted(armed):
        x = armed[change]
        hist = " ".join(f"{k}:{n}" for k, n in sorted(collections.Counter(x).items()))
        print(f"  {change:<6} {len(x):>6}  mean {sum(x) / len(x):.2f}  ({hist})")
    print(f"  {unread} more with no reader of the version before (none armed; kind unknown)")


if __name__ == "__main__":
    main(sys.argv)
