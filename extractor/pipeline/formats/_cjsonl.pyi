# Types of the JSONL reader's C part (_cjsonl.c); formats/jsonlines.py is its only importer.

def read_lines(
    data: bytes, pos: int, text_key: bytes, id_key: bytes, keys: tuple[bytes, ...] = (), /
) -> tuple[int, int, bytes, bytes, list[str | None], list[int], list[int]]: ...
