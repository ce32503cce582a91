"""`checker.prove(paths)`: what `checker prove` proves, as data."""
from __future__ import annotations


class Proof:
    """The results of proving spec files and their scope, as `checker prove` reports them.

    `results` holds one `checker.Result` per (spec, fragment, property[, computation]) and per
    theorem, each with `spec`, `fragment`, `property`, `verdict` (`PROVED`, `REFUTED`, `UNKNOWN`,
    `SPEC_ERROR`), `location` (file:line:col), `message`, `counterexample` (a dict, or None),
    `erratum` (True: the document's printed text fails as a declared erratum says, which is a
    pass) and `declared` (a relation the spec states does not hold, refuted as stated: a pass).
    `as_json()` of a result is the object `checker prove --format json` prints.
    """

    def __init__(self, files: list, results: list, note: str | None):
        # tuples: `ok`, `summary` and `failures` are read off the results whenever asked, so a
        # caller's append or clear changed what the proof said (clear() made it ok)
        self.files = tuple(files)  # every file proved: those given and their scope
        self.results = tuple(results)
        self.scope = note  # what the scope added to the files given, in words (None: nothing)

    @property
    def ok(self) -> bool:
        """True when nothing failed: every property proved, every erratum confirmed."""
        return not self.failures

    @property
    def exit_code(self) -> int:
        """The exit code `checker prove` gives: 0 ok, 1 refuted or unknown, 3 a spec error."""
        from checker.results import exit_code

        return exit_code(self.results)

    @property
    def failures(self) -> list:
        """Results that fail: refuted or unknown (not as an erratum or a declaration says), spec errors."""
        return [r for r in self.results if r.failed()]

    @property
    def errata(self) -> list:
        """Results that confirm an erratum: the printed text fails, as the spec says it does."""
        return [r for r in self.results if r.erratum]

    @property
    def summary(self) -> dict:
        """The counts of `checker prove --format json`'s `summary`: proved, refuted, unknown,
        spec_errors, errata_confirmed, declared_refutations, theorems."""
        from checker.results import summary

        return summary(self.results)

    def __iter__(self):
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __repr__(self) -> str:
        s = self.summary
        return (f"<Proof of {len(self.files)} files: {s['proved']} proved, {s['refuted']} refuted, {s['unknown']} "
                f"unknown, {s['spec_errors']} spec errors; {s['errata_confirmed']} errata confirmed"
                f"{'' if self.ok else '; FAILED'}>")


def prove(paths, jobs: int = 1) -> Proof:
    """Prove every property of every fragment of the spec files and folders given (a path or a
    list of them), with everything in their scope (README: what proving a file proves), exactly
    as `checker prove` does: z3, with every verdict cross-checked by the plain-Python engine.

    jobs: worker processes (1: in this process). Malformed specs do not raise: each is a result
    with verdict `SPEC_ERROR` and its location. A path that does not exist raises
    `checker.UsageError`.
    """
    from checker import scope
    from checker.errors import UsageError
    from checker.files import spec_yaml
    from checker.options import Options
    from checker.prover import prove_paths
    from checker.smt.solver import run_budget

    if isinstance(paths, str) or hasattr(paths, "__fspath__"):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, str) or hasattr(p, "__fspath__") for p in paths):
        raise UsageError(f"prove takes a path or a list of paths (str or os.PathLike), found {paths!r:.60}")
    if not paths:
        raise UsageError("prove was given no path: name a spec file or folder (\"specs/\")")
    paths = [str(p) for p in paths]
    if not isinstance(jobs, int) or jobs < 1:
        raise UsageError("jobs takes a positive number")
    files = spec_yaml(paths)
    if not files:
        raise UsageError(f"no spec file (*.yaml) matched {' '.join(paths)}: nothing was checked")
    sc = scope.widen(files)
    with run_budget():
        return Proof(sc.files, prove_paths(sc.files, Options(cross_check=True, jobs=jobs)), sc.note())
