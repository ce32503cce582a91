"""The document the specs transcribe, vendored in document/ (document/README.md): every file is
byte for byte the one its SHA-256 in document/SHA256SUMS names, and nothing is there that the
manifest does not list, or missing that it lists (a file git ignores would be missing from a
clean checkout); the folders carry the versions the specs claim (9.1, 9.2, the seeds none); and
`checker verbatim` over the whole catalogue finds every verbatim field of every spec in it, with
the numbers docs/specs.md reports, so a spec edit that is not the document's text fails here.
Nothing here skips: without the document these tests fail."""
import collections
import hashlib
import json
import os
import re
import shutil

from conftest import DOCUMENT, ROOT, SPECS

MANIFEST = os.path.join(DOCUMENT, "SHA256SUMS")
OWN = {"README.md", "SHA256SUMS"}  # this project's, beside the vendored text; not in the manifest
FOLDERS = ("seeds", "ptx-isa", "ptx-isa-9.2")
# docs/specs.md, "The audit of the catalogue": the numbers `checker verbatim` gives over specs/
FIELDS, BOTH, ONLY_91, ONLY_92, OUTSIDE, FILES = 828, 673, 36, 119, 10, 95
VERSIONS = {"9.1": 47, "9.2": 42, "unknown": 6}  # 5 seeds and document/README.md name no version


def manifest(folder: str) -> dict:
    """{path inside the folder: sha256 hex} as SHA256SUMS lists it (`sha256sum`'s format)."""
    out = {}
    with open(os.path.join(folder, "SHA256SUMS"), encoding="utf-8") as fh:
        for k, line in enumerate(fh, 1):
            m = re.fullmatch(r"([0-9a-f]{64})  (\S+)\n", line)
            assert m, f"SHA256SUMS:{k}: not `<sha256>  <path>`: {line!r}"
            assert m.group(2) not in out, f"SHA256SUMS:{k}: {m.group(2)} listed twice"
            out[m.group(2)] = m.group(1)
    return out


def problems(folder: str) -> list:
    """What of the folder is not the manifest: a file changed, one missing, one not listed, a link."""
    listed, out, seen = manifest(folder), [], set()
    for base, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names) + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            if base == folder and name in OWN:
                continue
            if os.path.islink(path) or not os.path.isfile(path):
                out.append(f"{rel}: not a regular file")
                continue
            seen.add(rel)
            if rel not in listed:
                out.append(f"{rel}: not in SHA256SUMS")
            elif hashlib.sha256(open(path, "rb").read()).hexdigest() != listed[rel]:
                out.append(f"{rel}: changed (its SHA-256 is not the one SHA256SUMS gives)")
    out += [f"{rel}: listed in SHA256SUMS, missing" for rel in sorted(set(listed) - seen)]
    return out


# --- the files -----------------------------------------------------------------------------------

def test_every_vendored_file_is_the_one_the_manifest_names():
    listed = manifest(DOCUMENT)
    assert problems(DOCUMENT) == []
    assert len(listed) == 94
    assert {rel.split("/")[0] for rel in listed} == set(FOLDERS)
    assert sum(rel.startswith("seeds/") for rel in listed) == 5
    # every spec's source is one of them
    seeds = {m.group(1) for p in os.listdir(SPECS) if p.endswith(".yaml")
             for m in re.finditer(r"^\s*seed: *(\S+)", open(os.path.join(SPECS, p), encoding="utf-8").read(), re.M)}
    assert seeds and seeds <= set(listed), sorted(seeds - set(listed))


def test_a_changed_missing_or_added_file_fails_the_manifest_check(tmp_path):
    copy = tmp_path / "document"
    shutil.copytree(DOCUMENT, copy)
    assert problems(str(copy)) == []
    target = copy / "ptx-isa" / "9.7.14.5.13-m16n8k256.md"
    text = target.read_bytes()
    target.write_bytes(text.replace(b"thirty two", b"thirty-two", 1))  # one byte
    (copy / "seeds" / "000_1cbd6daafd0e6ed2.txt").unlink()
    (copy / "ptx-isa" / "9.7.14.5.99-new.md").write_text("# 9.7.14.5.99. New\n")
    os.symlink("9.7.14.1-matrix-shape.md", copy / "ptx-isa" / "link.md")
    assert problems(str(copy)) == [
        "ptx-isa/9.7.14.5.13-m16n8k256.md: changed (its SHA-256 is not the one SHA256SUMS gives)",
        "ptx-isa/9.7.14.5.99-new.md: not in SHA256SUMS",
        "ptx-isa/link.md: not a regular file",
        "seeds/000_1cbd6daafd0e6ed2.txt: listed in SHA256SUMS, missing"]


def test_the_readme_says_what_the_document_is():
    text = open(os.path.join(DOCUMENT, "README.md"), encoding="utf-8").read()
    for words in ("NVIDIA", "https://docs.nvidia.com/cuda/parallel-thread-execution/", "unmodified", "SHA256SUMS",
                  "9.1", "9.2", *(f"`{f}/`" for f in FOLDERS)):
        assert words in text, words


# --- the versions and the catalogue ----------------------------------------------------------------

def test_the_folders_carry_the_versions_the_specs_claim():
    from checker.verbatim import document

    doc = document.read([(None, DOCUMENT)])
    assert doc.errors == []
    by_folder = collections.Counter((f.rel.split(os.sep)[0] if os.sep in f.rel else ".", f.version) for f in doc.files)
    assert by_folder == {("seeds", None): 5, ("ptx-isa", "9.1"): 47, ("ptx-isa-9.2", "9.2"): 42, (".", None): 1}


def _verbatim(run, *paths):
    cwd = os.getcwd()
    os.chdir(ROOT)  # paths as the docs show them
    try:
        text = run("verbatim", *paths, "--document", "document/")
        data = run("verbatim", *paths, "--document", "document/", "--format", "json")
    finally:
        os.chdir(cwd)
    return text, data


def test_every_verbatim_field_of_the_catalogue_is_in_the_vendored_document(run):
    text, data = _verbatim(run, "specs/")
    assert text.code == data.code == 0, text.out + text.err
    summary = json.loads(data.out)["summary"]
    fields = json.loads(data.out)["fields"]
    assert (summary["specs"], summary["fields"], summary["found"] + summary["outside"]) == (30, FIELDS, FIELDS)
    assert summary["missing"] == summary["version"] == summary["skipped"] == summary["not_found"] == 0
    assert (summary["outside"], summary["document_files"], summary["document_versions"]) == (OUTSIDE, FILES, VERSIONS)
    versions = collections.Counter(tuple(f["versions"]) for f in fields)
    assert versions == {("9.1", "9.2"): BOTH, ("9.1",): ONLY_91, ("9.2",): ONLY_92}
    assert not [f for f in fields for w in f["found"] if "README.md" in w["location"]]  # no field found in a note
    assert text.out.splitlines()[-1] == (
        f"30 specs: {FIELDS} verbatim fields checked, {FIELDS} found (9.1 and 9.2: {BOTH}, 9.1 only: {ONLY_91}, "
        f"9.2 only: {ONLY_92}); {OUTSIDE} of them outside the section named, 0 not found; document: {FILES} files "
        f"(9.1: {VERSIONS['9.1']}, 9.2: {VERSIONS['9.2']}, version unknown: {VERSIONS['unknown']})")


def test_docs_specs_md_reports_these_numbers():
    text = " ".join(open(os.path.join(ROOT, "docs", "specs.md"), encoding="utf-8").read().split())
    audit = text[text.index("### The audit of the catalogue"):]
    for said in ("checker verbatim specs/ --document document/", f"{FILES} files", f"**{FIELDS} fields**",
                 f"**all {FIELDS}**", f"{BOTH} in both 9.1 and 9.2; {ONLY_91} in 9.1 only",
                 f"; {ONLY_92} in 9.2 only", f"{OUTSIDE} of them outside the section named"):
        assert said in audit, said
    # and the table of the tests says the same (it said 673 after the catalogue had 676)
    tests = " ".join(open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8").read().split())
    assert f"finds all {FIELDS} fields" in tests


def test_a_spec_edit_that_is_not_the_documents_text_fails(run, tmp_path):
    """What CI catches: a Fragment cell changed by one character is reported at that character."""
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    path = specs / "m16n8k256.yaml"
    text = path.read_text(encoding="utf-8")
    old = "containing thirty two `.b1` elements from the matrix A."
    assert text.count(old) == 1
    path.write_text(text.replace(old, old.replace("thirty two", "thirty-two")), encoding="utf-8")
    r = run("verbatim", str(path), "--document", DOCUMENT)
    assert r.code == 1
    assert f"{path}:17:113: error: A.b1 row 1 fragment: not in the document" in r.out
    assert "thirty[---]{+ +}two" in r.out
