"""Messy inputs, one policy for every reader (README "Damaged inputs", docs/output.md): an input cut
short (a partial download) keeps what was read before the cut and is named as partial, where
and why (scan exits 1, find prints what it read and exits 2); a corrupt one (a checksum or data
error inside it) is rejected whole; a finished result is never replaced by a run that reads
nothing."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import subprocess
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from .helpers import SCAN, run_json, scan_here, table

FIND = [sys.executable, "-m", "extractor.cli", "find"]
N = 30_000  # DOIs in a whole input: 1 MB of text, several blocks of every decompressor


def _lines(n: int = N) -> bytes:
    return b"".join(b"line %d cites doi:10.1000/%d here\n" % (i, i) for i in range(n))


def _jsonl(n: int = N) -> bytes:
    return b"".join(b'{"id": "r%d", "text": "cites doi:10.1000/%d here"}\n' % (i, i) for i in range(n))


def _csv(n: int = N) -> bytes:
    return b"id,text\n" + b"".join(b"r%d,cites doi:10.1000/%d here\n" % (i, i) for i in range(n))


COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "bz2": lambda d: bz2.compress(d, 1),  # blocks of 100 kB: a cut leaves whole ones before it
    "xz": lambda d: lzma.compress(d, preset=0),
    "zst": lambda d: zstandard.ZstdCompressor().compress(d),
}
# a name and its whole contents, for each reader of a compressed stream
STREAMS = {"txt": _lines, "jsonl": _jsonl, "csv": _csv}


def _dois(out: Path) -> set[str]:
    return {r["doi"] for r in table(out, "mentions")}


def _number(doi: str) -> int:
    return int(doi.rsplit("/", 1)[1])


@pytest.mark.parametrize("comp", sorted(COMPRESS))
@pytest.mark.parametrize("kind", sorted(STREAMS))
def test_a_compressed_input_cut_short_keeps_what_was_read_and_is_named_partial(
    tmp_path: Path, kind: str, comp: str
) -> None:
    data = COMPRESS[comp](STREAMS[kind]())
    path = tmp_path / f"cut.{kind}.{comp}"
    path.write_bytes(data[: len(data) * 6 // 10])
    report = scan_here([path], tmp_path / "out")
    got = _dois(tmp_path / "out")
    # a run of the first DOIs, each whole: none of them the start of one the cut ended early
    numbers = sorted(_number(d) for d in got)
    assert numbers == list(range(len(numbers))), (kind, comp)
    assert N // 10 < len(numbers) < N, (kind, comp, len(numbers))
    run = run_json(tmp_path / "out")
    assert run["rejected"] == [] and report.partial == run["partial"]
    (cut,) = run["partial"]
    assert cut["source"] == str(path) and cut["at"].startswith("byte ") and cut["reason"]
    if comp == "gz":  # every DOI that zlib decodes whole before the cut (python-isal drops its last step)
        text = zlib.decompressobj(31).decompress(path.read_bytes())
        assert len(numbers) == text.count(b" here"), (kind, len(numbers))


def test_a_compressed_input_corrupt_in_the_middle_is_rejected_whole(tmp_path: Path) -> None:
    for comp in ("gz", "bz2", "xz", "zst"):
        data = bytearray(COMPRESS[comp](_lines()))
        for k in range(len(data) // 2, len(data) // 2 + 64):
            data[k] ^= 0x55
        path = tmp_path / f"bad.txt.{comp}"
        path.write_bytes(bytes(data))
        scan_here([path], tmp_path / f"out-{comp}")
        run = run_json(tmp_path / f"out-{comp}")
        assert [r["source"] for r in run["rejected"]] == [str(path)], comp
        assert run["partial"] == [] and run["distinct_dois"] == 0, comp


def _members(n: int = 30) -> dict[str, bytes]:
    # 60 kB members that do not compress (hex of seeded random bytes), so a cut lands inside one
    return {
        f"m{i:02d}.txt": b"doi:10.1000/m%d " % i + random.Random(i).randbytes(30_000).hex().encode()
        for i in range(n)
    }


def _tar(members: dict[str, bytes], mode: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:  # type: ignore[call-overload]
        for name, data in members.items():
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


ARCHIVES = {
    "tar": lambda m: _tar(m, "w"),
    "tar.gz": lambda m: _tar(m, "w:gz"),
    "tar.xz": lambda m: _tar(m, "w:xz"),
    "zip": _zip,
}


@pytest.mark.parametrize("ext", sorted(ARCHIVES))
def test_an_archive_cut_short_keeps_the_members_before_and_is_named_partial(tmp_path: Path, ext: str) -> None:
    data = ARCHIVES[ext](_members())
    path = tmp_path / f"cut.{ext}"
    path.write_bytes(data[: len(data) * 6 // 10])
    scan_here([path], tmp_path / "out")
    records = sorted({r["record"] for r in table(tmp_path / "out", "mentions")})
    assert 5 <= len(records) < 30 and records == [f"m{i:02d}.txt" for i in range(len(records))], records
    run = run_json(tmp_path / "out")
    assert run["rejected"] == []
    (cut,) = run["partial"]
    assert cut["source"] == str(path) and cut["at"].startswith("member "), cut


def test_scan_exits_1_and_find_prints_what_it_read_and_exits_2_on_a_cut_input(tmp_path: Path) -> None:
    whole = tmp_path / "whole.txt.gz"
    whole.write_bytes(gzip.compress(_lines()))
    data = _tar(_members(), "w:gz")
    (tmp_path / "t.tar.gz").write_bytes(data[: len(data) * 6 // 10])
    data = gzip.compress(_lines())
    (tmp_path / "t.txt.gz").write_bytes(data[: len(data) // 2])
    zdata = _zip(_members())
    (tmp_path / "t.zip").write_bytes(zdata[: len(zdata) // 2])
    for name in ("t.tar.gz", "t.txt.gz", "t.zip"):
        path = tmp_path / name
        proc = subprocess.run([*FIND, "-c", str(path)], capture_output=True, text=True)
        assert proc.returncode == 2, (name, proc.stderr)
        assert int(proc.stdout) > 0, name  # the count of what was read
        assert "cut short at" in proc.stderr and name in proc.stderr, proc.stderr
        listed = subprocess.run([*FIND, str(path)], capture_output=True, text=True)
        assert listed.returncode == 2 and len(listed.stdout.splitlines()) == int(proc.stdout), name
        out = tmp_path / f"out-{name}"
        scan = subprocess.run([*SCAN, str(path), "-o", str(out), "--json"], capture_output=True, text=True)
        assert scan.returncode == 1, (name, scan.stderr)
        assert f"partial {path}: cut short at" in scan.stderr, scan.stderr
        summary = json.loads(scan.stdout)
        assert summary["partial"] and summary["distinct_dois"] == int(proc.stdout), name
    # a whole input: exit 0, no word of it
    proc = subprocess.run([*FIND, "-c", str(whole)], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (0, str(N), "")


def test_a_corrupt_archive_is_rejected_whole_with_the_reason(tmp_path: Path) -> None:
    """A zip member whose data fail their CRC (a tar's bad header checksum: tests/test_archives.py)."""
    members = _members(5)
    zdata = bytearray(_zip(members))
    middle = zdata.find(b"m02.txt") + 200  # inside the third member's deflated data
    zdata[middle : middle + 8] = b"\xff" * 8
    (tmp_path / "bad.zip").write_bytes(bytes(zdata))
    for name in ("bad.zip",):
        scan_here([tmp_path / name], tmp_path / f"out-{name}")
        run = run_json(tmp_path / f"out-{name}")
        (rej,) = run["rejected"]
        assert "corrupt archive at member" in rej["reason"], rej
        assert run["partial"] == [] and run["distinct_dois"] == 0


def test_force_never_replaces_a_finished_result_with_a_run_that_read_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("doi:10.1000/kept\n")
    out = tmp_path / "out"
    first = subprocess.run([*SCAN, str(tmp_path / "a.txt"), "-o", str(out)], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    before = (out / "_run.json").read_text()
    # a glob that matches nothing (a typo), then inputs that are all corrupt
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 200)
    for inputs in ([str(tmp_path / "corpsu" / "*.txt")], [str(bad)]):
        proc = subprocess.run([*SCAN, "--force", *inputs, "-o", str(out)], capture_output=True, text=True)
        assert proc.returncode == 2, (inputs, proc.stderr)
        assert "was kept" in proc.stderr, proc.stderr
        assert (out / "_run.json").read_text() == before
        assert _dois(out) == {"10.1000/kept"}
    # --force with an input it reads replaces the result, datasets it no longer writes included
    subprocess.run([*SCAN, str(tmp_path / "a.txt"), "-o", str(out), "--force", "--occurrences"], check=True)
    assert (out / "occurrences").exists()
    (tmp_path / "b.txt").write_text("doi:10.1000/new\n")
    proc = subprocess.run(
        [*SCAN, "--force", str(tmp_path / "b.txt"), "-o", str(out)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert _dois(out) == {"10.1000/new"} and not (out / "occurrences").exists()


def test_find_walks_past_binary_files_as_ripgrep_does_and_names_one_named_outright(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    (tree / "docs").mkdir(parents=True)
    (tree / "docs" / "refs.md").write_text("See https://doi.org/10.1000/182.\n")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
    (tree / "docs" / "logo.png").write_bytes(png)
    (tree / "data.fits").write_bytes(b"SIMPLE  =                    T" + b"\x00\x01\x02\x03" * 500)
    proc = subprocess.run([*FIND, "-r", str(tree)], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert proc.stdout.strip().endswith(":10.1000/182")
    # counted where the user asks to see what was passed over
    verbose = subprocess.run([*FIND, "-r", "-v", str(tree)], capture_output=True, text=True)
    assert verbose.returncode == 0 and verbose.stderr.count("passed over") == 2, verbose.stderr
    # a binary file named outright is said, with grep's error status
    named = subprocess.run([*FIND, str(tree / "docs" / "logo.png")], capture_output=True, text=True)
    assert named.returncode == 2 and "binary data" in named.stderr


def _scan_without(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`doi-extract scan` in a Python that cannot import `module` (an extra not installed)."""
    code = f"import sys; sys.modules[{module!r}] = None; from extractor.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "scan", *args], capture_output=True, text=True, cwd=cwd
    )


def test_a_walked_pdf_without_its_extra_is_a_rejected_input_and_the_tree_is_read(tmp_path: Path) -> None:
    from fpdf import FPDF

    tree = tmp_path / "pkg"
    (tree / "docs" / "img").mkdir(parents=True)
    (tree / "README.md").write_text("Cite https://doi.org/10.5281/zenodo.1234.\n")
    (tree / "refs.bib").write_text("@article{a, doi = {10.1000/bib}}\n")
    (tree / "docs" / "img" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="doi:10.1000/inpdf")
    pdf.output(str(tree / "docs" / "logo.pdf"))
    proc = _scan_without("pypdfium2", "pkg", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "rejected pkg/docs/logo.pdf: pdf input needs pypdfium2" in proc.stderr
    assert _dois(tmp_path / "out") == {"10.5281/zenodo.1234", "10.1000/bib"}
    run = run_json(tmp_path / "out")
    reasons = {r["source"]: r["reason"] for r in run["rejected"]}
    assert reasons["pkg/docs/logo.pdf"].startswith("pdf input needs pypdfium2: pip install")
    # the PNG, found by walking, is binary data with no text to lose: passed over, counted
    assert "pkg/docs/img/logo.png" not in reasons
    assert run["skipped_binary"] == {"count": 1, "first": ["pkg/docs/img/logo.png"]}
    assert "passed over 1 binary file found by walking (pkg/docs/img/logo.png" in proc.stderr
    # --exclude leaves them out: a clean run
    clean = _scan_without(
        "pypdfium2", "pkg", "-o", "clean", "--exclude", "*.pdf", "--exclude", "*.png", cwd=tmp_path
    )
    assert clean.returncode == 0, clean.stderr
    assert run_json(tmp_path / "clean")["rejected"] == []
    only = _scan_without("pypdfium2", "pkg", "-o", "only", "--include", "*.bib", cwd=tmp_path)
    assert only.returncode == 0 and _dois(tmp_path / "only") == {"10.1000/bib"}
    # named outright, the PDF stops the run before anything is written
    named = _scan_without("pypdfium2", "pkg/docs/logo.pdf", "-o", "named", cwd=tmp_path)
    assert named.returncode == 2 and "pdf input needs pypdfium2" in named.stderr
    assert not (tmp_path / "named" / "_run.json").exists()


@pytest.mark.parametrize("container", ["tar.gz", "zip", "tar"])
def test_an_archive_member_has_the_units_of_the_same_bytes_as_a_file(tmp_path: Path, container: str) -> None:
    """An archive member is a file: byte offsets, character offsets and lines as the same bytes
    give on disk (a BOM, non-ASCII text, a declared encoding, a member over the record limit)."""
    members = {
        "refs.bib": "\ufeff@article{a,\n  title = {Café ü},\n  doi = {10.1000/bib.1}\n}\n".encode()
        + b"".join(b"@misc{k%d, doi = {10.1000/k%d}}\n" % (i, i) for i in range(2000)),
        "page.html": b'<meta charset="iso-8859-1"><p>caf\xe9 https://doi.org/10.1038/nphys1170</p>\n',
        "notes.txt": "línea 1\nlínea 2 doi:10.5555/ü-1\n".encode(),
    }
    (tmp_path / "files").mkdir()
    for name, data in members.items():
        (tmp_path / "files" / name).write_bytes(data)
    arch = tmp_path / f"a.{container}"
    arch.write_bytes(
        _zip(members) if container == "zip" else _tar(members, "w:gz" if container == "tar.gz" else "w")
    )
    cols = ("doi", "count", "first_byte_offset", "first_char_offset", "first_line", "first_raw", "forms")
    for limit in (16 << 20, 4096):  # held whole, and streamed in blocks
        scan_here([tmp_path / "files"], tmp_path / f"files-{limit}", max_record_bytes=limit)
        scan_here([arch], tmp_path / f"arch-{limit}", max_record_bytes=limit)
        as_files = {
            (Path(r["source"]).name, *(str(r[c]) for c in cols))
            for r in table(tmp_path / f"files-{limit}", "mentions")
        }
        as_members = {
            (r["record"], *(str(r[c]) for c in cols)) for r in table(tmp_path / f"arch-{limit}", "mentions")
        }
        assert as_members == as_files and len(as_files) == 2003
    # find prints a member's byte offsets as it prints a file's
    got = subprocess.run([*FIND, "--format", "tsv", str(arch)], capture_output=True, text=True, check=True)
    files = subprocess.run(
        [*FIND, "--format", "tsv", *(str(tmp_path / "files" / n) for n in members)],
        capture_output=True,
        text=True,
        check=True,
    )
    offsets = sorted(line.split("\t")[1:3] for line in got.stdout.splitlines())
    assert offsets == sorted(line.split("\t")[1:3] for line in files.stdout.splitlines())


def _png(width: int, height: int) -> bytes:
    """A real PNG (RGB, one IDAT chunk), as an image library writes one."""
    import struct

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\0" + bytes(random.Random(y).randrange(256) for _ in range(3 * width)) for y in range(height)
    )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_binary_files_walked_into_are_passed_over_in_one_line(tmp_path: Path) -> None:
    """A source tree as cloned: images, an icon, a font, Windows' Thumbs.db beside its text, and
    the same tree as a release tarball. Walked into, binary data is passed over — counted, one
    line at the end, exit 0; named outright, it is a rejected input (exit 1)."""
    tree = tmp_path / "pkg"
    (tree / "docs" / "img").mkdir(parents=True)
    (tree / "README.md").write_text("Please cite https://doi.org/10.5281/zenodo.1234.\n")
    (tree / "CITATION.cff").write_text("doi: 10.5281/zenodo.1234\n")
    (tree / "docs" / "img" / "logo.png").write_bytes(_png(64, 32))
    (tree / "docs" / "img" / "favicon.ico").write_bytes(b"\0\0\1\0\1\0\x10\x10" + bytes(range(256)) * 8)
    (tree / "docs" / "DejaVuSans.ttf").write_bytes(b"\0\1\0\0\0\x13\1\0\0\4" + bytes(range(256)) * 16)
    (tree / "docs" / "img" / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512))
    with tarfile.open(tmp_path / "pkg-1.0.tar.gz", "w:gz") as t:
        t.add(tree, "pkg-1.0")
    p = subprocess.run(
        [*SCAN, "pkg", "pkg-1.0.tar.gz", "-o", "out"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "rejected" not in p.stderr
    said = [line for line in p.stderr.splitlines() if "passed over" in line]
    assert len(said) == 1 and said[0].startswith(
        "doi-extract scan: passed over 8 binary files found by walking"
    )
    run = run_json(tmp_path / "out")
    assert run["rejected"] == [] and run["skipped_records"] == []
    assert run["skipped_binary"]["count"] == 8  # four files, and their four members
    assert "pkg-1.0.tar.gz!/pkg-1.0/docs/img/logo.png" in run["skipped_binary"]["first"]
    assert _dois(tmp_path / "out") == {"10.5281/zenodo.1234"}
    named = subprocess.run(
        [*SCAN, "pkg/docs/img/logo.png", "pkg/README.md", "-o", "named"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert named.returncode == 1 and "rejected pkg/docs/img/logo.png: binary data" in named.stderr
    assert run_json(tmp_path / "named")["skipped_binary"] == {"count": 0, "first": []}
