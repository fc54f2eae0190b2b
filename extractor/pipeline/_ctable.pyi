# Types of the pipeline's C part (_ctable.c); pipeline/table.py is its only importer.

from typing import Any

class Mentions:
    def __len__(self) -> int: ...
    def take(
        self, buckets: int = 1, /
    ) -> tuple[list[str], list[int], list[int], list[str], list[int], list[int | None], list[int]]: ...
    def take_columns(self, buckets: int = 1, docs: bool = False, /) -> tuple[Any, ...]: ...
    def set_doc(self, doc: int, /) -> None: ...
    def add(self, doi: str, offset: int, form: int, raw: str, line: int = -1, /) -> None: ...

def bucket_of(doi: str, buckets: int, /) -> int: ...
def buckets_of(offsets: object, data: object, start: int, n: int, buckets: int, /) -> bytes: ...
def group_mentions(
    src: object,
    rec: object,
    doi_offsets: object,
    doi_data: object,
    doi_start: int,
    counts: object,
    places: object,
    forms: object,
    n: int,
    first_offsets: object = ...,
    /,
) -> tuple[bytes, bytes, bytes, bytes, bytes]: ...
def doi_lists(
    docs: object, ats: object, doi_offsets: object, doi_data: object, doi_start: int, rows: int, texts: int, /
) -> tuple[bytes, bytes, bytes]: ...
