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

`streams`, `markup` and `syntaxes` read their input as pieces separated by NUL bytes, the first byte of a
piece saying how many times it repeats: long runs and tokens from a few bytes (see expand()).
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable

from extractor import canonicalize, find_dois, to_url
from extractor.match import FORMS, Form, find_spans, native
from extractor.match.html import html_views
from extractor.match.syntaxes import SYNTAX_TABLE
from extractor.pipeline.decode import byte_offsets, clean
from extractor.pipeline.errors import InputError
from extractor.pipeline.parts import shard_paths
from extractor.pipeline.search import hits_in_stream, unit_docs
from extractor.pipeline.sinks import OccurrenceSink
from extractor.pipeline.units import ScanConfig, ShardResult, ShardSpec, no_progress

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
            got = [h.doi for h in hits_in_stream(io.BytesIO(data), "x.txt", kind, block_size=4096)]
        except InputError:
            return  # binary data: refused whole, as by the scan
        assert got == want, (kind, len(data))
    _mapped(data, [s.doi for s in find_spans(_text(data))])


def _mapped(data: bytes, want: list[str]) -> None:
    """A file read in windows (FileSource), as small as it allows, on the same bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.txt")
        with open(path, "wb") as f:
            f.write(data)
        config = ScanConfig(out=tmp, occurrences=True, map_min=0, map_window=32 << 10, kind="plain")
        spec = ShardSpec(0, "x.txt", path, "text", "plain")
        occ = OccurrenceSink(shard_paths(tmp, spec), 1 << 30)
        try:
            list(unit_docs(spec, config, no_progress, ShardResult(0), occ))
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


TARGETS: dict[str, Callable[[bytes], None]] = {
    "library": library,
    "cmatcher": cmatcher,
    "streams": streams,
    "markup": markup,
    "syntaxes": syntaxes,
    "columns": columns,
}
