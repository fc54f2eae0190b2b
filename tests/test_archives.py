"""Archives read in place (formats/archive.py): tar in every compression and zip in every method,
written by tarfile, zipfile and the compressors here; each member a document giving what its
file gives in a folder; nested bundles (arXiv), packages with PDFs (PMC); bombs, cut archives
and odd names; a large archive shared among shards."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
import zstandard

from extractor.pipeline.formats import bomb, members, tar

from .helpers import SCAN, gz_tar, run_json, scan_here, table, tar_of
from .wikidump import MARKUP_DEV

SOURCES = Path(MARKUP_DEV) / "docs"


def folder(tmp_path: Path) -> Path:
    """A corpus folder: the real JATS, BibTeX, CSV and wikitext files of corpora-markup-dev (read
    from ../shared, written to the test's own folder), in two sub-folders."""
    if not SOURCES.is_dir():
        pytest.skip("corpora-markup-dev is not beside the project")
    src = tmp_path / "corpus"
    for i, path in enumerate(sorted(SOURCES.rglob("*"))):
        if path.is_file() and (i % 3 == 0 or path.suffix == ".csv"):  # a third, every syntax
            dest = src / path.parent.name / path.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    return src


def pairs(out: Path, by_record: bool) -> set[tuple[str, str]]:
    """(file or member path, DOI) of every mention."""
    rows = table(out, "mentions")
    if by_record:
        return {(r["record"], r["doi"]) for r in rows}
    return {(str(Path(r["source"]).relative_to(Path(r["source"]).parents[1])), r["doi"]) for r in rows}


def write_tar(path: Path, src: Path, mode: Any) -> None:  # a tarfile mode ("w:gz")
    with tarfile.open(path, mode) as t:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                t.add(f, arcname=str(f.relative_to(src)))


def write_zip(path: Path, src: Path, method: int, zip64: bool = False) -> None:
    with zipfile.ZipFile(path, "w", method) as z:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                with open(f, "rb") as i, z.open(str(f.relative_to(src)), "w", force_zip64=zip64) as o:
                    shutil.copyfileobj(i, o)


def write_tar_zst(path: Path, src: Path) -> None:
    plain = io.BytesIO()
    write_tar_to(plain, src)
    path.write_bytes(zstandard.ZstdCompressor().compress(plain.getvalue()))


def write_tar_to(f: Any, src: Path) -> None:
    with tarfile.open(fileobj=f, mode="w") as t:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                t.add(p, arcname=str(p.relative_to(src)))


ARCHIVES = {
    "corpus.tar": lambda p, s: write_tar(p, s, "w"),
    "corpus.tar.gz": lambda p, s: write_tar(p, s, "w:gz"),
    "corpus.tgz": lambda p, s: write_tar(p, s, "w:gz"),
    "corpus.tar.bz2": lambda p, s: write_tar(p, s, "w:bz2"),
    "corpus.tar.xz": lambda p, s: write_tar(p, s, "w:xz"),
    "corpus.tar.zst": write_tar_zst,
    "deflate.zip": lambda p, s: write_zip(p, s, zipfile.ZIP_DEFLATED),
    "stored.zip": lambda p, s: write_zip(p, s, zipfile.ZIP_STORED),
    "bzip2.zip": lambda p, s: write_zip(p, s, zipfile.ZIP_BZIP2),
    "lzma.zip": lambda p, s: write_zip(p, s, zipfile.ZIP_LZMA),
    "zip64.zip": lambda p, s: write_zip(p, s, zipfile.ZIP_DEFLATED, zip64=True),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[tuple[str, str]]]:
    """The corpus folder and what a scan of it finds, (relative path, DOI)."""
    tmp = tmp_path_factory.mktemp("archives")
    src = folder(tmp)
    scan_here([src], tmp / "folder-out")
    return src, pairs(tmp / "folder-out", by_record=False)


@pytest.mark.parametrize("name", sorted(ARCHIVES))
def test_each_member_gives_what_its_file_gives_in_a_folder(
    tmp_path: Path, name: str, corpus: tuple[Path, set[tuple[str, str]]]
) -> None:
    src, want = corpus
    path = tmp_path / name
    ARCHIVES[name](path, src)
    scan_here([path], tmp_path / "out")
    assert len(want) > 300
    assert pairs(tmp_path / "out", by_record=True) == want
    run = run_json(tmp_path / "out")
    files = sum(1 for f in src.rglob("*") if f.is_file())
    assert run["documents"] == files
    assert run["tallies"]["archive members read"] == files
    assert run["documents_by_syntax"].keys() >= {"bibtex", "wikitext", "csv"}


def test_an_arxiv_bundle_names_each_nested_member_under_its_paper(tmp_path: Path) -> None:
    tex = rb"\documentclass{article}\begin{document}See \doi{10.1103/PhysRevLett.116.061102}.\end{document}"
    bib = rb"@article{a, doi = {10.1007/978-3-319-24277-4\_9}, title = {T}}"
    single = rb"\documentclass{article}\begin{document}\href{https://doi.org/10.48550/arXiv.2401.00002}{x}\end{document}"
    tar_of(
        tmp_path / "arXiv_src_2401_001.tar",
        {
            "2401/2401.00001.gz": gz_tar(
                {"main.tex": tex, "refs.bib": bib, "fig1.png": b"\x89PNG\r\n\x1a\n\0\0"}
            ),
            "2401/2401.00002.gz": gzip.compress(single),
        },
    )
    scan_here([tmp_path / "arXiv_src_2401_001.tar"], tmp_path / "out")
    assert pairs(tmp_path / "out", by_record=True) == {
        ("2401/2401.00001.gz!/main.tex", "10.1103/physrevlett.116.061102"),
        ("2401/2401.00001.gz!/refs.bib", "10.1007/978-3-319-24277-4_9"),
        ("2401/2401.00002.gz", "10.48550/arxiv.2401.00002"),
    }
    run = run_json(tmp_path / "out")
    assert run["documents_by_syntax"] == {"latex": 2, "bibtex": 1}
    assert run["skipped_records"] == []  # a figure is binary data walked into: passed over
    archive = str(tmp_path / "arXiv_src_2401_001.tar")
    assert run["skipped_binary"] == {"count": 1, "first": [f"{archive}!/2401/2401.00001.gz!/fig1.png"]}


def test_a_pmc_package_reads_its_nxml_and_its_pdf(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pytest.importorskip("pypdfium2")
    jats = (
        max(SOURCES.glob("html/jats__*.xml"), key=os.path.getsize, default=None) if SOURCES.is_dir() else None
    )
    if jats is None:
        pytest.skip("corpora-markup-dev is not beside the project")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(120, 5, "Supplement. Data: https://doi.org/10.5061/dryad.2v6wwpzq1")
    members = {
        "PMC1234567/article.nxml": jats.read_bytes(),
        "PMC1234567/supplement.pdf": bytes(pdf.output()),
        "PMC1234567/figure1.jpg": b"\xff\xd8\xff\xe0" + os.urandom(4000),
    }
    tar_of(tmp_path / "PMC1234567.tar.gz", members, "w:gz")
    scan_here([tmp_path / "PMC1234567.tar.gz"], tmp_path / "out")
    got = pairs(tmp_path / "out", by_record=True)
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "article.nxml").write_bytes(members["PMC1234567/article.nxml"])
    scan_here([tmp_path / "alone"], tmp_path / "out-alone")
    alone = {r["doi"] for r in table(tmp_path / "out-alone", "mentions")}
    assert len(alone) > 10
    assert {d for r, d in got if r == "PMC1234567/article.nxml"} == alone
    assert ("PMC1234567/supplement.pdf", "10.5061/dryad.2v6wwpzq1") in got
    run = run_json(tmp_path / "out")
    assert run["tallies"] == {"archive members read": 2, "archive members skipped": 1}


def test_binary_members_are_passed_over_by_content_as_well_as_by_name(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "mixed.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("notes.txt", "doi:10.1000/182")
        z.writestr("data.bin", bytes(range(32)) * 100)
        z.writestr("photo.PNG", b"\x89PNG\r\n\x1a\n")
        z.writestr("folder/", b"")
    scan_here([tmp_path / "mixed.zip"], tmp_path / "out")
    assert pairs(tmp_path / "out", by_record=True) == {("notes.txt", "10.1000/182")}
    run = run_json(tmp_path / "out")
    # binary data walked into (an archive's members): passed over, counted, no skipped record
    archive = str(tmp_path / "mixed.zip")
    assert run["skipped_binary"] == {"count": 2, "first": [f"{archive}!/data.bin", f"{archive}!/photo.PNG"]}
    assert run["skipped_records"] == [] and run["rejected"] == []
    assert run["tallies"] == {"archive members read": 1, "archive members skipped": 2}


def test_a_zip_bomb_member_is_named_and_skipped_and_the_rest_read(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("a.txt", "doi:10.1000/before")
        with z.open("zeros.txt", "w") as o:
            block = b"0" * (1 << 20)
            for _ in range(bomb.BOMB_MIN // len(block) + 8):
                o.write(block)
        z.writestr("b.txt", "doi:10.1000/after")
    assert (tmp_path / "bomb.zip").stat().st_size < 1 << 20
    scan_here([tmp_path / "bomb.zip"], tmp_path / "out")
    assert pairs(tmp_path / "out", by_record=True) == {
        ("a.txt", "10.1000/before"),
        ("b.txt", "10.1000/after"),
    }
    (reason,) = [f["reason"] for f in run_json(tmp_path / "out")["skipped_records"][0]["first"]]
    assert reason.startswith("zeros.txt: a bomb: 72 MiB from ")


def test_a_bomb_inside_a_compressed_tar_is_cut_where_it_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bomb, "BOMB_MIN", 1 << 20)  # read in this process: a small bomb will do
    members = {
        "a.txt": b"doi:10.1000/before",
        "zeros.txt": b"doi:10.1000/in-the-bomb " + b"0" * (8 << 20),
        "inner.gz": gzip.compress(b"x" * (8 << 20)),
        "b.txt": b"doi:10.1000/after",
    }
    tar_of(tmp_path / "bomb.tar.gz", members, "w:gz")
    scan_here([tmp_path / "bomb.tar.gz"], tmp_path / "out", max_record_bytes=1 << 16)
    got = pairs(tmp_path / "out", by_record=True)
    assert ("a.txt", "10.1000/before") in got and ("b.txt", "10.1000/after") in got
    reasons = [f["reason"] for f in run_json(tmp_path / "out")["skipped_records"][0]["first"]]
    assert [r.split(":")[0] for r in reasons] == ["zeros.txt", "inner.gz"]
    assert all("a bomb" in r for r in reasons)


def test_a_cut_tar_keeps_the_members_before_the_cut_and_names_it(tmp_path: Path) -> None:
    # 1.8 MB: more than one bz2 block (a cut bz2 stream gives its whole blocks only)
    members = {
        f"m{i:02d}.txt": f"doi:10.1000/m{i} ".encode() + os.urandom(30_000).hex().encode() for i in range(30)
    }
    for ext, mode in (("tar", "w"), ("tar.gz", "w:gz"), ("tar.bz2", "w:bz2"), ("tar.xz", "w:xz")):
        whole = tmp_path / f"whole.{ext}"
        tar_of(whole, members, mode)
        data = whole.read_bytes()
        cut = tmp_path / f"cut.{ext}"
        cut.write_bytes(data[: len(data) * 6 // 10])
        out = tmp_path / f"out-{ext}"
        scan_here([cut], out)
        got = sorted(r for r, _d in pairs(out, by_record=True))
        assert 5 <= len(got) < 20, (ext, got)
        assert got == [f"m{i:02d}.txt" for i in range(len(got))], ext
        run = run_json(out)
        assert run["rejected"] == []
        (cut,) = run["partial"]  # a partial download: what was read is kept, the cut named
        assert cut["at"].startswith("member ") and cut["reason"], (ext, cut)


def test_a_zip_cut_before_its_directory_is_read_by_its_local_headers(tmp_path: Path) -> None:
    # a zip written to a stream that cannot seek: sizes in data descriptors after each member
    class Pipe(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, b: Any) -> int:
            self.data += b
            return len(b)

    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED, zipfile.ZIP_BZIP2):
        pipe = Pipe()
        with zipfile.ZipFile(pipe, "w", method) as z:
            for i in range(10):
                z.writestr(f"m{i}.txt", f"doi:10.1000/m{i} " + os.urandom(1000).hex())
        data = bytes(pipe.data)
        cut = tmp_path / f"cut{method}.zip"
        cut.write_bytes(
            data[: data.find(b"PK\x01\x02") - 300]
        )  # the directory and the last member's end gone
        out = tmp_path / f"out{method}"
        scan_here([cut], out)
        got = sorted(r for r, _d in pairs(out, by_record=True))
        if method == zipfile.ZIP_STORED:  # a stored member's size is in its descriptor only
            assert got == [], got
        else:
            assert got == [f"m{i}.txt" for i in range(9)], (method, got)
        (cut,) = run_json(out)["partial"]
        assert "no readable central directory" in cut["reason"], cut


def test_odd_member_names_are_only_names(tmp_path: Path) -> None:
    names = ["/etc/abs.txt", "../../up.txt", "new\nline.txt", "a!b%c.txt", "caf\u00e9.txt"]
    tar_of(tmp_path / "odd.tar", {n: f"doi:10.1000/{i}".encode() for i, n in enumerate(names)})
    before = set(os.listdir(tmp_path))
    scan_here([tmp_path / "odd.tar"], tmp_path / "out")
    assert set(os.listdir(tmp_path)) == before | {"out"}
    assert pairs(tmp_path / "out", by_record=True) == {
        ("/etc/abs.txt", "10.1000/0"),
        ("../../up.txt", "10.1000/1"),
        ("new\nline.txt", "10.1000/2"),
        ("a%21b%25c.txt", "10.1000/3"),
        ("caf\u00e9.txt", "10.1000/4"),
    }


@pytest.mark.parametrize("name", ["big.zip", "big.tar"])
def test_a_large_archive_is_shared_among_shards_with_the_same_result(tmp_path: Path, name: str) -> None:
    members = {f"d{i:03d}.txt": (f"doi:10.1000/d{i} " + os.urandom(6000).hex()).encode() for i in range(200)}
    path = tmp_path / name
    if name.endswith(".zip"):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for n, d in members.items():
                z.writestr(n, d)
    else:
        tar_of(path, members)
    one = scan_here([path], tmp_path / "one")
    many = scan_here([path], tmp_path / "many", shard_size=200_000)
    assert one.shards == 1 and many.shards >= 10
    assert pairs(tmp_path / "many", by_record=True) == pairs(tmp_path / "one", by_record=True)
    assert len(pairs(tmp_path / "one", by_record=True)) == 200
    assert run_json(tmp_path / "many")["tallies"] == {"archive members read": 200}


def test_a_member_larger_than_a_record_is_streamed_with_the_same_result(tmp_path: Path) -> None:
    text = "".join(f"ref {i}: https://doi.org/10.5555/big.{i}\n" for i in range(20_000)).encode()
    for name, write in (
        ("big.tar.gz", lambda p: tar_of(p, {"big.txt": text}, "w:gz")),
        ("big.zip", lambda p: zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED).writestr("big.txt", text)),
    ):
        write(tmp_path / name)
        out = tmp_path / f"out-{name}"
        scan_here([tmp_path / name], out, max_record_bytes=1 << 16)
        assert len(pairs(out, by_record=True)) == 20_000


def test_a_file_named_zip_that_is_not_one_is_rejected_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "fake.zip").write_bytes(b"not a zip at all\n" * 10)
    report = scan_here([tmp_path / "fake.zip"], tmp_path / "out")
    (rej,) = report.rejected
    assert "no readable central directory" in rej["reason"]


def test_find_and_scan_read_archives_from_the_command_line(tmp_path: Path) -> None:
    tar_of(tmp_path / "c.tar.gz", {"x/a.bib": rb"@misc{k, doi = {10.1000/a\_b}}"}, "w:gz")
    find = subprocess.run(
        [sys.executable, "-m", "extractor.cli", "find", str(tmp_path / "c.tar.gz")],
        capture_output=True,
        text=True,
    )
    assert find.stdout == "10.1000/a_b\n", find.stderr
    proc = subprocess.run(
        [*SCAN, str(tmp_path / "c.tar.gz"), "-o", str(tmp_path / "out"), "-q"], capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    assert pairs(tmp_path / "out", by_record=True) == {("x/a.bib", "10.1000/a_b")}


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_the_tar_walk_reads_each_header_format_as_tarfile_does(fmt: int) -> None:
    """tar.tar_entries against tarfile on names that need a ustar prefix, a GNU long name or
    a pax path, folders, links and empty members; the planner's offsets are the reader's."""
    names = ["a.txt", "d/" * 60 + "deep.txt", "x" * 99 + ".txt", "caf\u00e9/\u00fcber.bib", "empty.txt"]
    if fmt == tarfile.USTAR_FORMAT:
        names = [n for n in names if len(n.encode()) <= 100 or "/" in n[-100:]]
        names = [n for n in names if n.isascii()]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for i, n in enumerate(names):
            ti = tarfile.TarInfo(n)
            data = b"" if n == "empty.txt" else f"doi:10.1000/{i}".encode() * (i + 1)
            ti.size = len(data)
            ti.mtime = 1700000000 + i
            t.addfile(ti, io.BytesIO(data))
        folder = tarfile.TarInfo("d/")
        folder.type = tarfile.DIRTYPE
        t.addfile(folder)
        link = tarfile.TarInfo("link.txt")
        link.type = tarfile.SYMTYPE
        link.linkname = "a.txt"
        t.addfile(link)
    buf.seek(0)
    with tarfile.open(fileobj=buf, mode="r:") as t:
        want = [
            (
                ti.name,
                ti.size,
                ti.mtime,
                ti.offset,
                ti.isreg(),
                t.extractfile(ti).read() if ti.isreg() else b"",  # type: ignore[union-attr]
            )
            for ti in t
        ]
    buf.seek(0)
    got = [
        (e.name, e.size, e.mtime, e.offset, e.regular, e.body.read() if e.regular else b"")
        for e in tar.tar_entries(buf)
    ]
    assert [(n.rstrip("/"), *rest) for n, *rest in got] == want
    # the planner's walk (seeking past the members' bytes) gives the same offsets and sizes
    buf.seek(0)
    assert tar.tar_offsets(buf) == [
        (ti_name_size_offset[3], ti_name_size_offset[1]) for ti_name_size_offset in want
    ]


def test_a_tar_header_with_a_bad_checksum_rejects_the_archive_with_the_reason(tmp_path: Path) -> None:
    """A corrupt archive (not one cut short) is rejected whole, as a corrupt compressed file is."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for i in range(3):
            ti = tarfile.TarInfo(f"m{i}.txt")
            ti.size = 20
            t.addfile(ti, io.BytesIO(f"doi:10.1000/m{i}".encode().ljust(20)))
    data = bytearray(buf.getvalue())
    second = data.find(b"m1.txt")
    data[second + 1] ^= 1  # the second member's name: its checksum no longer holds
    (tmp_path / "bad.tar").write_bytes(bytes(data))
    scan_here([tmp_path / "bad.tar"], tmp_path / "out")
    assert pairs(tmp_path / "out", by_record=True) == set()
    (rej,) = run_json(tmp_path / "out")["rejected"]
    assert "bad checksum" in rej["reason"] and "corrupt archive at member 2" in rej["reason"], rej


def test_containers_nested_deeper_than_the_bound_are_named_not_read(tmp_path: Path) -> None:
    text = b"doi:10.1000/deep"
    nested = {}
    for depth in range(1, 7):
        text = gzip.compress(text)
        nested[f"depth{depth}.gz"] = text
    tar_of(tmp_path / "deep.tar", nested)
    scan_here([tmp_path / "deep.tar"], tmp_path / "out")
    read = {r for r, _d in pairs(tmp_path / "out", by_record=True)}
    assert read == {f"depth{d}.gz" for d in range(1, members.MAX_DEPTH + 1)}
    reasons = [f["reason"] for f in run_json(tmp_path / "out")["skipped_records"][0]["first"]]
    assert reasons == [
        f"depth{d}.gz: an archive or compressed file nested over {members.MAX_DEPTH} deep"
        for d in range(members.MAX_DEPTH + 1, 7)
    ]


def test_a_streamed_member_gives_what_the_same_member_held_whole_gives(tmp_path: Path) -> None:
    """A member over the record limit is passed on as its UTF-8 blocks, cut at character
    boundaries (not decoded and encoded back): multi-byte characters across the 1 MiB blocks
    and invalid bytes give the mentions, offsets in characters included, of the member read
    whole."""
    piece = "été ☃ 𝄞 doi:10.1000/é{} ".encode()
    parts = []
    for i in range(60_000):
        parts.append(piece.replace(b"{}", str(i).encode()))
        if i % 997 == 0:
            parts.append(b"\xff\xc3 ")  # invalid: a stray byte, a lead byte without its follower
    text = b"".join(parts)
    assert len(text) > 3 << 19  # over a block (1 MiB) more than once
    tar_of(tmp_path / "m.tar.gz", {"big.txt": text}, "w:gz")

    def rows(out: Path) -> list[tuple[object, ...]]:
        return sorted(
            (r["doi"], r["count"], r["first_char_offset"], r["first_raw"]) for r in table(out, "mentions")
        )

    scan_here([tmp_path / "m.tar.gz"], tmp_path / "streamed", max_record_bytes=1 << 16)
    scan_here([tmp_path / "m.tar.gz"], tmp_path / "whole", max_record_bytes=64 << 20)
    assert rows(tmp_path / "streamed") == rows(tmp_path / "whole")
    assert len(rows(tmp_path / "whole")) == 60_000
    assert (
        run_json(tmp_path / "streamed")["invalid_bytes_replaced"]
        == run_json(tmp_path / "whole")["invalid_bytes_replaced"]
    )
