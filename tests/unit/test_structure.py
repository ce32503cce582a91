"""The shape of the package: no import cycle between checker's modules, no module over 400 lines,
and the layers' one direction of travel (commands -> renderers; neither the cache nor the probe
depends on a renderer)."""
import ast
import os
import re

import pytest

from conftest import ROOT

MAX_LINES = 400


def modules(root: str) -> dict:
    """{dotted name: path} of every module of the package at root/<package>."""
    out = {}
    base = os.path.dirname(root)
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py"):
                path = os.path.join(folder, n)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                out[name.removesuffix(".__init__")] = path
    return out


def imports(mods: dict) -> dict:
    """{module: the package modules it imports}, wherever in the module the import statement is
    (one inside a function is an edge too). `from x import y` imports x, and x.y where y is a
    submodule; relative imports are resolved against the module's package."""
    edges = {}
    for name, path in mods.items():
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - (node.level - 1)]
                    target = ".".join(parts + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names)
        edges[name] = {m for m in found if m in mods and m != name}
    return edges


def cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


CHECKER = os.path.join(ROOT, "checker")


@pytest.fixture(scope="module")
def graph():
    mods = modules(CHECKER)
    return mods, imports(mods)


def test_the_finder_sees_imports_of_every_form_and_their_cycles(tmp_path):
    """On a package made for it: a relative import of a submodule inside a function closes a cycle."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n")
    (pkg / "c.py").write_text("import pkg.a\nfrom . import sub\n")
    edges = imports(modules(str(pkg)))
    assert edges["pkg.a"] == {"pkg.sub", "pkg.sub.b"}
    assert edges["pkg.sub.b"] == {"pkg", "pkg.a"}
    assert edges["pkg.c"] == {"pkg", "pkg.a", "pkg.sub"}
    assert cycles(edges) == [["pkg.a", "pkg.sub.b"]]
    (pkg / "sub" / "b.py").write_text("def f():\n    pass\n")
    assert cycles(imports(modules(str(pkg)))) == []


def test_no_import_cycle_between_modules(graph):
    mods, edges = graph
    assert "checker.commands.prove" in edges["checker.commands"]  # the graph is read, not empty
    assert cycles(edges) == []


def _package(module: str) -> str:
    """checker.spec.load -> checker.spec; a top-level module is its own package."""
    return ".".join(module.split(".")[:2])


def test_no_import_cycle_between_packages(graph):
    """Between checker's packages too (formula, spec, smt, theorems, ...): each reads those below
    it only. The text of a spec with its positions (checker.source) sits below both formula and
    spec, which both read it."""
    _, edges = graph
    packages: dict = {}
    for m, ts in edges.items():
        packages.setdefault(_package(m), set()).update(_package(t) for t in ts if _package(t) != _package(m))
    for ts in list(packages.values()):
        for t in ts:
            packages.setdefault(t, set())
    assert "checker.spec" in packages["checker.prover"]  # the graph is read, not empty
    assert cycles(packages) == []


def test_no_module_over_400_lines(graph):
    mods, _ = graph
    assert len(mods) > 100 and "checker.cli" in mods  # the package is read, not empty
    long = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            n = len(fh.read().splitlines())
        if n > MAX_LINES:
            long[name] = n
    assert long == {}


@pytest.mark.parametrize("importer, imported", [
    ("checker.cache", "checker.report"),  # the cache checks entries itself; it renders nothing
    ("checker.probe", "checker.report"),  # both read the support table from checker.catalogue
    ("checker.report", "checker.commands"),  # renderers take what a command found, never its args
    ("checker.report", "checker.prover"),  # nor run the prover themselves
    ("checker.report", "checker.probe"),
    ("checker.prover", "checker.commands"),  # command line -> spec -> prover is the one direction
    ("checker.spec", "checker.prover"),
    ("checker.formula", "checker.spec"),  # a formula is parsed from text, whoever holds it
    ("checker.theorems", "checker.commands"),
])
def test_the_layers_import_one_way(graph, importer, imported):
    _, edges = graph
    assert importer in edges and imported in edges  # a layer renamed would make this pass on nothing
    crossing = sorted((m, t) for m, ts in edges.items() for t in ts
                      if (m == importer or m.startswith(importer + "."))
                      and (t == imported or t.startswith(imported + ".")))
    assert crossing == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(mods: dict, package: str = "checker") -> list:
    """(module, what it reaches) for each private name of another module of the package that a
    module uses: `from pkg.x import _name`, `x._name` where x is pkg.x (or a name imported from
    it), and `obj._name` where `_name` is defined (a def, a class, an assignment) in another module
    of the package and not in this one: a private member of another module's object
    (`device._check`, a Device of checker/probe/gpu.py, called from checker/probe/movement_gpu.py)."""
    trees = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            trees[name] = ast.parse(fh.read())
    defined = {}
    for name, tree in trees.items():
        own = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
        defined[name] = {n for n in own if _private(n)}
    reaching = []
    for name, tree in trees.items():
        local = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package):
                for alias in node.names:
                    if _private(alias.name):
                        reaching.append((name, f"{node.module}.{alias.name}"))
                    local[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(package):
                        local[alias.asname or alias.name.split(".")[0]] = alias.name
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            if (isinstance(node.value, ast.Name) and node.value.id in local and local[node.value.id] in mods
                    and local[node.value.id] != name):
                reaching.append((name, f"{local[node.value.id]}.{node.attr}"))
            elif not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) \
                    and node.attr not in defined[name]:
                owners = sorted(m for m, names in defined.items() if m != name and node.attr in names)
                if owners:
                    reaching.append((name, f"{'/'.join(owners)}: .{node.attr}"))
    return sorted(set(reaching))


def test_the_private_name_finder_sees_every_form(tmp_path):
    """On a package made for it, so that the test below cannot pass by seeing nothing."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_SECRET = 1\n\n\nclass Device:\n    def _check(self):\n        return self._own\n")
    (pkg / "b.py").write_text("from pkg.a import _SECRET\n")
    (pkg / "c.py").write_text("import pkg.a as a\nx = a._SECRET\n")
    (pkg / "d.py").write_text("def launch(device):\n    return device._check()\n")
    (pkg / "e.py").write_text("class Mine:\n    def _check(self):\n        pass\n\n\n"
                              "def use(m):\n    return m._check(), m._unknown_elsewhere\n")
    found = private_reaches(modules(str(pkg)), "pkg")
    assert found == [("pkg.b", "pkg.a._SECRET"), ("pkg.c", "pkg.a._SECRET"), ("pkg.d", "pkg.a/pkg.e: ._check")]


def test_no_module_imports_another_modules_private_names(graph):
    """`from checker.x import _name`, `x._name` from outside x, or a private member of an object of
    another module: a private name is its module's own; what others need is made public there
    (check_type, expression_widest, Device.check, ...)."""
    mods, _ = graph
    assert len(mods) > 100 and "checker.probe.movement_gpu" in mods  # the package is read, not empty
    assert private_reaches(mods) == []


def exceptions_outside_the_root(mods: dict, prefix: str) -> list:
    """(module, class) for each exception class a module under `prefix` defines that does not
    descend from CheckerError: found by importing the module, so a base imported under another
    name, or an alias of a builtin error, is seen for what it is."""
    import importlib
    import inspect

    from checker.errors import CheckerError

    out = []
    for name in sorted(mods):
        if not (name == prefix or name.startswith(prefix + ".")) or name.endswith("__main__"):
            continue
        for attr, obj in vars(importlib.import_module(name)).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == name
                    and not issubclass(obj, CheckerError)):
                out.append((name, attr))
    return out


def _packages() -> list:
    names = sorted(n[:-3] if n.endswith(".py") else n for n in os.listdir(CHECKER)
                   if (n.endswith(".py") and n != "__main__.py") or os.path.isfile(os.path.join(CHECKER, n, "__init__.py")))
    return [f"checker.{n}" for n in names if n != "__init__"]


@pytest.mark.parametrize("package", _packages())
def test_every_exception_descends_from_the_one_root(graph, package):
    """One root exception (checker.errors.CheckerError): what a command or the API raises on
    purpose is caught as one, and is never a traceback."""
    mods, _ = graph
    assert package in mods
    assert exceptions_outside_the_root(mods, package) == []


def test_the_exception_finder_sees_a_class_outside_the_root(monkeypatch):
    """On a module made for it, so that the test above cannot pass by seeing nothing."""
    import sys
    import types

    from checker.errors import CheckerError

    fake = types.ModuleType("checker_fake")

    class Stray(ValueError):
        pass

    class Rooted(CheckerError):
        pass

    for cls in (Stray, Rooted):
        cls.__module__ = fake.__name__
        setattr(fake, cls.__name__, cls)
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    assert exceptions_outside_the_root({fake.__name__: ""}, fake.__name__) == [(fake.__name__, "Stray")]
    assert exceptions_outside_the_root({"checker.errors": ""}, "checker.errors") == []


def test_a_verdict_is_compared_as_the_verdict_not_its_spelling(graph):
    """`r.verdict == "SPEC_ERROR"` held only because Verdict is a str: the one verdict type
    (checker.results.Verdict) is what results are compared with, so that a renamed or mistyped
    verdict fails at import rather than comparing unequal for ever."""
    from checker.results import Verdict

    mods, _ = graph
    spelled = []
    for name, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "verdict" for s in sides):
                spelled += [f"{path}:{node.lineno}" for s in sides
                            if isinstance(s, ast.Constant) and s.value in {v.value for v in Verdict}]
    assert "checker.report.text" in mods and spelled == []


def test_every_test_file_is_in_the_tests_readme():
    """tests/README.md says what each test file covers: 22 files had been added without a row."""
    with open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    here = sorted(n for n in os.listdir(os.path.join(ROOT, "tests", "unit")) if n.endswith(".py") and n != "__init__.py")
    assert [n for n in here if f"`unit/{n}`" not in readme] == []


def test_design_md_lays_out_every_package_and_module():
    """docs/design.md's layout of the repository names each of checker's packages and top-level
    modules (checker/verbatim/, cachekey.py, temps.py had none) and counts the committed dumps."""
    with open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8") as fh:
        design = fh.read()
    layout = design.split("## Layout of the repository", 1)[1]
    pkg = os.path.join(ROOT, "checker")
    names = [f"checker/{n}/" for n in sorted(os.listdir(pkg)) if os.path.isfile(os.path.join(pkg, n, "__init__.py"))]
    names += [f"checker/{n}" for n in sorted(os.listdir(pkg)) if n.endswith(".py") and n not in ("__init__.py", "__main__.py")]
    assert [n for n in names if n not in layout] == []
    # and, in each package's entry, each of its modules (the commands' list had lost compare,
    # conformance and verbatim; properties/instances.py, smt/instances.py and 20 others had no
    # word): by its name, or by a family of names (`movement_*`)
    entries, current = {}, None
    for line in layout.splitlines():
        m = re.match(r"^(checker/\w+/)\s", line)
        current = m.group(1) if m else (current if line.startswith(" ") else None)
        if current:
            entries[current] = entries.get(current, "") + " " + (line[len(current):] if m else line)
    unnamed = []
    for package in (n for n in names if n.endswith("/")):
        text = entries.get(package, "")
        families = re.findall(r"(?<![\w/])(\w+_)\*", text)
        for name in sorted(os.listdir(os.path.join(ROOT, package))):
            stem = name[:-3]
            if (name.endswith(".py") and name != "__init__.py" and not re.search(rf"(?<![\w/]){stem}(?!\w)", text)
                    and f"{package}{name}" not in layout and not any(stem.startswith(f) for f in families)):
                unnamed.append(package + name)
    assert unnamed == [], "modules docs/design.md's layout does not name in their package's entry"
    dumps = len([n for n in os.listdir(os.path.join(ROOT, "reports", "synthetic")) if n.endswith(".json.gz")])
    assert f"reports/synthetic/        {dumps} synthetic dumps" in layout
