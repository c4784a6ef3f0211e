#!/usr/bin/env python3
"""Measures the module structure of model/src and sim/src by the project's
own rule: the import circles between source files, and the imports that
run against the layer table (LAYERS below).

The rule:

- Nodes are source files. Each `.rs` file under model/src and sim/src is
  one module; `foo/mod.rs` is module `foo`; `lib.rs` and `main.rs` are the
  crate root (sim's `main.rs` is the binary's own root and names the
  library as `locksmith::`). Left out: files under `tests/` and `benches/`,
  any file whose `mod` declaration in its parent is preceded by
  `#[cfg(test)]` (e.g. redis/tests.rs), and every `#[cfg(test)]`-attributed
  `mod ... { }` block inside a file (cut out by brace matching).
- Edges: file A -> file B when A names B through
  (1) a `use` line: `use`, `pub use`, grouped trees `use a::{b, c::{d}}`,
      `self::`, `super::`, `crate::`, and `locksmith_model::` from the sim
      crate, which resolves into model/src; a bare first segment is, as in
      the 2018 edition, a child module of the current module first, else a
      child of the crate root, else an extern crate (no edge); or
  (2) an inline path anywhere in code, macros included (not in comments,
      doc comments or string literals), starting with `crate::` (or
      `$crate::`), `super::`, `self::` or `locksmith_model::`.
  A path resolves to the deepest existing file module along it
  (`crate::zk::check::system::System` -> zk/check/system.rs if it exists,
  else zk/check/mod.rs). A path that reaches only a parent `mod.rs`,
  because the item is re-exported there, is an edge to that `mod.rs`.
  A folder's module file (`foo/mod.rs`, `lib.rs`) naming a module inside
  its own folder is that folder's table of contents, not an import: no
  edge from it to its descendants, whether it declares them (`mod x;`,
  `pub mod x;`), re-exports from them (`pub use x::Y;`), uses them
  (`use x::Y;`) or calls into them (`self::x::f()`). The other way does
  count: a child naming `super::Y` is an edge to the mod.rs. (With
  --folder-edges a module file's own folder counts too.) `pub(in path)`
  visibility is not a path. Self-edges are ignored.
- A circle is a strongly connected component of two or more files (Tarjan,
  iterative). Counted twice: with both kinds of edges (the figure that
  matters) and with `use` lines only.
- Layers: LAYERS maps a path prefix to (layer, part); the longest prefix
  wins; a file no prefix matches is "unplaced" (listed, not an error). An
  edge from a file of layer L to a file of a higher layer is an upward
  import. An edge between two different parts of one layer listed in
  SEALED_LAYERS, or between two different parts of one group in APART (at
  any layers, unless already upward), is a sideways import.

Usage: python3 scripts/imports.py [--root DIR] [--check] [--json] [--folder-edges]
  --root DIR      the repository (default: the one this script is in)
  --check         exit 1 when there is any circle, upward or sideways import
  --json          the same figures and lists as one JSON object
  --folder-edges  also count a module file's names into its own folder
"""
import argparse
import json
import os
import re
import signal
import sys

# `| head` ends the output quietly.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

# crate key -> (source folder, the name other crates use for it)
CRATES = {"model": ("model/src", "locksmith_model"), "sim": ("sim/src", "locksmith")}

# (path prefix, layer, part): the longest matching prefix wins. Layers
# grow upward: a file may import files of its own layer and below. The
# model's layers are 1-6, the app's 9-15 (the app sits on the model).
LAYERS = [
    # model layer 1: leaves. The harness (lock events, properties, their
    # judge: what every driver reports in) and each backend's server model
    # (the files at the root of its folder) import only std and serde.
    ("model/src/engine/harness/", 1, "harness"),
    ("model/src/zk/", 1, "zk"),
    ("model/src/redis/", 1, "redis"),
    ("model/src/mysql/", 1, "mysql"),
    ("model/src/etcd/", 1, "etcd"),
    # model layer 2: the backend-blind checker engine (search, levels,
    # visited set, graph analyses); a backend enters only through
    # engine::space::Space.
    ("model/src/engine/", 2, "engine"),
    # model layer 3: each backend's client side: ZooKeeper's Java client
    # library, and the lock recipes, over its own server model.
    ("model/src/zk/client/", 3, "zk"),
    ("model/src/zk/recipes/", 3, "zk"),
    ("model/src/redis/recipes/", 3, "redis"),
    ("model/src/mysql/recipes/", 3, "mysql"),
    ("model/src/etcd/recipes/", 3, "etcd"),
    # model layer 4: each backend's checker space (a Space for the engine).
    ("model/src/zk/check/", 4, "zk"),
    ("model/src/redis/check/", 4, "redis"),
    ("model/src/mysql/check/", 4, "mysql"),
    ("model/src/etcd/check/", 4, "etcd"),
    # model layer 5: the one list of every backend's recipes, joining the
    # three backends' own catalogues (what the CLI names to a user).
    ("model/src/catalogue.rs", 5, "catalogue"),
    # model layer 6: the crate root, which only declares the folders.
    ("model/src/lib.rs", 6, "model"),
    # app layer 9: leaves every part of the app may use: what each backend
    # can be asked to do, a report's title, the exit codes, the machine's
    # cores and memory, count flags, a progress line, a file written whole.
    ("sim/src/backend.rs", 9, "backend"),
    ("sim/src/atomic_file.rs", 9, "atomic_file"),
    ("sim/src/machine.rs", 9, "machine"),
    ("sim/src/exit.rs", 9, "exit"),
    ("sim/src/title.rs", 9, "title"),
    ("sim/src/counts.rs", 9, "counts"),
    ("sim/src/progress.rs", 9, "progress"),
    # app layer 10: the frameworks below the backends' folders: the seam
    # (commands.rs: what every command asks of a scenario; the command
    # backends' answer, once), what every reader shares, the expected
    # outcomes, Ctrl-C, and each command's shared run (its flags, the
    # traits a backend fills in, what it prints).
    ("sim/src/scenario/", 10, "scenario"),
    ("sim/src/expect.rs", 10, "scenario"),
    ("sim/src/interrupt.rs", 10, "interrupt"),
    ("sim/src/simulate/", 10, "simulate"),
    ("sim/src/check/", 10, "check"),
    ("sim/src/commands.rs", 10, "commands"),
    ("sim/src/command_backend.rs", 10, "commands"),
    ("sim/src/real/", 10, "real"),
    ("sim/src/confirm/", 10, "confirm"),
    # app layer 10 too: what every backend's comparison matrix shares (a
    # row, a column, a judged cell, how a matrix is declared and drawn, a
    # command backend's cell run and pages), below the backends' folders
    # that declare their matrices on it (<backend>/compare/).
    ("sim/src/matrix/", 10, "matrix"),
    # app layer 11: one folder per backend (its scenario reader, check
    # words, simulated world, real-server adapter and run, re-enactment,
    # compare matrix, and its answer to the commands); none imports another.
    ("sim/src/zk/", 11, "zk"),
    ("sim/src/redis/", 11, "redis"),
    ("sim/src/mysql/", 11, "mysql"),
    ("sim/src/etcd/", 11, "etcd"),
    # app layer 12: a backend's model behind its client protocol
    # (serve/zk, serve/redis, behind the shared run and judge).
    ("sim/src/serve/", 12, "serve"),
    # app layer 12 too: the one list of the backends, which reads a
    # scenario file by the backend its recipe names, and lists their
    # comparison matrices.
    ("sim/src/backends.rs", 12, "backends"),
    # app layer 13: the comparison report, from every backend's matrix
    # (it names none).
    ("sim/src/compare/", 13, "compare"),
    # app layer 14: the commands.
    ("sim/src/cli/", 14, "cli"),
    # app layer 15: the crate roots (lib.rs declares; main.rs runs the CLI).
    ("sim/src/lib.rs", 15, "root"),
    ("sim/src/main.rs", 15, "root"),
]

# Layers whose different parts must not import each other.
SEALED_LAYERS = {
    1,   # the harness and the three server models
    3,   # one backend's client and recipes never use another's
    4,   # one backend's checker space never uses another's
    9,   # the app's leaves
    11,  # one backend's folder never uses another's
    12,  # serve and the list of backends
}

# Groups of parts that must not import each other at any layer: a
# backend's folder never imports another backend's.
APART = [{"zk", "redis", "mysql", "etcd"}]

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
SEP = r"\s*::\s*"
# An inline path: a crate-relative start, then `::name` segments.
INLINE = re.compile(r"(?<![\w:$])(\$crate|crate|super|self|locksmith_model)\b((?:" + SEP + IDENT + r")+)")
USE_START = re.compile(r"(?<![\w$])use\s")
CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
MOD_DECL = re.compile(r"(?<![\w$])(?:pub\s*(?:\([^)]*\))?\s*)?mod\s+(" + IDENT + r")\s*;")
INLINE_MOD = re.compile(r"(?<![\w$])mod\s+(" + IDENT + r")\s*\{")
VIS_IN = re.compile(r"\bpub\s*\(\s*in\s+[^)]*\)")
CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]*\}|.)|[^\\'\n])'")


# ---------------------------------------------------------------- lexing

def strip(text):
    """The code with comments, string literals and char literals blanked
    (strings become "", chars 'c'); lifetimes and labels stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c == "r" and raw_string_at(text, i):
            hashes = re.match(r"r(#*)\"", text[i:i + 300]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            i = n if j < 0 else j + len(end)
            out.append('r""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'":
            m = CHAR.match(text, i)
            if m:
                out.append("'c'")
                i = m.end()
            else:  # a lifetime or a label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def ident_char(ch):
    return ch.isalnum() or ch == "_"


def raw_string_at(text, i):
    """A raw string (r"..", r#".."#, br"..", cr"..") starts at text[i] == 'r'."""
    if not re.match(r"r#*\"", text[i:i + 300]):
        return False
    if i == 0 or not ident_char(text[i - 1]):
        return True
    return text[i - 1] in "bc" and (i == 1 or not ident_char(text[i - 2]))


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def cut_tests(code):
    """(code without #[cfg(test)] mod blocks, names of #[cfg(test)] mod x; children)"""
    test_children = set()
    pos = 0
    while True:
        m = CFG_TEST.search(code, pos)
        if not m:
            return code, test_children
        j = m.end()
        # more attributes may follow before the item
        while True:
            a = re.compile(r"\s*#\s*\[").match(code, j)
            if not a:
                break
            depth, k = 0, a.end() - 1
            while k < len(code):
                depth += code[k] == "["
                depth -= code[k] == "]"
                k += 1
                if depth == 0:
                    break
            j = k
        item = re.compile(r"\s*(?:pub\s*(?:\([^)]*\))?\s*)?mod\s+(" + IDENT + r")\s*([;{])").match(code, j)
        if not item:
            pos = m.end()
            continue
        if item.group(2) == ";":
            test_children.add(item.group(1))
            end = item.end()
        else:
            end = matching_brace(code, item.end() - 1) + 1
        code = code[:m.start()] + " " + code[end:]
        pos = m.start()


# ---------------------------------------------------------------- use trees

def use_items(code):
    """[(start offset, tree text)] of every `use ...;` item."""
    out = []
    for m in USE_START.finditer(code):
        depth, j = 0, m.end()
        while j < len(code):
            ch = code[j]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == ";" and depth <= 0:
                break
            j += 1
        out.append((m.start(), m.end(), j + 1, code[m.end():j]))
    return out


def use_leaves(tree):
    """`a::{self, b, c::{d as e, *}}` -> [[a], [a, b], [a, c, d], [a, c, *]]"""
    toks = re.findall(r"\$?" + IDENT + r"|::|[{},*]", tree)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def tree_at(prefix):
        leaves, path = [], list(prefix)
        if peek() == "::":
            take()
        while True:
            t = peek()
            if t is None or t in (",", "}"):
                return leaves + [path]
            if t == "{":
                take()
                while peek() not in (None, "}"):
                    leaves += tree_at(path)
                    if peek() == ",":
                        take()
                if peek() == "}":
                    take()
                return leaves
            if t == "*":
                take()
                return leaves + [path + ["*"]]
            if t == "as":
                take()
                if peek() not in (None, ",", "}"):
                    take()
                continue
            if t == "::":
                take()
                continue
            take()
            if t == "self" and path:
                continue  # `a::{self}` is `a`
            path.append(t)

    leaves = []
    while peek() is not None:
        leaves += tree_at([])
        if peek() == ",":
            take()
        elif peek() is not None and peek() != ",":
            take()
    return [leaf for leaf in leaves if leaf]


# ---------------------------------------------------------------- the tree

def find_files(root):
    """{(crate, module path): repo-relative file}, {file: stripped code}"""
    mods, code = {}, {}
    for crate, (src, _) in CRATES.items():
        base = os.path.join(root, src)
        for d, dirs, files in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x not in ("tests", "benches"))
            for f in sorted(files):
                if not f.endswith(".rs"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), base)
                parts = rel[:-3].split(os.sep)
                key = crate
                if parts == ["main"]:
                    key, parts = crate + "-bin", []
                elif parts == ["lib"] or parts[-1] == "mod":
                    parts = parts[:-1]
                path = src + "/" + rel.replace(os.sep, "/")
                mods[(key, tuple(parts))] = path
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    code[path] = strip(fh.read())
    return mods, code


def load(root):
    mods, raw = find_files(root)
    code, test_children = {}, {}
    for key, f in mods.items():
        code[f], test_children[key] = cut_tests(raw[f])
    # Files declared under #[cfg(test)], and everything below them, go.
    gone = set()
    for (crate, path), names in test_children.items():
        for name in names:
            gone.add((crate, path + (name,)))
    mods = {k: f for k, f in mods.items()
            if not any(k[0] == g[0] and k[1][:len(g[1])] == g[1] for g in gone)}
    children = {}
    for crate, path in mods:
        if path:
            children.setdefault((crate, path[:-1]), set()).add(path[-1])
    return mods, {f: code[f] for f in mods.values()}, children


def resolve(crate, here, segs, mods, children, bare):
    """(file, the names after its module, the module's name) a path
    reaches, or None. `here` is the module the path is written in; `bare`
    allows a bare first segment (use lines only)."""
    first = segs[0]
    if first in ("crate", "$crate"):
        base, rest = (), segs[1:]
    elif first == CRATES["model"][1] and crate != "model":
        crate, base, rest = "model", (), segs[1:]
    elif first == CRATES["sim"][1] and crate == "sim-bin":
        crate, base, rest = "sim", (), segs[1:]
    elif first == "self":
        base, rest = here, segs[1:]
    elif first == "super":
        base, rest = here, segs
        while rest and rest[0] == "super":
            if not base:
                return None
            base, rest = base[:-1], rest[1:]
    elif bare and first in children.get((crate, here), ()):
        base, rest = here, segs
    elif bare and first in children.get((crate, ()), ()):
        base, rest = (), segs
    else:
        return None
    full = tuple(base) + tuple(rest)
    for k in range(len(full), -1, -1):
        if (crate, full[:k]) in mods:
            # the names taken: what follows the module, [] for the module itself
            return mods[(crate, full[:k])], list(full[k:]), full[k - 1] if k else "crate"
    return None


def inline_mod_spans(code):
    """[(start, end, name)] of the inline `mod x { }` blocks left in a file."""
    out = []
    for m in INLINE_MOD.finditer(code):
        out.append((m.end() - 1, matching_brace(code, m.end() - 1), m.group(1)))
    return out


def module_at(here, spans, offset):
    return here + tuple(name for s, e, name in spans if s < offset < e)


def graph(root, folder_edges=False):
    """nodes, {(a, b): {"use": names, "inline": names}}"""
    mods, code, children = load(root)
    key_of = {f: k for k, f in mods.items()}
    edges = {}

    def own_folder(a, b):
        """b is a module inside a's folder (a is its module file)."""
        (ca, pa), (cb, pb) = key_of[a], key_of[b]
        return ca == cb and len(pb) > len(pa) and pb[:len(pa)] == pa

    def add(a, b, kind, names):
        if b and a != b and (folder_edges or not own_folder(a, b)):
            e = edges.setdefault((a, b), {"use": set(), "inline": set()})
            e[kind].add("::".join(names))

    for (crate, here), f in sorted(mods.items(), key=lambda kv: kv[1]):
        text = VIS_IN.sub(" ", MOD_DECL.sub(" ", code[f]))
        spans = inline_mod_spans(text)
        used = []
        for start, _, end, tree in use_items(text):
            used.append((start, end))
            at = module_at(here, spans, start)
            for leaf in use_leaves(tree):
                glob = leaf[-1] == "*"
                segs = leaf[:-1] if glob else leaf
                if not segs:
                    continue
                hit = resolve(crate, at, segs, mods, children, bare=True)
                if hit:
                    # `m::*` takes everything of m, `m::E::*` E's variants
                    names = hit[1] + ["*"] if glob else hit[1] or [hit[2]]
                    add(f, hit[0], "use", names)
        # inline paths outside use items
        mask = list(text)
        for start, end in used:
            for k in range(start, min(end, len(mask))):
                if mask[k] != "\n":
                    mask[k] = " "
        rest = "".join(mask)
        for m in INLINE.finditer(rest):
            segs = [m.group(1)] + re.split(SEP, m.group(2).strip())[1:]
            at = module_at(here, spans, m.start())
            hit = resolve(crate, at, segs, mods, children, bare=False)
            if hit:
                add(f, hit[0], "inline", hit[1][:1] or [hit[2]])
    return sorted(mods.values()), edges


# ---------------------------------------------------------------- analysis

def circles(nodes, adj):
    """Strongly connected components of 2+ nodes (iterative Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        work = [(root, iter(sorted(adj.get(root, ()))))]
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
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
                index[w] = low[w] = counter
                counter += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(adj.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return sorted(out)


def layer_of(f):
    best = None
    for prefix, n, part in LAYERS:
        if f.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, n, part)
    return best and (best[1], best[2])


def names_of(e):
    """[a, b] from use lines, then the inline paths', marked `(inline)`."""
    return sorted(e["use"]) + [n + " (inline)" for n in sorted(e["inline"] - e["use"])]


def measure(root, folder_edges=False):
    nodes, edges = graph(root, folder_edges)
    adj, adj_use = {}, {}
    for (a, b), e in edges.items():
        adj.setdefault(a, set()).add(b)
        if e["use"]:
            adj_use.setdefault(a, set()).add(b)
    cs = circles(nodes, adj)
    cs_use = circles(nodes, adj_use)
    up, side = [], []
    for (a, b) in sorted(edges):
        la, lb = layer_of(a), layer_of(b)
        if not la or not lb:
            continue
        row = {"from": a, "to": b, "from_layer": la[0], "from_part": la[1],
               "to_layer": lb[0], "to_part": lb[1], "names": names_of(edges[(a, b)])}
        if lb[0] > la[0]:
            up.append(row)
        elif la[1] != lb[1] and (
                (la[0] == lb[0] and la[0] in SEALED_LAYERS)
                or any(la[1] in g and lb[1] in g for g in APART)):
            side.append(row)
    circle_rows = []
    for c in cs:
        inside = set(c)
        circle_rows.append({
            "files": c,
            "edges": [{"from": a, "to": b, "names": names_of(edges[(a, b)])}
                      for (a, b) in sorted(edges) if a in inside and b in inside],
        })
    return {
        "circles": len(cs),
        "circles_use_lines_only": len(cs_use),
        "upward_imports": len(up),
        "sideways_imports": len(side),
        "files": len(nodes),
        "edges": len(edges),
        "edges_use_lines_only": sum(1 for e in edges.values() if e["use"]),
        "circle_list": circle_rows,
        "circle_list_use_lines_only": cs_use,
        "upward": up,
        "sideways": side,
        "unplaced": sorted(f for f in nodes if not layer_of(f)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--folder-edges", action="store_true")
    args = ap.parse_args()
    r = measure(args.root, args.folder_edges)
    if args.json:
        print(json.dumps(r, indent=2))
    else:
        print(f"circles: {r['circles']} (use lines only: {r['circles_use_lines_only']}); "
              f"upward imports: {r['upward_imports']}; sideways imports: {r['sideways_imports']}; "
              f"files: {r['files']}; edges: {r['edges']}")
        for i, c in enumerate(r["circle_list"], 1):
            print(f"\ncircle {i} ({len(c['files'])} files):")
            for f in c["files"]:
                print(f"  {f}")
            for e in c["edges"]:
                print(f"    {e['from']} -> {e['to']}: {', '.join(e['names'])}")
        for title, rows in (("upward imports", r["upward"]), ("sideways imports", r["sideways"])):
            print(f"\n{title}: {len(rows)}")
            for e in rows:
                print(f"  {e['from']} ({e['from_layer']} {e['from_part']}) -> "
                      f"{e['to']} ({e['to_layer']} {e['to_part']}): {', '.join(e['names'])}")
        print(f"\nunplaced files: {len(r['unplaced'])}")
        for f in r["unplaced"]:
            print(f"  {f}")
    if args.check and (r["circles"] or r["upward_imports"] or r["sideways_imports"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
