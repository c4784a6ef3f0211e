#!/usr/bin/env python3
"""Counts the import circles between the source files of model/src and
sim/src, and the imports that run against docs/architecture.md's layers.

The rule: every .rs file is a node (`mod.rs` is its folder's module,
`lib.rs`/`main.rs` the crate root). A file A imports a file B when A names
B in a `use` line or in an inline path starting with `crate::`, `super::`,
`self::` or `locksmith_model::` (comments and string literals are skipped;
`#[cfg(test)]` modules are code too). A path counts for the deepest file
module it reaches. A `mod.rs` or `lib.rs` naming its own children (`mod
x;`, `pub use x::Y;`) does not import them: that is its folder's table of
contents. A circle is a strongly connected component of two or more files.

An upward import: a file of a lower layer (LAYERS below) naming one of a
higher layer. A sideways import: a file of one backend's folder naming
another backend's, or one driver naming another.

Usage: python3 scripts/imports.py [--check]   (--check: exit 1 on any)
"""
import os
import re
import signal
import sys

# `| head` ends the output quietly.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = {"model": "model/src", "sim": "sim/src"}

# (path prefix, layer, part); the longest prefix wins. Parts of one layer
# must not import each other.
LAYERS = [
    ("model/src/engine/harness/", 1, "harness"),
    ("model/src/zk/", 1, "zk"),
    ("model/src/redis/", 1, "redis"),
    ("model/src/mysql/", 1, "mysql"),
    ("model/src/engine/", 2, "engine"),
    ("model/src/zk/client/", 3, "zk"),
    ("model/src/zk/recipes/", 3, "zk"),
    ("model/src/redis/recipes/", 3, "redis"),
    ("model/src/mysql/recipes/", 3, "mysql"),
    ("model/src/zk/check/", 4, "zk"),
    ("model/src/redis/check/", 4, "redis"),
    ("model/src/mysql/check/", 4, "mysql"),
    ("model/src/lib.rs", 5, "model"),
    ("sim/src/scenario/", 10, "scenario"),
    ("sim/src/sim_settings.rs", 10, "scenario"),
    ("sim/src/expect.rs", 10, "scenario"),
    ("sim/src/interrupt.rs", 10, "interrupt"),
    ("sim/src/timeline.rs", 10, "timeline"),
    ("sim/src/simulate/", 11, "simulate"),
    ("sim/src/real/", 11, "real"),
    ("sim/src/confirm/", 11, "confirm"),
    ("sim/src/compare/", 12, "compare"),
    ("sim/src/cli/", 13, "cli"),
    ("sim/src/lib.rs", 14, "sim"),
    ("sim/src/main.rs", 14, "sim"),
]

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
PATH = re.compile(r"\b(crate|super|self|locksmith_model)((?:::" + IDENT + r")+)")
USE = re.compile(r"\buse\s+([^;]+);")


def strip(text):
    """Code without comments and string or char literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not text[i - 1].isalnum()):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            j = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if j < 0 else j + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4] + "   "):
            m = re.match(r"'(\\[^']*|[^\\'])'", text[i:])
            i += len(m.group(0)) if m else 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def modules():
    """{(crate, module path tuple): file}"""
    mods = {}
    for crate, src in CRATES.items():
        for d, _, files in os.walk(os.path.join(ROOT, src)):
            for f in files:
                if not f.endswith(".rs"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), os.path.join(ROOT, src))
                parts = rel[:-3].split(os.sep)
                if parts == ["main"]:
                    # The binary is a crate of its own over the library.
                    mods[(crate + "-bin", ())] = os.path.join(src, rel)
                    continue
                if parts[-1] == "mod" or parts == ["lib"]:
                    parts = parts[:-1]
                mods[(crate, tuple(parts))] = os.path.join(src, rel)
    return mods


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']"""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [tree]
    head, body = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [x for p in parts if p for x in expand_use(head + p)]


def resolve(crate, here, segs, mods, children):
    """The file a path names (deepest module), or None."""
    if segs[0] == "locksmith_model":
        crate, base, segs = "model", [], segs[1:]
    elif segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("self", "super"):
        base = list(here)
        if segs[0] == "self":
            segs = segs[1:]
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    elif segs[0] in children.get((crate, tuple(here)), ()):
        base = list(here)
    else:
        return None
    best = None
    for k in range(len(segs) + 1):
        key = (crate, tuple(base + segs[:k]))
        if key in mods:
            best = mods[key]
    return best


def inside(t, f):
    """t is in the folder whose module file is f (mod.rs or lib.rs)."""
    if os.path.basename(f) not in ("mod.rs", "lib.rs"):
        return False
    return t.startswith(os.path.dirname(f) + "/")


def graph(with_inline=True):
    mods = modules()
    children = {}
    for (crate, path) in mods:
        if path:
            children.setdefault((crate, path[:-1]), set()).add(path[-1])
    edges = {}
    for (crate, here), f in mods.items():
        code = strip(open(os.path.join(ROOT, f), encoding="utf-8").read())
        code = re.sub(r"\b(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*;", "", code)
        paths = []
        for m in USE.finditer(code):
            paths += expand_use(m.group(1).replace("self::", "self::"))
        if with_inline:
            used = "".join(m.group(0) for m in USE.finditer(code))
            rest = USE.sub("", code)
            paths += [m.group(0) for m in PATH.finditer(rest)]
        for p in paths:
            segs = [s for s in re.split(r"::", p.split(" as ")[0]) if s and s != "*"]
            if not segs:
                continue
            t = resolve(crate, here, segs, mods, children)
            # A module file naming its own children (`pub use child::X`)
            # is a folder's table of contents, not an import.
            if t and t != f and not inside(t, f):
                edges.setdefault(f, set()).add(t)
    return sorted(mods.values()), edges


def circles(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter[0]
                counter[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return sorted(out)


def layer(f):
    best = None
    for prefix, n, part in LAYERS:
        if f.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, n, part)
    return best


def main():
    nodes, edges = graph()
    cs = circles(nodes, edges)
    cs_use = circles(*graph(with_inline=False))
    up, side = [], []
    for a in nodes:
        for b in sorted(edges.get(a, ())):
            la, lb = layer(a), layer(b)
            if not la or not lb:
                continue
            if lb[1] > la[1]:
                up.append((a, b))
            elif la[2] != lb[2] and (lb[1] == la[1] or la[0].startswith("model/src/") and
                                     lb[2] in ("zk", "redis", "mysql") and
                                     la[2] in ("zk", "redis", "mysql")):
                side.append((a, b))
    n_edges = sum(len(v) for v in edges.values())
    print(f"circles: {len(cs)} (use lines only: {len(cs_use)}); upward imports: {len(up)}; "
          f"sideways imports: {len(side)}; files: {len(nodes)}; imports: {n_edges}")
    for i, c in enumerate(cs, 1):
        print(f"circle {i}: " + ", ".join(c))
    for a, b in up:
        print(f"upward: {a} -> {b}")
    for a, b in side:
        print(f"sideways: {a} -> {b}")
    if "--check" in sys.argv and (cs or up or side):
        sys.exit(1)


main()
