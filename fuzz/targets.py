"""Fuzz targets: each takes the fuzzer's bytes and raises AssertionError when an invariant of the
spec or of the readers breaks (any other exception is a crash too).

- `library`: find_dois on any text, in every kind — offsets exact, names well formed, a non-URL
  hit read alone is the same DOI (§1), its URL reads back as itself (§1, §4).
- `cmatcher`: the C matcher on raw bytes agrees with find_spans, the reference (§2–§5), on
  plain and PDF text.
- `streams`: text read in windows (blocks, and a file's windows) agrees with the whole text, long
  tokens and window boundaries included (§4: a candidate too long is dropped with its token).
- `markup`: HTML built from tag pieces — every view maps back into the document, hits'
  offsets are exact, and the C port of the views (native.html_spans) gives what html.py and
  find.py give.
- `syntaxes`: each source syntax read in C (spec §7: wikitext, LaTeX, BibTeX, CSV) gives what
  its Python view and find.py give, offsets into the source included.
- `columns`: canonicalize_array's C reading of an Arrow column is canonicalize, value by value
  (values separated by NUL).
- `archives`: a tar or zip (in each compression, and nested) built of the fuzzer's members,
  then cut and damaged where its first bytes say: intact, each member gives what its text gives
  alone, in C and in Python; damaged, it is read or rejected, never a crash.
- `wikidump`: a MediaWiki dump of the fuzzer's pages is read as ElementTree reads it; the same
  dump cut and damaged is read without a crash.
- `csvrecords`: a CSV export read as records gives each row as Python's csv module parses the
  whole file, and the rows' text as written adds up to the file.
- `batches`: records (JSONL and Parquet) read in batches — the prose in C a run of texts, the rest
  alone, rows handed on as the table fills — give the mention rows that reading each record
  alone gives.
- `jsonl`: JSONL lines made of the fuzzer's bytes (raw, inside a string, or a record around a
  piece) read with the C reader (formats/_cjsonl.c) give what Python's reading alone gives:
  records, ids, line numbers, skipped lines and provenance values.

`streams`, `markup` and `syntaxes` read their input as pieces separated by NUL bytes, the first byte of a
piece saying how many times it repeats: long runs and tokens from a few bytes (see expand()).
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable
from typing import Any

from extractor import canonicalize, find_dois, to_url
from extractor.match import FORMS, Form, find_spans, native
from extractor.match.html import html_views
from extractor.match.syntaxes import SYNTAX_TABLE
from extractor.pipeline.errors import InputError
from extractor.pipeline.grep import FindOptions, hits_in_records, stream_hits, type_of_input
from extractor.pipeline.io.decode import byte_offsets, clean
from extractor.pipeline.out.parts import shard_paths
from extractor.pipeline.scan.documents import input_docs
from extractor.pipeline.scan.sinks import OccurrenceSink
from extractor.pipeline.units import InputType, ScanConfig, ShardResult, ShardSpec, no_progress

KINDS = ("plain", "html", "pdf")
MAX_EXPANDED = 1 << 18


def expand(data: bytes, limit: int = MAX_EXPANDED) -> bytes:
    """Pieces separated by NUL, each repeated 1 + 40 × (its first byte mod 64) times."""
    out = bytearray()
    for piece in data.split(b"\x00"):
        if piece:
            out += piece[1:] * (1 + 40 * (piece[0] % 64))
            if len(out) > limit:
                break
    return bytes(out[:limit])


def _text(data: bytes) -> str:
    return clean(data.decode("utf-8", "surrogateescape"))[0]


def library(data: bytes) -> None:
    text = _text(data)
    for kind in KINDS:
        for h in find_dois(text, kind):
            assert text[h.start : h.end] == h.raw, (kind, h)
            if h.form is Form.SHORT_DOI:  # spec §1: 10/ and ASCII letters and digits
                assert h.doi.startswith("10/") and h.doi[3:].isalnum() and h.doi.isascii(), (kind, h)
                continue
            assert h.doi.startswith("10.") and "/" in h.doi, (kind, h)
            if kind != "plain":
                continue
            if not h.form.is_url and h.form is not Form.PERCENT:
                assert canonicalize(h.raw) == h.doi, h
            if "%" not in h.doi:  # spec §1: a literal %XX decodes again; nothing decodes twice
                assert canonicalize(to_url(h.doi)) == h.doi, h


def cmatcher(data: bytes) -> None:
    text = data.decode("utf-8", "surrogateescape")
    for kind in ("plain", "pdf"):
        spans = find_spans(clean(text)[0], kind)
        chars = sorted({s.start for s in spans} | {s.end for s in spans})
        at = dict(zip(chars, byte_offsets(text, chars), strict=True))  # byte_offsets wants them sorted
        want = [(at[s.start], at[s.end], s.form, s.doi) for s in spans]
        got = [(s.start, s.end, s.form, s.doi) for s in native.find_spans_utf8(data, kind)]
        assert got == want, (kind, got, want)


def streams(data: bytes) -> None:
    data = expand(data)
    for kind in ("plain", "pdf"):
        want = [s.doi for s in find_spans(_text(data), kind)]
        try:
            opts = FindOptions(kind=kind, block_size=4096)
            got = [h.doi for h in stream_hits(io.BytesIO(data), "x.txt", opts).hits]
        except InputError:
            return  # binary data: refused whole, as by the scan
        assert got == want, (kind, len(data))
    # in the order of their starts, as the occurrences are read back: a URL hit that holds the
    # hit before it starts before it (fuzz/corpus/streams/found-url-holding-the-hit-before-it)
    _mapped(data, [d for _start, d in sorted((s.start, s.doi) for s in find_spans(_text(data)))])


def _mapped(data: bytes, want: list[str]) -> None:
    """A file read in windows (FileSource), as small as it allows, on the same bytes: its
    occurrences, in the order of their offsets (and DOIs), are `want`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.txt")
        with open(path, "wb") as f:
            f.write(data)
        config = ScanConfig(out=tmp, occurrences=True, map_min=0, map_window=32 << 10, kind="plain")
        spec = ShardSpec(0, "x.txt", path, InputType("text", kind="plain"))
        occ = OccurrenceSink(shard_paths(tmp, spec), 1 << 30)
        try:
            list(input_docs(spec, config, no_progress, ShardResult(0), occ))
        except InputError:
            return
        got = [d for _o, d in sorted(zip(occ.cols["offset"], occ.cols["doi"], strict=True))]
        assert got == want, len(data)


def markup(data: bytes) -> None:
    whole = expand(data)
    doc = _text(whole)
    for view in html_views(doc):
        for i, start in enumerate(view.vpos):
            end = view.vpos[i + 1] if i + 1 < len(view.vpos) else len(view.text)
            # A piece copied verbatim from the document (raw length 0), other than the line
            # break closing each attribute value and JSON block, which stands for nothing.
            if not view.rlen[i] and view.text[start:end] != "\n":
                raw = view.rpos[i]
                assert view.text[start:end] == doc[raw : raw + end - start], (i, start)
    for h in find_dois(doc, "html"):
        assert doc[h.start : h.end] == h.raw, h
    if native.HAVE_C:  # the C port of the views and their search agrees with html.py + find.py
        spans = find_spans(doc, "html")
        text = whole.decode("utf-8", "surrogateescape")
        chars = sorted({s.start for s in spans} | {s.end for s in spans})
        at = dict(zip(chars, byte_offsets(text, chars), strict=True))
        want = [(at[s.start], at[s.end], s.form, s.doi) for s in spans]
        got = [(a, e, FORMS[f], d) for a, e, f, d in native.html_spans(whole)[0]]
        assert got == want, (got, want)


def syntaxes(data: bytes) -> None:
    whole = expand(data, 1 << 11)  # the Python views, four of them, are the reference: kept small
    text = _text(whole)
    for syntax in (s.name for s in SYNTAX_TABLE.values() if s.c_entry is not None):
        spans = find_spans(text, syntax=syntax)
        if native.HAVE_C:
            # the C reader reads the bytes as the pipeline cleans them into text
            chars = sorted({s.start for s in spans} | {s.end for s in spans})
            at = dict(zip(chars, byte_offsets(whole.decode("utf-8", "surrogateescape"), chars), strict=True))
            want = [(at[s.start], at[s.end], s.form, s.doi) for s in spans]
            got = [(a, e, FORMS[f], d) for a, e, f, d in native.syntax_spans(whole, syntax)[0]]
            assert got == want, (syntax, got, want)


def columns(data: bytes) -> None:
    import pyarrow as pa

    from extractor.arrow import canonicalize_array

    values = [None if v == b"\xff" else v.decode("utf-8", "replace") for v in data.split(b"\x00")]
    want = [canonicalize(v) for v in values]
    for typ in (pa.string(), pa.large_string()):
        array = pa.array(values, typ)
        assert canonicalize_array(array).to_pylist() == want
        if len(values) > 1:
            assert canonicalize_array(array.slice(1)).to_pylist() == want[1:]


_SUFFIXES = (".txt", ".bib", ".tex", ".html", ".csv", ".wiki", ".json", ".gz", ".png", "")
_CONTAINERS = ("tar", "tar.gz", "tar.bz2", "tar.xz", "zip", "stored.zip", "nested.tar")


def _members(pieces: list[bytes]) -> list[tuple[str, bytes]]:
    """Members named and filled by the fuzzer's pieces: a name (its suffix picked by its length)
    up to the first line break, then the contents."""
    out = []
    for i, p in enumerate(pieces[:12]):
        name, _, body = p.partition(b"\n")
        stem = name.decode("utf-8", "replace").replace("\x00", "")[:40]
        out.append((f"{i}/{stem}{_SUFFIXES[len(name) % len(_SUFFIXES)]}", body))
    return out


def _archive(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    import gzip
    import tarfile
    import zipfile

    stored = [(n, gzip.compress(b) if n.endswith(".gz") else b) for n, b in members]
    buf = io.BytesIO()
    if kind.endswith("zip"):
        method = zipfile.ZIP_STORED if kind.startswith("stored") else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(buf, "w", method) as z:
            for n, b in stored:
                z.writestr(n, b)
        return buf.getvalue()
    mode = "w" if kind in ("tar", "nested.tar") else "w:" + kind.split(".")[1]
    with tarfile.open(fileobj=buf, mode=mode) as t:  # type: ignore[call-overload]
        for n, b in stored:
            ti = tarfile.TarInfo(n)
            ti.size = len(b)
            t.addfile(ti, io.BytesIO(b))
    if kind != "nested.tar":
        return buf.getvalue()
    inner = gzip.compress(buf.getvalue())
    outer = io.BytesIO()
    with tarfile.open(fileobj=outer, mode="w") as t:
        ti = tarfile.TarInfo("paper.gz")
        ti.size = len(inner)
        t.addfile(ti, io.BytesIO(inner))
    return outer.getvalue()


def _alone(name: str, body: bytes) -> list[str] | None:
    """What a member's text gives read alone (None: a member read otherwise — a container, a
    PDF, binary data or a declared encoding — which this target does not predict)."""
    from extractor.match.syntaxes import detect_syntax
    from extractor.pipeline.formats.members import NOT_TEXT_NAMES
    from extractor.pipeline.formats.tar import is_tar
    from extractor.pipeline.formats.zip import is_zip
    from extractor.pipeline.io.compression import detect_compression
    from extractor.pipeline.io.decode import declared_encoding, detect_kind, is_binary

    if name.endswith(".gz"):
        name = name[:-3]
    if name.lower().endswith(NOT_TEXT_NAMES):
        return []
    if detect_compression(body[:8]) or is_tar(body) or is_zip(body) or body.startswith(b"%PDF-"):
        return None
    if is_binary(body) or declared_encoding(body):
        return None
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    text = _text(body)
    kind = detect_kind(name, body)
    return [h.doi for h in find_dois(text, kind, syntax=detect_syntax(name, text))]


def archives(data: bytes) -> None:
    if len(data) < 4:
        return
    kind = _CONTAINERS[data[0] % len(_CONTAINERS)]
    members = _members(data[4:].split(b"\x00"))
    blob = _archive(kind, members)
    prefix = "paper.gz!/" if kind == "nested.tar" else ""
    want: list[tuple[str, str]] = []
    for name, body in members:
        got = _alone(name, body)
        if got is None:
            return  # a member this target does not predict: the damaged case below covers it
        want += [(prefix + name.replace("%", "%25").replace("!", "%21"), d) for d in got]
    with tempfile.TemporaryDirectory() as tmp:
        ext = "zip" if kind.endswith("zip") else kind.split(".", 1)[-1] if kind != "nested.tar" else "tar"
        path = os.path.join(tmp, "a." + ext)
        with open(path, "wb") as f:
            f.write(blob)
        got_py = sorted((r.record or "", r.hit.doi) for r in hits_in_records(path, type_of_input(path)))
        assert got_py == sorted(want), (got_py, want)
        assert sorted(_occurrences(tmp, path, "archive")) == sorted(want)
        cut = int.from_bytes(data[1:3], "little") % (len(blob) + 1)
        damaged = bytearray(blob[:cut])
        if damaged:
            damaged[data[3] % len(damaged)] ^= 0x55
        with open(path, "wb") as f:
            f.write(damaged)
        with contextlib.suppress(InputError):  # rejected whole: a reason, not a crash
            _occurrences(tmp, path, "archive")


def _occurrences(tmp: str, path: str, fmt: str) -> list[tuple[str, str]]:
    """(record, DOI) of every hit of a record file read as a scan's shard reads it (C)."""
    config = ScanConfig(out=tmp, occurrences=True, max_record_bytes=1 << 12)
    spec = ShardSpec(0, "a", path, type_of_input(path))
    occ = OccurrenceSink(shard_paths(tmp, spec), 1 << 30)
    list(input_docs(spec, config, no_progress, ShardResult(0), occ))
    return list(zip([r or "" for r in occ.cols["record"]], occ.cols["doi"], strict=True))


_WIKI_PIECES = (
    "{{cite journal |doi=10.1000/a<b>c |title=x}}",
    '<ref name="r">doi:10.1038/nphys1170</ref>',
    "&amp;lt;",
    "&",
    "'q' \"d\"",
    "]]>",
    "</text>",
    "<page>",
)


def wikidump(data: bytes) -> None:
    from extractor.pipeline.formats.mediawiki import iter_pages
    from fuzz.wikidump import WikiPage, dump_text, elementtree_pages

    pages = []
    for i, p in enumerate(data.split(b"\x00")[:10]):
        text = _text(p).replace("\r", "")  # XML reads a carriage return as a line feed
        text = "".join(
            c
            for c in text
            if c in "\t\n" or (c >= " " and c not in "\ufffe\uffff" and not "\ud800" <= c <= "\udfff")
        )
        extra = _WIKI_PIECES[len(p) % len(_WIKI_PIECES)]
        pages.append(
            WikiPage(
                f"T{i} {text[:8]}",
                None if len(p) == 1 else text + extra,
                i + 1,
                ns=len(p) % 3,
                redirect="X" if len(p) % 7 == 3 else None,
            )
        )
    xml = dump_text(pages).encode("utf-8")
    want = elementtree_pages(xml.decode("utf-8"))
    assert list(iter_pages(io.BytesIO(xml), 1 << 20)) == want
    for cut in (len(xml) // 3, len(xml) * 2 // 3):
        damaged = bytearray(xml[:cut])
        if damaged:
            damaged[len(data) % len(damaged)] ^= 0x20
        list(iter_pages(io.BytesIO(bytes(damaged)), 64))


def csvrecords(data: bytes) -> None:
    import csv

    from extractor.pipeline.formats.csvrecords import _rows

    text = "id,text\n" + _text(expand(data, 1 << 12)).replace("\x00", "")
    lines = iter(io.StringIO(text, newline=""))
    got = list(_rows(lines, ",", 1 << 20))
    assert "".join(raw for _n, _c, raw in got) == text
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 20))
    want = list(csv.reader(io.StringIO(text, newline=""), strict=False))
    parsed = [c for _n, c, _r in got]
    if not any(isinstance(c, str) for c in parsed):  # no row named as broken: the same rows
        assert parsed == want
    for _n, cells, raw in got:
        if not isinstance(cells, str):
            assert next(csv.reader(iter([raw]), strict=False), []) == cells
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.csv")
        with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
        _occurrences(tmp, path, "csv")


def batches(data: bytes) -> None:
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    # records cut at \x01 from the expanded pieces (tags, form feeds, braces, e-mails among them)
    texts = [_text(p) for p in expand(data, 1 << 14).split(b"\x01")[:64]]
    limit = 1 + (data[0] % 5 if data else 0)  # max_mentions: rows handed on after most records
    with tempfile.TemporaryDirectory() as tmp:
        jl = os.path.join(tmp, "r.jsonl")
        with open(jl, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({"id": f"r{i % 7}", "text": t}) + "\n" for i, t in enumerate(texts))
        pqf = os.path.join(tmp, "r.parquet")
        pq.write_table(pa.table({"id": [f"r{i % 7}" for i in range(len(texts))], "text": texts}), pqf)
        for path, fmt in ((jl, "jsonl"), (pqf, "parquet")):
            got = [_mention_rows(tmp, path, fmt, alone, limit) for alone in (False, True)]
            assert got[0] == got[1], fmt


def jsonl(data: bytes) -> None:
    import json

    from extractor.pipeline.formats import jsonlines as reader

    made = []
    for i, piece in enumerate(expand(data, 1 << 14).split(b"\x01")[:64]):
        how, body = piece[:1], piece[1:]
        if how == b"r":  # the bytes as a line
            made.append(body.replace(b"\n", b" "))
        elif how == b"s":  # the bytes inside the text string, escapes and all
            made.append(
                b'{"id": "r%d", "text": "' % (i % 5) + body.replace(b"\n", b" ") + b'", "meta": {"doi": 1}}'
            )
        else:
            text = _text(body)
            rec = (
                {"text": text, "meta": {"doi": text[:24]}, "meta.doi": i}
                if i % 3
                else {"text": text, "id": i}
            )
            made.append(json.dumps(rec, ensure_ascii=i % 2 == 0).encode())
    stream = b"\n".join(made) + b"\n"
    saved = reader._cjsonl
    for fields in ((), (("m", "meta"), ("d", "meta.doi"))):
        with_c = list(reader.iter_jsonl_records(io.BytesIO(stream), "text", "id", fields=fields))
        reader._cjsonl = None  # type: ignore[assignment]
        try:
            alone = list(reader.iter_jsonl_records(io.BytesIO(stream), "text", "id", fields=fields))
        finally:
            reader._cjsonl = saved
        assert with_c == alone, fields


def _mention_rows(tmp: str, path: str, fmt: str, alone: bool, limit: int) -> list[tuple[Any, ...]]:
    """(record, DOI, count, first offset, first raw, forms) of each mention row of a record file as
    a shard reads it: in batches, or each record alone (as with occurrences)."""
    from extractor.pipeline.scan.sinks import columns_arrays
    from extractor.pipeline.table import Columns
    from extractor.pipeline.units import DocBatch

    config = ScanConfig(out=tmp, occurrences=alone, max_mentions=limit)
    spec = ShardSpec(0, "a", path, type_of_input(path))
    occ = OccurrenceSink(shard_paths(tmp, spec), 1 << 30)
    rows: list[tuple[Any, ...]] = []
    for d in input_docs(spec, config, no_progress, ShardResult(0), occ):
        if isinstance(d.chunk, Columns):
            doi, count, offset, _line, raw, forms = (a.to_pylist() for a in columns_arrays(d.chunk))
        else:
            doi, count, offset, raw, forms, _lines, _bounds = d.chunk
        if isinstance(d, DocBatch):
            recs = [d.records[k] for k in memoryview(d.docs).cast("q")]
        else:
            recs = [d.record] * len(doi)
        rows += zip(recs, doi, count, offset, raw, forms, strict=True)
    return sorted(rows)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "library": library,
    "cmatcher": cmatcher,
    "streams": streams,
    "markup": markup,
    "syntaxes": syntaxes,
    "columns": columns,
    "archives": archives,
    "wikidump": wikidump,
    "csvrecords": csvrecords,
    "batches": batches,
    "jsonl": jsonl,
}
