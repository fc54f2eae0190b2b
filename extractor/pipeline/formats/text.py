"""Text files — plain, HTML or XML, or text extracted from a PDF — in any compression, in UTF-8 or
a declared encoding (UTF-16/32 with a byte order mark, an XML or HTML charset): each file one
document, read in windows by search.py. The format of every file that is no other."""

from __future__ import annotations

from ..errors import BinaryInput
from ..io.decode import HEAD_BYTES, is_binary, text_told
from ..io.read import line_ranges
from .base import Format, PlanInput, Planned


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """Any file: the registry asks it last."""
    return True


def plan(inp: PlanInput) -> Planned:
    """An uncompressed UTF-8 text in byte ranges cut at line ends; its kind, whether it is text
    at all and its source syntax decided once, on its head, as for a file read whole (per range, one HTML-like line
    made a range read as HTML). A compressed stream can only be decompressed from its start, and
    a transcoded text is read whole (a byte range would cut its characters): one shard."""
    if inp.told.compression is not None or inp.told.encoding is not None:
        return Planned()
    inp.f.seek(0)
    first = inp.f.read(HEAD_BYTES)
    why = is_binary(first)
    if why:
        raise BinaryInput(why)
    told = text_told(inp.told, inp.source, first, inp.config.syntax)
    return Planned(line_ranges(inp.f, inp.size, inp.config.shard_size), told=told)


FORMAT = Format("text", tell, plan, None, ranges=True)
