"""Archives as corpora are downloaded — tar (plain, gzip, bzip2, xz, zstd) and zip (stored,
deflate, bzip2, lzma; zip64) — read in place: each member a document, nothing extracted to disk.

A member's record is its path in the archive; a member of a nested archive (arXiv's bulk
sources: a tar of per-paper `.gz`, each a gzipped tar or one gzipped `.tex`) is named by the
paths of its containers and its own joined by `!/` (`2401/2401.00001.gz!/main.tex`), each path
with `%` and `!` written `%25` and `%21`, so a record name splits back into paths one way only.
A member's kind and source syntax are told by its own name and content as a file's are (spec
§7: a `.bib` member is BibTeX); a PDF is read through the `pdf` extra; images, binaries and
members nested deeper than MAX_DEPTH are skipped and named.

Memory stays bounded whatever a member's size: a member over ScanConfig.max_record_bytes is
streamed through the windows. A member that inflates past BOMB_RATIO times the archive bytes
it took, once over BOMB_MIN (or past MAX_MEMBER), is a bomb: named and skipped, the rest of the
archive read. A cut or corrupt archive keeps the members before the fault and names the fault
(a zip whose central directory is lost is read by its local headers).

A zip's members are shared among shards by their offsets (its central directory gives them), a
plain tar's likewise by its headers; a compressed tar is one shard, as a `.gz` is.

This module is the format's row (how an archive is told, planned and read); the rest lives apart:
tar.py (the one tar parser, for planning and reading), zip.py (a zip by its local headers),
bomb.py (the guard), members.py (the members read as documents).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..io.compression import decompressed
from ..io.read import open_input
from ..units import Progress, ScanConfig, ShardResult, ShardSpec
from .base import Format, PlanInput, Planned, Record, SkippedRecords
from .bomb import Bomb, Counted
from .tar import ReadError, is_tar, tar_offsets
from .zip import ZIP_NAMES, is_zip

TAR_NAMES = (".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tzst")


def tell(name: str, head: bytes, text_field: str, id_field: str) -> bool:
    """By its first (decompressed) bytes, or by name."""
    return is_tar(head) or is_zip(head) or name.endswith(TAR_NAMES + ZIP_NAMES)


def plan(inp: PlanInput) -> Planned:
    """A zip in parts of about --shard-size bytes of members, cut at local headers (its central
    directory gives their offsets); a plain tar likewise by its headers; a compressed tar is one
    shard (a stream decompresses from its start only)."""
    import zipfile

    if inp.input_type.compression is not None:
        return Planned()
    inp.f.seek(0)
    offsets: list[tuple[int, int]] = []  # (header offset, stored bytes)
    if is_zip(inp.head):
        try:
            with zipfile.ZipFile(inp.f) as zf:
                offsets = sorted((i.header_offset, i.compress_size) for i in zf.infolist())
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            return Planned()  # read by its local headers, in one shard
    else:
        try:
            offsets = tar_offsets(inp.f)
        except (ReadError, OSError, EOFError):
            return Planned()  # a cut tar: one shard names the fault
    return Planned(_parts(offsets, inp.config.shard_size))


def _parts(offsets: list[tuple[int, int]], shard_size: int) -> list[tuple[int, int]]:
    """Byte ranges [a, b) of an archive, cut at member offsets, of about shard_size bytes each."""
    cuts = [0]
    acc = 0
    for off, size in offsets:
        if acc >= shard_size and off > cuts[-1]:
            cuts.append(off)
            acc = 0
        acc += size
    return [(a, b) for a, b in zip(cuts, [*cuts[1:], -1], strict=True)]


def records(
    spec: ShardSpec, config: ScanConfig, result: ShardResult, progress: Progress, skipped: SkippedRecords
) -> Iterator[Record]:
    """The documents of an archive's members (of those in the spec's byte range)."""
    from .members import Reader  # the readers, loaded with the first archive read

    reader = Reader(config, result, progress, skipped)
    with open_input(spec.path) as f:
        raw = reader.raw = Counted(f)
        head = f.read(8)
        f.seek(0)
        try:
            # a zip by its first bytes, or by its name when they are no compressor's (a zip cut
            # or damaged at its start is still read by what headers it has)
            if is_zip(head) or (
                spec.input_type.compression is None and spec.path.lower().endswith(ZIP_NAMES)
            ):
                yield from reader.zip(raw, "", 0, spec.start, spec.stop)
            else:
                stream: Any = io.BufferedReader(raw, buffer_size=1 << 20)
                if spec.start:
                    stream.seek(spec.start)
                with decompressed(stream, spec.input_type.compression) as inner:
                    yield from reader.tar(inner, "", 0, spec.stop - spec.start if spec.stop >= 0 else -1)
        except Bomb as exc:
            reader.skip("the archive", str(exc))
        reader.moved()
    if reader.members == 0 and skipped.count:  # nothing of an archive in it
        raise InputError(skipped.first[0]["reason"] if skipped.first else "not a readable archive")


FORMAT = Format("archive", tell, plan, records, ranges=True, suffixes=TAR_NAMES + ZIP_NAMES)
