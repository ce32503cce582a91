"""The prove cache's entries are authenticated (checker/cachekey.py): a forged or copied entry
does not turn REFUTED into PROVED; a key file that is not safe to use turns the cache off; and
checking an entry's records again is bounded work whatever they repeat."""
import hashlib
import json
import os
import shutil
import stat

import pytest

from conftest import CASES, SPECS

from checker import bounded, cache, cachekey, recording

MUTANT = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")


@pytest.fixture
def cached(monkeypatch, tmp_path):
    monkeypatch.delenv("CHECKER_NO_CACHE", raising=False)
    monkeypatch.setenv("CHECKER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CHECKER_CACHE_KEY_FILE", str(tmp_path / "config" / "cache.key"))
    return tmp_path / "cache"


def _forge(path, edit):
    """What someone with write access to the cache folder, but not the key, can do: edit the
    entry's JSON, keeping whatever comes before it."""
    raw = open(path, "rb").read()
    head, body = (b"", raw) if raw.startswith(b"{") else raw.split(b"\n", 1)
    doc = json.loads(body)
    edit(doc)
    open(path, "wb").write(head + (b"\n" if head else b"") + json.dumps(doc).encode())


def _acquit(doc):
    for r in doc["results"]:
        if r["verdict"] == "REFUTED" and not r["erratum"]:
            r["verdict"], r["counterexample"] = "PROVED", None


def test_a_forged_entry_does_not_turn_refuted_into_proved(run, cached, tmp_path):
    spec = tmp_path / "spec" / "m16n8k256.yaml"
    spec.parent.mkdir()
    shutil.copy(MUTANT, spec)
    assert run("prove", str(spec)).code == 1
    [entry] = [cached / n for n in os.listdir(cached)]
    _forge(entry, _acquit)
    again = run("prove", str(spec))
    assert again.code == 1 and "from the cache" not in again.out
    assert "from the cache" in run("prove", str(spec)).out  # the entry rewritten, signed


def test_an_entry_from_another_key_is_a_miss(run, cached, tmp_path, monkeypatch):
    """A cache folder restored from another job, or written by another user: their key is not ours."""
    path = os.path.join(SPECS, "m8n8k32.yaml")
    run("prove", path)
    assert "from the cache" in run("prove", path).out
    monkeypatch.setenv("CHECKER_CACHE_KEY_FILE", str(tmp_path / "other" / "cache.key"))
    assert "from the cache" not in run("prove", path).out
    assert "from the cache" in run("prove", path).out


def test_the_key_is_made_private_outside_the_cache_folder(run, cached, tmp_path, monkeypatch):
    monkeypatch.delenv("CHECKER_CACHE_KEY_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert cachekey.path() == str(tmp_path / "xdg" / "ptx-fragment-checker" / "cache.key")
    run("prove", os.path.join(SPECS, "m8n8k32.yaml"))
    st = os.stat(cachekey.path())
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_size == cachekey.SIZE
    assert os.listdir(tmp_path / "xdg" / "ptx-fragment-checker") == ["cache.key"]  # no temporary name left
    assert cachekey.secret() == cachekey.secret()  # made once, then read
    assert not any(n.endswith(".key") for n in os.listdir(cached))


def _unsafe_key(kind, key, tmp_path):
    key.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink":
        good = tmp_path / "good.key"
        good.write_bytes(b"k" * cachekey.SIZE)
        os.chmod(good, 0o600)
        os.symlink(good, key)
    elif kind == "fifo":
        os.mkfifo(key, 0o600)
    elif kind == "folder":
        key.mkdir()
    else:
        key.write_bytes(b"k" * (cachekey.SIZE + (kind == "size")))
        os.chmod(key, {"readable": 0o644, "writable": 0o620, "size": 0o600, "owner": 0o600}[kind])
        if kind == "owner":
            os.chown(key, 12345, 12345)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder", "readable", "writable", "size", "owner"])
def test_an_unsafe_key_file_turns_the_cache_off(run, cached, tmp_path, kind):
    if kind == "owner" and os.geteuid() != 0:
        pytest.skip("giving a file away needs root")
    key = tmp_path / "config" / "cache.key"
    _unsafe_key(kind, key, tmp_path)
    before = os.lstat(key)
    path = os.path.join(SPECS, "m8n8k32.yaml")
    for _ in range(2):
        r = run("prove", path)
        assert r.code == 0 and "from the cache" not in r.out and "Traceback" not in r.err
    assert not os.path.exists(cached) or not os.listdir(cached)  # nothing stored unsigned
    after = os.lstat(key)
    assert (after.st_mode, after.st_ino, after.st_size) == (before.st_mode, before.st_ino, before.st_size)


def test_a_signed_entry_is_checked_with_the_key_it_was_made_with(tmp_path):
    body = b'{"format": "x"}'
    k = "a" * 64
    sealed = cache.seal(k, body, b"1" * 32)
    assert cache.unseal(k, sealed, b"1" * 32) == body
    assert cache.unseal(k, sealed, b"2" * 32) is None
    assert cache.unseal("b" * 64, sealed, b"1" * 32) is None  # moved to another key's name
    assert cache.unseal(k, sealed[:-1] + b" ", b"1" * 32) is None
    assert cache.unseal(k, body, b"1" * 32) is None


# ---------------------------------------------------------------- the replay check's work


@pytest.fixture
def reads(monkeypatch):
    """How many files the replay check reads."""
    count = []
    real = bounded.read_regular

    def counted(*args, **kwargs):
        count.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(bounded, "read_regular", counted)
    return count


def test_a_repeated_read_is_checked_once(tmp_path, reads):
    big = tmp_path / "big.so"
    big.write_bytes(os.urandom(1 << 20))
    record = ["read", str(big), 1 << 26, "file", hashlib.sha256(big.read_bytes()).hexdigest()]
    assert recording.still_holds([record] * 5000 + [["isfile", str(big), True]] * 5000)
    assert reads == [str(big)]


def test_the_replay_check_reads_a_bounded_total(tmp_path, reads, monkeypatch):
    monkeypatch.setattr(recording, "MAX_CHECKED", 3000)
    records = []
    for n in range(5):
        f = tmp_path / f"{n}.yaml"
        f.write_bytes(bytes([n]) * 1000)
        records.append(["read", str(f), 1 << 20, "file", hashlib.sha256(f.read_bytes()).hexdigest()])
    assert recording.still_holds(records[:3])
    del reads[:]
    assert not recording.still_holds(records)
    assert len(reads) == 4  # stops at the read that goes past the bound


def test_too_many_records_are_not_checked_at_all(tmp_path, reads):
    f = tmp_path / "a.yaml"
    f.write_text("x")
    records = [["read", str(f), 10, "file", hashlib.sha256(b"x").hexdigest()]] * (recording.MAX_RECORDS + 1)
    assert not recording.still_holds(records)
    assert reads == []
