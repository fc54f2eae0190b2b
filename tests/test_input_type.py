"""What an input is, told once (units.InputType): formats.tell_input from a file's first bytes as
stored, decode.text_input_type from its text's head, and the planner's InputType carried by its shards."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import tarfile
from pathlib import Path

import pytest
import zstandard

from extractor.pipeline import InputType, ScanConfig
from extractor.pipeline.formats import FORMAT_HEAD, tell_input
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
]


@pytest.mark.parametrize(("name", "data", "want"), PAIRS, ids=[p[0] for p in PAIRS])
def test_an_input_is_told_by_its_first_bytes_as_stored(
    tmp_path: Path, name: str, data: bytes, want: InputType
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    config = ScanConfig(out="", id_field="DOI" if name.endswith(".csv") else "id")
    assert tell_input(str(path), data[:FORMAT_HEAD], config) == want


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
