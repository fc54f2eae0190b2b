"""Text files — plain, HTML or XML, or text extracted from a PDF — in any compression, in UTF-8 or
a declared encoding (UTF-16/32 with a byte order mark, an XML or HTML charset): each file one
document, read in windows by search.py. The format of every file that is no other."""

from __future__ import annotations

from ..io.cuts import GzipPlan
from ..io.decode import HEAD_BYTES, binary_input, input_head, is_binary, text_input_type
from ..io.read import line_ranges
from .base import Format, PlanInput, Planned, split_gzip


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """Any file: the registry asks it last."""
    return True


def plan(inp: PlanInput) -> Planned:
    """An uncompressed UTF-8 text in byte ranges cut at line ends; its kind, whether it is text
    at all and its source syntax decided once, on its head, as for a file read whole (per range, one HTML-like line
    made a range read as HTML). A compressed stream can only be decompressed from its start, and
    a transcoded text is read whole (a byte range would cut its characters): one shard."""
    if inp.input_type.encoding is not None:
        return Planned()
    if inp.input_type.compression is not None:
        return _gzip_ranges(inp)
    inp.f.seek(0)
    first = inp.f.read(HEAD_BYTES)
    why = is_binary(first)
    if why:
        raise binary_input(why)
    told = text_input_type(inp.input_type, inp.source, first, inp.config.syntax)
    return Planned(line_ranges(inp.f, inp.size, inp.config.shard_size), input_type=told)


def _gzip_ranges(inp: PlanInput) -> Planned:
    """A large gzip text in ranges of its decompressed bytes (split_gzip), its kind and syntax
    told on its text's head as a shard that reads it whole would tell them; else one shard."""
    told, source, syntax = inp.input_type, inp.source, inp.config.syntax

    def finish(split: GzipPlan) -> Planned:
        first, _start = input_head(split.head, 0)
        text = text_input_type(told, source, first[:HEAD_BYTES], syntax)
        return Planned(split.parts, input_type=text, seeks=split.seeks, text_size=split.size)

    return split_gzip(inp, finish)


FORMAT = Format("text", tell, plan, None, ranges=True)
