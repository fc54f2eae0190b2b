"""MediaWiki XML dumps (the export schema MediaWiki writes: Wikipedia's `pages-articles`, any
wiki's `Special:Export`; `.xml`, `.xml.bz2`, `.xml.gz`, …): each page a record named by its
title, the text of its last revision read as wikitext (spec §7) once its XML escapes are undone.

As users of these dumps expect, only articles are read: pages of namespace 0 that are not
redirects (a redirect's text is a link to another page). Other namespaces are read when
--wiki-namespaces names them ("all": every one); pages passed over are counted in _run.json.
Provenance fields: `page_id`, `ns`, `revision_id`, `timestamp`, `title` (numbers as numbers).

A **multistream** dump (`…-multistream.xml.bz2`: bz2 streams of 100 pages each) with its index
beside it (`…-multistream-index.txt.bz2`: `offset:page id:title` a line) is cut into shards at
stream offsets, so the workers share one file.

The dump is read as bytes by its elements' tags, not by an XML parser: MediaWiki writes the
schema one way (page text escaped, never in CDATA), a shard starts at a stream inside the
root element, and the tags are found at memchr's speed. tests/test_mediawiki.py holds this to
ElementTree's reading of the same dumps.
"""

import io
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..cpus import cpu_budget
from ..errors import InputError
from ..io.compression import bzip2_reader, decompressed
from ..io.read import display_name, open_input
from ..io.streams import Chunks, Limited, ReadAhead
from ..provenance import from_record
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, PlanInput, Planned, Record, SkippedRecords

_ROOT = re.compile(rb"\s*(?:<\?xml[^>]{0,300}\?>\s*)?(?:<!--.{0,2000}?-->\s*)*<mediawiki[\s>]", re.S)
# The tags that matter, with their attributes; page text holds no raw `<` (it is escaped).
_TAG = re.compile(
    rb"<(page|/page|title|ns|id|redirect|revision|/revision|contributor|/contributor|timestamp|text)\b([^>]*)>"
)
BLOCK = 1 << 22


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its root element, `<mediawiki`, after an XML declaration."""
    return _ROOT.match(head) is not None


class Page(NamedTuple):
    """A page of a dump, with its last revision's text (None: none, or too long to hold)."""

    title: str
    ns: int | None
    page_id: int | None
    revision_id: int | None
    timestamp: str | None
    redirect: bool
    text: str | None


_XML_ENTITIES = ((b"&lt;", b"<"), (b"&gt;", b">"), (b"&quot;", b'"'), (b"&#039;", b"'"), (b"&apos;", b"'"))
_CHAR_REF = re.compile(rb"&#(x[0-9A-Fa-f]{1,6}|[0-9]{1,7});")


def unescape(data: bytes) -> str:
    """An element's text with its XML escapes undone (the five entities and character
    references; `&amp;` last, so nothing is undone twice), as UTF-8 text (invalid bytes kept as
    lone surrogates, made U+FFFD where the text is searched)."""
    if b"&" in data:
        for ent, ch in _XML_ENTITIES:
            data = data.replace(ent, ch)
        if b"&#" in data:
            data = _CHAR_REF.sub(_char, data)
        data = data.replace(b"&amp;", b"&")
    return data.decode("utf-8", "surrogateescape")


def _char(m: re.Match[bytes]) -> bytes:
    ref = m.group(1)
    try:
        return chr(int(ref[1:], 16) if ref[:1] == b"x" else int(ref)).encode("utf-8", "surrogatepass")
    except (ValueError, OverflowError):
        return m.group(0)


def _int(data: bytes) -> int | None:
    try:
        return int(data)
    except ValueError:
        return None


class _Blocks:
    """A stream's bytes from a position on, read a block at a time."""

    def __init__(self, stream: Any) -> None:
        # read1: what one step of a decompressor gives, so the bytes before a cut are had
        self.read = getattr(stream, "read1", stream.read)
        self.buf = b""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        """Read another block, keeping the bytes from `pos` on (pos becomes 0)."""
        if self.eof:
            return False
        data = self.read(BLOCK)
        if not data:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + data
        self.pos = 0
        return True

    def content(self, start: int, close: bytes, limit: int) -> bytes | bool | None:
        """An element's content from buf[start:] (its tag at `pos`) to `close`, leaving `pos`
        past that; False when it is over `limit` bytes (read past), None when the stream ends
        first."""
        while True:
            end = self.buf.find(close, start)
            if end >= 0:
                self.pos = end + len(close)
                return self.buf[start:end] if end - start <= limit else False
            if len(self.buf) - start > limit:
                keep = len(close) - 1  # the close tag may straddle two blocks
                while True:
                    self.buf, self.pos = self.buf[-keep:], 0
                    if not self.more():
                        return None
                    end = self.buf.find(close)
                    if end >= 0:
                        self.pos = end + len(close)
                        return False
            shift = self.pos
            if not self.more():
                return None
            start -= shift


class Skip(NamedTuple):
    """A page not read, and why (its text over the limit, or the dump cut inside it: `cut`)."""

    page_id: int | None
    reason: str
    cut: bool = False


def _skip(page: dict[str, Any], why: str, cut: bool = False) -> Skip:
    return Skip(page.get("page_id"), f"{display_name(page.get('title', '?'))}: {why}", cut)


def iter_pages(stream: Any, max_text: int) -> Iterator[Page | Skip]:
    """Each page of a dump stream (or of a shard of one: its streams of pages), or a Skip
    saying why one was not read (its text over `max_text` bytes, or the dump cut inside it)."""
    r = _Blocks(stream)
    page: dict[str, Any] | None = None
    where = "page"  # page, revision or contributor: whose <id> an <id> is
    while True:
        m = _TAG.search(r.buf, r.pos)
        if m is None:
            keep = r.buf.rfind(b"<", r.pos)  # a tag may be cut at the block's end
            r.pos = keep if keep >= 0 else len(r.buf)
            if not r.more():
                if page is not None:
                    yield _skip(page, "the dump ends inside this page (a truncated file)", cut=True)
                return
            continue
        tag, attrs = m.group(1), m.group(2)
        r.pos = m.start()
        if tag in (b"title", b"ns", b"id", b"timestamp") or (tag == b"text" and not attrs.endswith(b"/")):
            value = r.content(m.end(), b"</" + tag + b">", max_text)
            if value is None:
                if page is not None:
                    yield _skip(page, "the dump ends inside this page (a truncated file)", cut=True)
                return
            if page is None or isinstance(value, bool):
                if page is not None and tag == b"text" and where == "revision":
                    page["text"] = None
                    page["too_long"] = True
                continue  # the site's header, outside any page
            if tag == b"title":
                page["title"] = unescape(value)
            elif tag == b"ns":
                page["ns"] = _int(value)
            elif tag == b"id":
                if where == "page" and "page_id" not in page:
                    page["page_id"] = _int(value)
                elif where == "revision":
                    page["revision_id"] = _int(value)
            elif tag == b"timestamp" and where == "revision":
                page["timestamp"] = value.decode("ascii", "replace")
            elif tag == b"text" and where == "revision":
                page["text"] = value
            continue
        r.pos = m.end()
        if tag == b"page":
            page, where = {}, "page"
        elif tag == b"/page":
            if page is not None and page.get("too_long"):
                yield _skip(page, f"its text is over {max_text} bytes")
            elif page is not None:
                yield Page(
                    display_name(page.get("title", "")),
                    page.get("ns"),
                    page.get("page_id"),
                    page.get("revision_id"),
                    page.get("timestamp"),
                    page.get("redirect", False),
                    None if page.get("text") is None else unescape(page["text"]),
                )
            page = None
        elif page is None:
            continue
        elif tag == b"redirect":
            page["redirect"] = True
        elif tag == b"revision":
            where = "revision"
            page.pop("text", None)  # a history dump: the last revision is the page's text
            page.pop("too_long", None)
        elif tag == b"/revision":
            where = "page"
        elif tag == b"contributor":
            where = "contributor"
        elif tag == b"/contributor":
            where = "revision"
        elif tag == b"text":  # <text … /> : no text (deleted, or empty)
            page["text"] = None


def bz2_chunks(raw: Any, block: int = 1 << 20, most: int = 8 << 20) -> Iterator[bytes]:
    """The decompressed bytes of a stream of concatenated bz2 streams (a multistream dump, or a
    shard of one), at most `most` bytes a step: large steps, so that a thread doing this takes
    the GIL back rarely (BZ2File's steps of 8 KiB, each waiting for the GIL the parsing thread
    holds, ran at half bzip2's speed). EOFError when it ends inside a stream."""
    import bz2

    d = bz2.BZ2Decompressor()
    fed = False  # the current decompressor has had input: the stream ending now is cut
    streams = 0
    data = b""
    while True:
        if d.needs_input and not data:
            data = raw.read(block)
            if not data:
                if fed:
                    raise EOFError("the dump ends inside a bz2 stream (a truncated file)")
                return
        try:
            out = d.decompress(data, most)
        except OSError:
            if streams and not fed:
                return  # bytes after the last stream that start none: ignored, as bzip2 does
            raise
        fed, data = True, b""
        if out:
            yield out
        if d.eof:
            data = d.unused_data
            d, fed = bz2.BZ2Decompressor(), False
            streams += 1


def index_path(path: str) -> str | None:
    """The index of a multistream dump beside it (`…-multistream.xml.bz2` →
    `…-multistream-index.txt.bz2`), or None for another name."""
    low = path.lower()
    if low.endswith("multistream.xml.bz2"):
        return path[: -len(".xml.bz2")] + "-index.txt.bz2"
    return None


def stream_offsets(index: Any) -> list[int]:
    """The distinct stream offsets of a multistream index (`offset:page id:title` lines)."""
    out: list[int] = []
    import bz2

    with bz2.open(index, "rb") as f:
        for line in f:
            head, _, _rest = line.partition(b":")
            off = _int(head)
            if off is not None and (not out or off != out[-1]):
                out.append(off)
    return sorted(set(out))


def plan(inp: PlanInput) -> Planned:
    """A multistream dump with its index beside it: shards of about --shard-size bytes as
    stored, cut at stream offsets (the first holds the site's header); else one shard."""
    idx = index_path(inp.path) if inp.input_type.compression == "bzip2" else None
    if idx is None:
        return Planned()
    try:
        with open_input(idx) as f:
            offsets = stream_offsets(f)
    except (OSError, EOFError, ValueError):
        return Planned()  # no index (or a broken one): the file read in one shard
    cuts = [0]
    for off in offsets:
        if off - cuts[-1] >= inp.config.shard_size and off < inp.size:
            cuts.append(off)
    return Planned([(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)])


FIELDS = ("page_id", "ns", "revision_id", "timestamp", "title")


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """The pages of a dump (or of a shard of a multistream one) as records named by title;
    pages passed over (redirects, other namespaces) counted in result.tallies."""
    namespaces = config.wiki_namespaces
    with open_input(spec.path) as raw:
        raw.seek(spec.start)  # a shard of a multistream dump: its streams [start, stop)
        stored: Any = raw if spec.stop < 0 else io.BufferedReader(Limited(raw, spec.stop - spec.start))
        reading: Any
        if spec.input_type.compression != "bzip2":
            reading = decompressed(stored, spec.input_type.compression)
        elif cpu_budget() >= 2:  # every Wikipedia dump
            # bz2, the slowest step, beside the parsing: in a bzip2 process, else in a thread
            reading = bzip2_reader(stored) or ReadAhead(bz2_chunks(stored))
        else:  # workers as many as the CPUs: one each
            reading = Chunks(bz2_chunks(stored))
        shown = 0
        try:
            for page in iter_pages(reading, config.max_record_bytes):
                pos = raw.tell() - spec.start
                if pos > shown:
                    progress(pos - shown, 0)
                    shown = pos
                # pages are named by id: a shard of a multistream dump knows no page numbers
                if isinstance(page, Skip) and page.cut:
                    result.cut_short(spec.source, f"page id {page.page_id or 0}", page.reason)
                    continue
                if isinstance(page, Skip):
                    skipped.add("page id", page.page_id or 0, page.reason)
                    continue
                if page.redirect:
                    result.tally("wiki redirects passed over")
                    continue
                if namespaces is not None and page.ns not in namespaces:
                    result.tally("wiki pages of other namespaces passed over")
                    continue
                if page.text is None:
                    skipped.add("page id", page.page_id or 0, f"{page.title}: no text")
                    continue
                result.bytes_read += len(page.text)
                meta = from_record(page._asdict(), config.record_fields) if config.record_fields else ()
                yield Record(page.title, page.text, None, meta, "page.wikitext")
        except EOFError as exc:  # a compressed stream cut short: the pages before it are kept
            result.cut_short(
                spec.source, "its last page read", f"cut short ({exc}): the pages after it were not read"
            )
        except OSError as exc:  # a corrupt one: rejected whole
            raise InputError(f"the dump is corrupt ({exc})") from exc
        finally:
            reading.close()


FORMAT = Format("mediawiki", tell, plan, records, ranges=True, suffixes=())
