"""How `checker prove` runs: in one process, or in two from its first milliseconds.

Importing the provers (lark, the formula and theorem modules) and starting z3 cost about as much
as reading the specs (YAML, the JSON Schema check, the model), and neither needs the other. So
where the run has two cores or more, the console script forks the prover process before it even
parses its command line (prestart), and the command's process parses it, looks up the result
cache and reads the specs meanwhile. The prover process then receives the loaded specs (pickled:
a few milliseconds), proves them with its workers (checker/workers.py) and sends the results
back. Nothing else differs: the same functions prove the same specs in the same order, and a
test holds both ways to the same results. Where the options turn out not to overlap (`--jobs 1`,
a cache hit, help, a usage error), the prover process is ended unused. Both processes, and the
prover's workers, are owned by checker/children.py: when the command ends, for any reason, none
of them remains.

This module imports neither z3 nor lark: it runs before them.
"""
from __future__ import annotations

import os
import pickle
import sys

from checker.errors import CheckerError
from checker.files import split_relations
from checker.loading import load
from checker.options import Options
from checker import children, workers


# The prover process of this command, forked by prestart() before its command line was parsed.
_EARLY: list = []


def prestart(argv: list) -> None:
    """Fork the prover process now, before the command line is even parsed, where it looks like a
    proof that will overlap: `prove`, two cores or more, fork. The options decide later (Run): a
    proof with `--jobs 1`, a cache hit, `--help` or a usage error ends it unused (stop_early).
    Parsing the command line and looking up the cache would otherwise delay the prover's imports."""
    if argv[:1] == ["prove"] and not _EARLY and overlaps(Options(jobs=os.cpu_count() or 1)):
        _EARLY.append(_Child())


def stop_early() -> None:
    """End a prover process that prestart() forked and no Run took."""
    while _EARLY:
        _EARLY.pop().cancel()


def overlaps(opts: Options) -> bool:
    """Where there is a second core to overlap on and the provers are not imported yet (a test or
    a report that already imported them has nothing left to gain)."""
    return opts.jobs > 1 and hasattr(os, "fork") and "checker.prover" not in sys.modules


class Run:
    """One proof, overlapped where it can be: made as early as the options are known, it takes
    the prover process prestart() forked, or forks it at once, so that whatever its caller does
    next (finding the spec files, looking up the result cache, loading the specs) overlaps the
    prover's imports. Leaving it unused (a cache hit, an error) ends that process."""

    def __init__(self, opts: Options):
        self.opts = opts
        early = _EARLY.pop() if _EARLY else None
        self.child = (early or _Child()) if overlaps(opts) else None
        if early is not None and self.child is None:
            early.cancel()

    def prove(self, files: list) -> list:
        child, self.child = self.child, None
        if child is None:
            from checker.prover import prove_paths

            return prove_paths(files, self.opts)
        return child.prove(files, self.opts)

    def close(self):
        child, self.child = self.child, None
        if child is not None:
            child.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def overlapped(files: list, opts: Options) -> list:
    """The overlapped proof whatever overlaps() says (where the provers are already imported, as in
    a test process): what a Run does with its prover process."""
    return _Child().prove(files, opts)


class _Child:
    """The forked prover process, from this side: it is sent the loaded specs and answers with
    their results."""

    def __init__(self):
        from checker import recording

        recording.share()  # before the fork: what the prover process reads is recorded for the cache
        specs_in, specs_out = os.pipe()
        results_in, results_out = os.pipe()
        pid = children.fork()
        if pid == 0:
            os.close(specs_out)
            os.close(results_in)
            _prover(specs_in, results_out)  # does not return
        os.close(specs_in)
        os.close(results_out)
        self.pid, self.specs_out, self.results_in = pid, specs_out, results_in

    def prove(self, files: list, opts: Options) -> list:
        send = os.fdopen(self.specs_out, "wb")
        try:
            try:
                paths, relation_files = split_relations(files)
                loaded = {path: load(path) for path in paths}
                pickle.dump((paths, relation_files, loaded, opts), send, protocol=pickle.HIGHEST_PROTOCOL)
            finally:
                send.close()  # on failure too: the prover then reads an end of file and exits
        except BrokenPipeError:
            pass  # the prover ended before reading: what it answered, or its exit status, says why
        except BaseException:
            os.close(self.results_in)
            children.wait(self.pid)  # it read an end of file and exits
            raise
        kind, payload = workers.answer(self.results_in, self.pid)
        if kind != "results":
            raise CheckerError(f"the prover process {payload}")
        return payload

    def cancel(self):
        """Not needed after all: it is stopped wherever it is (most likely still importing), and
        reaped once it has gone, at the latest when the command ends (children.end)."""
        os.close(self.specs_out)
        os.close(self.results_in)
        children.kill(self.pid)


def _prover(specs_in: int, results_out: int):
    """The forked child: import the provers, start z3, then prove what the parent loaded."""
    def prove():
        import threading

        from checker.smt import libz3
        from checker.smt.solver import start

        # z3 is loaded here, before the thread: where the package ships no library, that imports
        # z3's own binding, and an import in a thread beside the imports below can find a module
        # half made ("partially initialized module 'typing'"). The thread only creates the z3
        # context, which runs in C without the GIL: it overlaps the imports below.
        libz3.library()
        failed: list = []
        starting = threading.Thread(target=_guarded, args=(start, failed))
        starting.start()
        from checker.prover import prove_loaded

        starting.join()  # before any fork: a forked process must not inherit a running thread
        if failed:
            raise failed[0]
        with os.fdopen(specs_in, "rb") as fh:
            paths, relation_files, loaded, opts = pickle.load(fh)
        return prove_loaded(paths, relation_files, loaded, opts)

    workers.reply(results_out, prove)


def _guarded(fn, failed: list):
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - raised again by the thread that waits for it
        failed.append(exc)
