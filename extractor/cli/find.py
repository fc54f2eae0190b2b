"""`doi-extract find`: grep-like, the DOIs of each input printed as they are found."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from ..pipeline.errors import InputError
from ..pipeline.read import open_stream
from ..pipeline.search import hits_in_stream


def cmd_find(args: argparse.Namespace, out: TextIO) -> int:
    """Print the DOIs of each input: exit 0 when any was found, 1 when none, 2 on error.

    Inputs are read in bounded blocks, so a file or pipe of any size streams through.
    """
    found = False
    error = False
    for path in args.files or ["-"]:
        source = path
        try:
            stream, _comp = open_stream(sys.stdin.buffer if path == "-" else path)
            with stream:
                seen: set[str] = set()
                name = None if path == "-" else path
                for hit in hits_in_stream(stream, name or "", args.kind, args.other_prefixes):
                    doi, offset, raw = hit.doi, hit.start, hit.raw
                    if args.unique:
                        if doi in seen:
                            continue
                        seen.add(doi)
                    found = True
                    if args.format == "tsv":
                        out.write(f"{_tsv(source)}\t{offset}\t{_tsv(doi)}\t{hit.form}\t{_tsv(raw)}\n")
                    elif args.format == "jsonl":
                        rec = {
                            "source": source,
                            "offset": offset,
                            "end": hit.end,
                            "doi": doi,
                            "form": str(hit.form),
                            "raw": raw,
                        }
                        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    else:
                        out.write(doi + "\n")
        except BrokenPipeError:
            raise  # our reader has gone: not an error of this input (cli.main ends quietly)
        except OSError as exc:
            print(f"doi-extract: {path}: {exc.strerror or exc}", file=sys.stderr)
            error = True
        except (InputError, EOFError, ValueError) as exc:
            print(f"doi-extract: {path}: {exc}", file=sys.stderr)
            error = True
    if error:
        return 2
    return 0 if found else 1


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv(field: str) -> str:
    """A TSV field with backslash, tab and line breaks escaped (a file name may hold any of them,
    issue 15), as the linear TSV convention writes them."""
    return field.translate(_TSV_ESCAPES)
