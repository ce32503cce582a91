"""The documentation's examples, run as they are written, and the README's commands table against
every command's --help.

An example is a fenced block of README.md, CONTRIBUTING.md or docs/*.md that either
- begins with a line `$ checker ...`: each `$ ` line is a command, the lines under it (up to the
  next `$ ` line) what it prints, stdout and stderr together as a terminal shows them; or
- is a ```python block with the line `import checker` (or `>>> import checker`): a `>>>` line is a
  statement (`... ` lines continue it), the lines under it what it prints, as the interpreter
  shows it (an expression's repr); a block without `>>>` is a script that must run without error.

Each command runs in a subprocess, `python -m checker` with this tree first on PYTHONPATH, from the
repository root, with CHECKER_NO_CACHE=1 (no cache read or written) and PYTHONUNBUFFERED=1 (stdout
and stderr in the order they are written). Each snippet runs in a fresh interpreter likewise.
Commands that occur in several examples run once (the slow ones first, two at a time).

What a command prints is compared with what the doc shows, line by line, by this rule:
- a line `...` (indented or not) stands for any number of lines, none included;
- a timing, a decimal number followed by ` s` (`(0.36 s)`, `; 6.2 s`), matches any timing;
- whitespace at the end of a line, and blank lines at the end, are not compared.
Nothing else is fuzzy: `...` inside a line is literal text. The exit code is not compared.

An HTML comment on the line right before a block's opening fence directs how it runs:
- `<!-- not run: WHY -->`: not run, because it cannot run in CI (a GPU, a browser, a network);
  NOT_RUN below lists every such example and why, and the test fails when the docs differ.
- `<!-- example: in a copy -->`: the block's commands run one after another in a scratch folder
  holding a copy of specs/ committed to a new git repository, and links to reports/ and tests/
  (for what writes files, or reads git).
- `<!-- example: in a copy, with FILE edited: `OLD` -> `NEW` -->` (one comment per edit): the same,
  after replacing OLD, which must occur exactly once in FILE (`\\n` for a line break), with NEW.
Commands that need NVIDIA's ptxas and nvdisasm (`probe --compile-only`) skip, saying so, where
they are missing, unless CHECKER_REQUIRE_CUDA is set (CI: .ci/run), as tests/unit/test_probe.py.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import difflib
import glob
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DOCS = ["README.md", "CONTRIBUTING.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

# every example marked `<!-- not run: ... -->`, by reason: none of the examples needs a GPU, a
# browser or a network today (the GPU commands of docs/probe.md are listed without output)
NOT_RUN: dict[str, int] = {}

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
CLOSE = re.compile(r"^\s*```\s*$")
COMMENT = re.compile(r"^<!--\s*(.*?)\s*-->$")
EDIT = re.compile(r"^with (\S+) edited: `([^`]*)` -> `([^`]*)`$")
TIMING = re.compile(r"\b\d+\.\d+ s\b")


@dataclass
class Example:
    path: str
    line: int  # of the opening fence, 1-based
    kind: str  # "command" or "python"
    steps: list = field(default_factory=list)  # [(command or statement, [expected lines])]
    script: bool = False  # a python block without >>>: run whole, no output shown
    not_run: str | None = None
    copy: bool = False
    edits: tuple = ()  # ((file, old, new), ...)

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def _directives(lines: list[str], fence: int) -> list[str]:
    """The HTML comments on the lines right before the fence at index `fence`."""
    out, k = [], fence - 1
    while k >= 0 and COMMENT.match(lines[k].strip()):
        out.insert(0, COMMENT.match(lines[k].strip()).group(1))
        k -= 1
    return out


def _blocks(path: str):
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, j = m.group(1), m.group(2), i + 1
        while j < len(lines) and not CLOSE.match(lines[j]):
            j += 1
        body = [x[len(indent):] if x.startswith(indent) else x.lstrip() for x in lines[i + 1:j]]
        yield i + 1, lang, body, _directives(lines, i)
        i = j + 1


def _session(body: list[str]) -> list:
    steps: list = []
    for text in body:
        if text.startswith(">>> "):
            steps.append([text[4:], []])
        elif text.startswith("... ") and text[4:].strip() and steps and not steps[-1][1]:
            steps[-1][0] += "\n" + text[4:]
        else:
            assert steps, f"output before the first >>> line: {text!r}"
            steps[-1][1].append(text)
    return [(s, out) for s, out in steps]


def examples() -> list[Example]:
    found = []
    for path in DOCS:
        for line, lang, body, notes in _blocks(path):
            first = next((x for x in body if x.strip()), "")
            if first.startswith("$ "):
                ex = Example(path, line, "command")
                for text in body:
                    if text.startswith("$ "):
                        ex.steps.append((text[2:], []))
                    else:
                        ex.steps[-1][1].append(text)
            elif lang == "python" and any(x.strip() in ("import checker", ">>> import checker") for x in body):
                ex = Example(path, line, "python")
                if any(x.startswith(">>> ") for x in body):
                    ex.steps = _session(body)
                else:
                    ex.script, ex.steps = True, [("\n".join(body), [])]
            else:
                assert not any(x.startswith("$ checker") for x in body), \
                    f"{path}:{line}: a `$ checker` line that does not begin its block"
                assert not notes, f"{path}:{line}: {notes} before a block that is not an example"
                continue
            for note in notes:
                if note.startswith("not run:"):
                    ex.not_run = note[len("not run:"):].strip()
                elif note == "example: in a copy":
                    ex.copy = True
                elif note.startswith("example: in a copy, "):
                    edit = EDIT.match(note[len("example: in a copy, "):])
                    assert edit, f"{path}:{line}: cannot read the edit {note!r}"
                    ex.copy = True
                    ex.edits += ((edit.group(1),) + tuple(x.replace("\\n", "\n") for x in edit.group(2, 3)),)
                else:
                    raise AssertionError(f"{path}:{line}: unknown directive {note!r}")
            found.append(ex)
    return found


EXAMPLES = examples()


# ---- the matching rule ----

def _norm(lines: list[str]) -> list[str]:
    out = [TIMING.sub("<seconds> s", x.rstrip()) for x in lines]
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """The doc's lines against the output's: `...` any run of lines, timings alike."""
    e, a = _norm(expected), _norm(actual)
    reach = [True] + [False] * len(a)  # reach[j]: the doc's lines so far match a[:j]
    for line in e:
        if line.strip() == "...":
            seen, new = False, []
            for r in reach:
                seen = seen or r
                new.append(seen)
        else:
            new = [False] + [reach[j] and a[j] == line for j in range(len(a))]
        reach = new
    return reach[-1]


def test_the_matching_rule():
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and matches(["a", "...", "z"], ["a", "z"])
    assert matches(["  ...", "done (0.36 s)"], ["x", "done (12.01 s)"])
    assert matches(["70 dumps; 6.2 s  "], ["70 dumps; 4.93 s", ""])
    assert not matches(["a", "...", "z"], ["a", "b"]) and not matches(["a b ..."], ["a b c"])
    assert not matches(["3 s"], ["4 s"]) and not matches(["a"], ["a", "b"])


# ---- running ----

def _env() -> dict:
    env = dict(os.environ, CHECKER_NO_CACHE="1", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    return env


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "checker", f"only `checker` commands are run: {command!r}"
    assert not {"|", ">", "<", ";", "&&", "||"} & set(words), f"no shell syntax: {command!r}"
    return [sys.executable, "-m", "checker"] + words[1:]


def _needs_cuda(command: str) -> bool:
    words = shlex.split(command)
    return words[1:2] == ["probe"] and "--compile-only" in words


def _cuda_missing() -> str | None:
    if os.environ.get("CHECKER_REQUIRE_CUDA"):
        return None
    from checker.probe import sass

    ptxas = shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")
    return None if ptxas and sass.nvdisasm() else "needs NVIDIA's ptxas and nvdisasm (CUDA toolkit)"


def _run(argv: list[str], cwd: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=_env(), input=stdin, text=True, timeout=600,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT if stdin is None else subprocess.PIPE)


def _in_a_copy(edits: tuple, commands: tuple) -> list[str]:
    """Run the commands one after another in a scratch copy of specs/, committed to git, edited
    (reports/ and tests/ linked)."""
    folder = tempfile.mkdtemp(prefix="checker-doc-example-")
    try:
        shutil.copytree(os.path.join(ROOT, "specs"), os.path.join(folder, "specs"))
        for name in ("reports", "tests"):  # read, never written, by the examples
            os.symlink(os.path.join(ROOT, name), os.path.join(folder, name))
        git = ["git", "-c", "user.name=doc-examples", "-c", "user.email=doc-examples@localhost",
               "-c", "commit.gpgsign=false"]
        for argv in (git + ["init", "-q"], git + ["add", "specs"], git + ["commit", "-q", "-m", "specs"]):
            subprocess.run(argv, cwd=folder, check=True, capture_output=True)
        for name, old, new in edits:
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            assert text.count(old) == 1, f"the edit's text occurs {text.count(old)} times in {name}: {old!r}"
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text.replace(old, new))
        return [_run(_argv(c), folder).stdout for c in commands]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# a snippet's statements, each in the one namespace, what each prints captured apart
DRIVER = r"""
import contextlib, io, json, sys, traceback
snippet = json.load(sys.stdin)
namespace, outs = {"__name__": "__main__"}, []
for source in snippet["statements"]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(source, "<doc>", snippet["mode"]), namespace)
        except Exception as exc:
            buf.write("Traceback (most recent call last):\n")
            buf.write("".join(traceback.format_exception_only(type(exc), exc)))
    outs.append(buf.getvalue())
sys.__stdout__.write(json.dumps(outs))
"""


def _python(ex: Example) -> list[str]:
    snippet = {"mode": "exec" if ex.script else "single", "statements": [s for s, _ in ex.steps]}
    proc = _run([sys.executable, "-c", DRIVER], ROOT, stdin=json.dumps(snippet))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _cuda_skip(ex: Example) -> str | None:
    if ex.kind == "command" and any(_needs_cuda(c) for c, _ in ex.steps):
        return _cuda_missing()
    return None


def _jobs(wanted: set) -> dict:
    """Every distinct run the examples wanted need: key -> (whether the assembler runs, the function)."""
    jobs = {}
    for ex in EXAMPLES:
        if ex.id not in wanted or ex.not_run or _cuda_skip(ex):
            continue
        slow = ex.kind == "command" and any(_needs_cuda(c) for c, _ in ex.steps)
        if ex.kind == "python":
            jobs[("python", ex.id)] = (slow, lambda ex=ex: _python(ex))
        elif ex.copy:
            commands = tuple(c for c, _ in ex.steps)
            jobs[("copy", ex.edits, commands)] = (slow, lambda e=ex.edits, c=commands: _in_a_copy(e, c))
        else:
            for c, _ in ex.steps:
                jobs[("root", c)] = (_needs_cuda(c), lambda c=c: [_run(_argv(c), ROOT).stdout])
    return jobs


@pytest.fixture(scope="module")
def outputs(request):
    # only what the examples selected need (`-k README.md:34` runs one command)
    jobs = _jobs({item.callspec.params["ex"].id for item in request.session.items
                  if item.module is sys.modules[__name__] and "ex" in getattr(getattr(item, "callspec", None), "params", {})})
    # the assembler's runs take longest: they start first, two jobs at a time (two cores)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {k: pool.submit(fn) for k, (slow, fn) in sorted(jobs.items(), key=lambda kv: not kv[1][0])}
        return {k: f.result() for k, f in futures.items()}


def _actual(ex: Example, outputs: dict) -> list[str]:
    if ex.kind == "python":
        return outputs[("python", ex.id)]
    if ex.copy:
        return outputs[("copy", ex.edits, tuple(c for c, _ in ex.steps))]
    return [outputs[("root", c)][0] for c, _ in ex.steps]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[ex.id for ex in EXAMPLES])
def test_example(ex: Example, outputs):
    if ex.not_run:
        pytest.skip(f"marked not run: {ex.not_run}")
    if _cuda_skip(ex):
        pytest.skip(_cuda_skip(ex))
    problems = []
    for (step, expected), got in zip(ex.steps, _actual(ex, outputs)):
        actual = got.splitlines()
        if not matches(expected, actual):
            prompt = ">>> " if ex.kind == "python" else "$ "
            diff = "\n".join(difflib.unified_diff(_norm(expected), _norm(actual), "doc", "actual", lineterm=""))
            problems.append(f"{prompt}{step}\n{diff}")
    assert not problems, f"{ex.id}: the output differs from the doc\n" + "\n\n".join(problems)


def test_the_examples_are_found_and_the_ones_not_run_are_marked():
    """The extractor finds the examples (no file silently losing its own), and every example that
    is not run says why, in NOT_RUN."""
    by_file: dict = {}
    for ex in EXAMPLES:
        by_file.setdefault(ex.path, []).append(ex)
    for path in ("README.md", "docs/api.md", "docs/gate.md", "docs/probe.md", "docs/proofs.md", "docs/references.md"):
        assert by_file.get(path), f"no example found in {path}"
    assert sum(ex.kind == "python" for ex in EXAMPLES) >= 2 and len(EXAMPLES) >= 20
    reasons: dict = {}
    for ex in EXAMPLES:
        if ex.not_run:
            reasons[ex.not_run] = reasons.get(ex.not_run, 0) + 1
    assert reasons == NOT_RUN, f"examples marked not run, by reason: {reasons}"


def test_the_docs_point_at_examples_that_are_there():
    """`test_doc_examples.py README.md:58` in CONTRIBUTING named the m16n8k256 example by its
    fence's line: a line added above it makes the pointer name nothing, or another example. Each
    `FILE:LINE` the docs give this script names an example's fence, and CONTRIBUTING's pointer
    for the pasted properties names the one that proves a spec."""
    ids = {ex.id: ex for ex in EXAMPLES}
    pointed = []
    for path in DOCS:
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            text = fh.read()
        pointed += [(path, m.group(1)) for m in re.finditer(r"test_doc_examples\.py ([\w./-]+\.md:\d+)", text)]
    assert pointed and [p for p in pointed if p[1] not in ids] == []
    properties = [ids[i] for path, i in pointed if path == "CONTRIBUTING.md" and ids[i].kind == "command"
                  and ids[i].steps[0][0].startswith("checker prove specs/")]
    assert properties, "CONTRIBUTING names no example of `checker prove` to paste the properties from"


# ---- the README's commands table against --help ----

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _help_flags(command: str) -> set:
    from checker.cli import main

    out, err = io.StringIO(), io.StringIO()
    assert main([command, "--help"], out, err) == 0, err.getvalue()
    options = out.getvalue().split("\noptions:\n", 1)[1].split("\nexamples:", 1)[0]
    return set(re.findall(r"^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)", options, re.M))


def test_the_commands_table_names_every_flag_of_every_command():
    """Each flag in the README's commands table is one its command's --help lists, and each flag a
    --help lists is in the table's rows for that command; --help itself and --output FILE, which
    the sentence under the table gives every command that prints, excepted."""
    from checker import commands

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    table: dict = {}
    for row in section.splitlines():
        if not row.startswith("| `checker "):
            continue
        spans = re.findall(r"`([^`]*)`", row.split(" | ")[0])
        name = spans[0].split()[1]
        table.setdefault(name, set()).update(f for span in spans for f in FLAG.findall(span))
    assert set(table) == {c.NAME for c in commands.ALL}, "a command without a row, or a row without a command"
    assert "every command that prints takes `--output FILE` (`report`, which writes a folder, takes `--out DIR`)" \
        in " ".join(section.split())
    problems = []
    for name, flags in sorted(table.items()):
        listed = _help_flags(name)
        if ("--output" in listed) == (name == "report"):
            problems.append(f"checker {name}: --output FILE is not as the sentence under the table says")
        if flags - listed:
            problems.append(f"checker {name}: the table names {sorted(flags - listed)}, which --help does not list")
        if listed - flags - {"--help", "--output"}:
            problems.append(f"checker {name}: --help lists {sorted(listed - flags - {'--help', '--output'})}, "
                            "which the table does not name")
    assert not problems, "\n".join(problems)


if __name__ == "__main__":  # print every example's actual output: `python tests/unit/test_doc_examples.py [ID]`
    sys.path.insert(0, ROOT)
    with contextlib.suppress(BrokenPipeError):
        for ex in EXAMPLES:
            if len(sys.argv) > 1 and ex.id not in sys.argv[1:]:
                continue
            print(f"===== {ex.id}")
            outs = (_python(ex) if ex.kind == "python" else _in_a_copy(ex.edits, tuple(c for c, _ in ex.steps))
                    if ex.copy else [_run(_argv(c), ROOT).stdout for c, _ in ex.steps])
            for (step, _), got in zip(ex.steps, outs):
                print(("$ " if ex.kind == "command" else ">>> ") + step)
                print(got, end="")
