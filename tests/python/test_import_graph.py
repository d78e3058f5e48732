"""The learner package's modules by concern, imports only downward
(python/craftground_capture; docs/architecture.md, "The learner package's
layers"), read with ast: nothing of the package is imported or run.

Usage: test_import_graph.py PACKAGE_DIR
  - no import circle among the package's modules; an import inside a
    function (a lazy one) counts like any other;
  - each module imports only modules of a lower layer (LAYERS below: a
    module missing from it fails until it is given its place);
  - an OS's transport file (OS_FILES: _posix needs fcntl and AF_UNIX) is
    imported only inside a function (where it is chosen), never when a
    module loads: the package must import on every OS;
  - no module reaches another module's private names (one leading
    underscore): `from .m import _x`, `m._x` for an imported module m, or
    `obj._x` (any object, self too) where _x is defined in another module
    of the package (at module level, in a class body or as `self._x = ...`)
    and not in this one. A module of the package may itself be named with
    an underscore (_wire: private to the package, not to a module). Names
    that begin and end with "_" (ctypes' _fields_) are not private.
Exit 0 pass, 1 failure.
"""
import ast
import os
import sys

# Lower first; a module imports only from rows above its own.
LAYERS = (
    ("errors", "_types", "_libs"),             # exceptions, shared types and checks, libraries
    ("_wire", "png", "message", "spec"),       # formats: the zero-copy wire format, PNG, ...
    ("frames", "_posix", "_cuda"),             # readers; the POSIX transport; the CUDA calls
    ("_transport", "cuda_ipc"),                # the transport's interface; the v1 IPC handle
    ("_control", "_device"),                   # the control block; which GPU, how frames cross
    ("ring",),                                 # RingLearner
    ("vector",),                               # VectorLearner
    ("__init__",),                             # the public API
)
RANK = {m: k for k, row in enumerate(LAYERS) for m in row}
OS_FILES = ("_posix",)

def is_private(name):
    return name.startswith("_") and not name.endswith("_")


class Module:
    """One module's imports of the package, its own names, and the private
    names it reaches, each with its line."""

    def __init__(self, name, path, modules):
        self.name = name
        self.tree = ast.parse(open(path).read(), path)
        self.modules = modules
        self.imports = []  # (line, module imported)
        self.lazy = set()  # the lines of imports made inside a function
        self.aliases = {}  # local name -> package module it names
        self.defined = set()  # names this module defines (module, class, self.x)
        self.reached = []  # (line, module or None, name): private names read off others
        self._scan()

    def _target(self, node):
        """The package module an import statement names (None: outside)."""
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] != "craftground_capture":
                    return None
                return ".".join(parts[1:]) or "__init__"
            if node.level == 1:
                return node.module or "__init__"
            return None
        return None

    def _scan(self):
        for fn in ast.walk(self.tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.lazy.update(n.lineno for n in ast.walk(fn)
                                 if isinstance(n, (ast.Import, ast.ImportFrom)))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                mod = self._target(node)
                if mod is None:
                    continue
                for a in node.names:
                    if mod == "__init__" and a.name in self.modules:
                        self.imports.append((node.lineno, a.name))  # from . import m
                        self.aliases[a.asname or a.name] = a.name
                    elif mod == "__init__" and a.name.startswith("_"):
                        pass  # a module that is no .py file (the native _lease)
                    else:
                        self.imports.append((node.lineno, mod))
                        if is_private(a.name):
                            self.reached.append((node.lineno, mod, a.name))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == "craftground_capture" and len(parts) > 1:
                        self.imports.append((node.lineno, parts[1]))
                        if a.asname:
                            self.aliases[a.asname] = parts[1]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.defined.add(n.id)
                        elif (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                              and n.value.id in ("self", "cls")):
                            self.defined.add(n.attr)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:  # __slots__ entries are attributes too
                    if (isinstance(stmt, ast.Assign) and any(
                            isinstance(t, ast.Name) and t.id == "__slots__"
                            for t in stmt.targets) and isinstance(stmt.value, ast.Tuple)):
                        self.defined.update(e.value for e in stmt.value.elts
                                            if isinstance(e, ast.Constant))
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                v = node.value
                if isinstance(v, ast.Name) and v.id in self.aliases:
                    self.reached.append((node.lineno, self.aliases[v.id], node.attr))
                else:
                    self.reached.append((node.lineno, None, node.attr))


def cycles(graph):
    """Every import circle, as a list of modules (first repeated last)."""
    found, state, stack = [], {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                found.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def main(pkg):
    """[(passed, what)] of the checks on the modules of `pkg`."""
    results = []
    files = sorted(f for f in os.listdir(pkg) if f.endswith(".py"))
    names = [f[:-3] for f in files]
    mods = {n: Module(n, os.path.join(pkg, n + ".py"), set(names)) for n in names}
    graph = {n: {t for _, t in m.imports if t in mods and t != n} for n, m in mods.items()}

    circles = cycles(graph)
    results.append((not circles, "no import circle" + "".join(
        f"\n       {' -> '.join(c)}" for c in circles)))

    missing = [n for n in names if n not in RANK]
    results.append((not missing, f"every module has its layer ({missing} missing from LAYERS)"))
    upward = [f"{n}.py:{line} imports {t} (layer {RANK[t]}, its own {RANK[n]})"
              for n, m in mods.items() for line, t in m.imports
              if n in RANK and t in RANK and t != n and RANK[t] >= RANK[n]]
    results.append((not upward, "each module imports only modules below it" + "".join(
        f"\n       {u}" for u in upward)))

    eager = [f"{n}.py:{line} imports {t} when it loads" for n, m in mods.items()
             for line, t in m.imports if t in OS_FILES and line not in m.lazy]
    results.append((not eager, "an OS's transport file is imported only where it is chosen"
                    + "".join(f"\n       {e}" for e in eager)))

    owners = {}
    for n, m in mods.items():
        for name in m.defined:
            if is_private(name):
                owners.setdefault(name, set()).add(n)
    reached = []
    for n, m in mods.items():
        for line, owner, name in m.reached:
            if owner is not None and owner != n:
                reached.append(f"{n}.py:{line} reads {owner}.{name}")
            elif owner is None and name not in m.defined and owners.get(name):
                reached.append(f"{n}.py:{line} reads .{name} of "
                               f"{' / '.join(sorted(owners[name]))}")
    results.append((not reached, "no module reaches another module's private names" + "".join(
        f"\n       {r}" for r in sorted(set(reached)))))
    print(f"{len(mods)} modules, {sum(len(g) for g in graph.values())} import edges")
    return results


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    results = main(sys.argv[1])
    for ok, what in results:
        print(("ok   " if ok else "FAIL ") + what)
    failed = sum(not ok for ok, _ in results)
    print("PASS" if not failed else f"{failed} failures")
    sys.exit(1 if failed else 0)
