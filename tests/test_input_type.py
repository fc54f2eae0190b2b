"""What an input is, told once (units.InputType): formats.tell_input from a file's first bytes as
stored, decode.text_input_type from its text's head, and the planner's InputType carried by its shards."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard

from extractor.pipeline import InputType, ScanConfig
from extractor.pipeline.formats import ENTRIES, FORMAT_HEAD, FORMATS, tell_input
from extractor.pipeline.io.decode import text_input_type
from extractor.pipeline.io.inputs import plan_shards

PAGE = b'<html><head><meta charset="iso-8859-1"></head><body><p>Caf\xe9 doi:10.1000/1</p></body></html>'
RECORDS = "".join(json.dumps({"id": i, "text": f"doi:10.1000/{i}"}) + "\n" for i in range(3)).encode()


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as t:
        info = tarfile.TarInfo("réf.txt")  # a name of non-ASCII bytes: the checksum is the same
        info.size = 13
        t.addfile(info, io.BytesIO(b"doi:10.1000/1"))
    return out.getvalue()


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.txt", "doi:10.1000/1")
    return out.getvalue()


def _parquet() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table({"id": ["1"], "text": ["doi:10.1000/1"]}), out)
    return out.getvalue()


WARC = (
    b"WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: http://example.org/\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 13\r\n\r\ndoi:10.1000/1\r\n\r\n"
)
DUMP = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<!-- a dump\'s comment -->\n'
    b'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xml:lang="en">\n'
    b"<page><title>A</title><ns>0</ns><id>1</id><revision><id>2</id>"
    b"<text>{{cite journal |doi=10.1000/1}}</text></revision></page></mediawiki>\n"
)
# Web of Science's tab-delimited export: a `.txt` whose first line names the fields
SAVEDRECS = b"PT\tAU\tTI\tDI\n" + b"J\tDoe, J\tA title\t10.1000/1\n"
# a text with `ustar` where a tar header has its magic: a text still (the header's checksum)
USTAR_AT_257 = json.dumps({"id": 1, "text": "x" * 238 + "ustar " + "y" * 300}).encode() + b"\n"
PROSE_AT_257 = b"see doi:10.1000/1 " * 14 + b"x" * 5 + b"ustar  " + b"y" * 300
PAIRS = [
    ("a.txt", b"see doi:10.1000/1\n", InputType("text")),
    ("a.txt.gz", gzip.compress(b"see doi:10.1000/1\n"), InputType("text", "gzip")),
    ("a.txt.bz2", bz2.compress(b"see doi:10.1000/1\n"), InputType("text", "bzip2")),
    ("a.txt.zst", zstandard.ZstdCompressor().compress(b"doi:10.1000/1\n"), InputType("text", "zstd")),
    ("p.html", PAGE, InputType("text", encoding="iso8859-1")),
    ("p.html.gz", gzip.compress(PAGE), InputType("text", "gzip", "iso8859-1")),
    ("u.txt", "doi:10.1000/1\n".encode("utf-16"), InputType("text", encoding="utf-16")),
    ("r.jsonl.gz", gzip.compress(RECORDS), InputType("jsonl", "gzip")),
    ("r.bin", RECORDS, InputType("jsonl")),  # told by its contents, not its name
    ("t.csv", "\ufeffDOI,Title\n10.1000/1,x\n".encode("utf-8"), InputType("csv")),
    ("a.bin", _tar(), InputType("archive")),
    ("a.bin.gz", gzip.compress(_tar()), InputType("archive", "gzip")),
    ("r.jsonl", USTAR_AT_257, InputType("jsonl")),
    ("u.bin", PROSE_AT_257, InputType("text")),
    ("z.bz2", b"BZh9 starts this text: doi:10.1000/1\n", InputType("text")),  # no bzip2 block follows
    ("x.bin", _parquet(), InputType("parquet")),
    ("c.warc.gz", gzip.compress(WARC), InputType("warc", "gzip")),
    ("p.bin", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", InputType("pdf")),
    ("a.zip", _zip(), InputType("archive")),
    ("d.xml.bz2", bz2.compress(DUMP), InputType("mediawiki", "bzip2")),
    ("savedrecs.txt", SAVEDRECS, InputType("csv")),
    ("tabbed.txt", b"see doi:10.1000/1\n\tindented by a TAB\n", InputType("text")),
]


@pytest.mark.parametrize(("name", "data", "want"), PAIRS, ids=[p[0] for p in PAIRS])
def test_an_input_is_told_by_its_first_bytes_as_stored(
    tmp_path: Path, name: str, data: bytes, want: InputType
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    config = ScanConfig(out="", id_field=_ID_FIELD.get(name, "id"))
    assert tell_input(str(path), data[:FORMAT_HEAD], config) == want


_ID_FIELD = {"t.csv": "DOI", "savedrecs.txt": "DI"}


@pytest.mark.parametrize(("name", "data", "want"), PAIRS, ids=[p[0] for p in PAIRS])
def test_a_formats_own_tell_is_asked_only_where_its_cheap_test_passes(
    name: str, data: bytes, want: InputType
) -> None:
    """formats.ENTRIES: the registry's cheap test on a name and head passes every file its
    format's module tells as its own, so that the module is loaded only where it may say yes
    (a text file loads no record format); and it is asked of no other format's file here."""
    head = (
        gzip.decompress(data)
        if name.endswith(".gz")
        else bz2.decompress(data)
        if name.endswith("d.xml.bz2")
        else data
    )
    bare = name.removesuffix(".gz").removesuffix(".bz2")
    id_field = _ID_FIELD.get(name, "id")
    for fmt, entry in ENTRIES.items():
        if FORMATS[fmt].tell(bare, head[:FORMAT_HEAD], "text", id_field):
            assert entry.may_be(bare, head[:FORMAT_HEAD]), (fmt, name)
    passing = [f for f, e in ENTRIES.items() if f != "text" and e.may_be(bare, head[:FORMAT_HEAD])]
    assert passing == ([want.fmt] if want.fmt != "text" else []) or name in _MAY_BE_OTHER, passing


# files whose head passes another format's cheap test, which its `tell` then refuses: `ustar` at
# byte 257 of a text (the tar header's checksum), a JSON object that is a text's only line, a
# page that opens a tag as a dump does (its root element tells)
_MAY_BE_OTHER = {"r.jsonl", "u.bin", "p.html", "p.html.gz"}


def test_the_texts_told_have_the_tar_magic_where_a_header_has_it() -> None:
    assert USTAR_AT_257[257:262] == PROSE_AT_257[257:262] == _tar()[257:262] == b"ustar"


def test_a_texts_kind_and_syntax_are_told_once_and_a_forced_one_kept() -> None:
    told = text_input_type(InputType("text"), "refs.bib", b"@article{a, doi = {10.1000/1}}", None)
    assert (told.kind, told.syntax) == ("plain", "bibtex")
    assert text_input_type(told, "x.html", b"<html><body>", None) is told  # told already: unchanged
    assert text_input_type(InputType("text"), "a.txt", b"plain words", None).syntax == ""  # prose
    forced = text_input_type(InputType("text", kind="pdf"), "x.html", b"<html><body><p>", "none")
    assert (forced.kind, forced.syntax) == ("pdf", "")


def test_the_planners_told_is_carried_by_every_shard_of_a_file(tmp_path: Path) -> None:
    big = tmp_path / "refs.html"
    big.write_bytes(b"<html><body>\n" + b"<p>doi:10.1000/1</p>\n" * 5000)
    packed = tmp_path / "more.txt.gz"
    packed.write_bytes(
        gzip.compress(b"".join(b"doi:10.1000/%s\n" % os.urandom(8).hex().encode() for _ in range(4000)))
    )
    config = ScanConfig(out="", shard_size=16 << 10)
    specs, rejected, _ = plan_shards([(str(big), str(big)), (str(packed), str(packed))], config)
    assert not rejected
    ranges = [s for s in specs if s.path == str(big)]
    assert len(ranges) > 2 and {s.input_type for s in ranges} == {InputType("text", kind="html", syntax="")}
    # a compressed text is one shard, its kind and syntax told by the shard that reads its text
    assert [s.input_type for s in specs if s.path == str(packed)] == [InputType("text", "gzip")]


def test_the_cheap_tests_know_every_name_and_magic_their_modules_tell_by() -> None:
    """formats.ENTRIES names the suffixes and magic bytes of the formats again (a format's module
    is not loaded to ask them): each of its module's passes its cheap test."""
    from extractor.pipeline.formats import archive, csvrecords, jsonl, warc, zip

    for fmt, names in (
        ("archive", archive.TAR_NAMES + zip.ZIP_NAMES),
        ("jsonl", jsonl.NAMES),
        ("csv", csvrecords.NAMES),
    ):
        for suffix in names:
            assert ENTRIES[fmt].may_be(f"a{suffix}", b""), (fmt, suffix)
    for magic in warc.WARC_MAGIC:
        assert ENTRIES["warc"].may_be("a", magic + b"\r\n"), magic
    assert ENTRIES["archive"].may_be("a", _zip()) and ENTRIES["archive"].may_be("a", _tar())
