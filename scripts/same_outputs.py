"""Check that a change leaves every output byte-identical: a mixed tree of inputs, the scans and
`find`s of it, and a comparison of two trees of results, file by file.

    python scripts/same_outputs.py tree /tmp/mix            # the inputs (from ../shared and corpora/)
    python scripts/same_outputs.py run /tmp/mix /tmp/before  # with the tree checked out before
    python scripts/same_outputs.py run /tmp/mix /tmp/after   # ... and after the change
    python scripts/same_outputs.py compare /tmp/before /tmp/after

Parquet files and part files are compared byte for byte; `_run.json` and the shards' markers
without their timings. Two runs of one tree are identical, so a difference is the change's.
"""

from __future__ import annotations

import bz2
import filecmp
import gzip
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CLI = [sys.executable, "-m", "extractor.cli"]

# The scans of the tree: the defaults with occurrences and work kept; byte ranges and planned
# files; prose forced; a kind forced, in one worker.
SCANS = {
    "A": ["--occurrences", "--keep-work", "--workers", "2"],
    "B": ["--occurrences", "--shard-size", "300000", "--workers", "2"],
    "C": ["--syntax", "none", "--shard-size", "300000", "--workers", "2"],
    "D": ["--kind", "plain", "--workers", "1"],
}
FINDS = [
    "big.txt",
    "big.txt.gz",
    "big.txt.zst",
    "page16.html",
    "latin.html.gz",
    "small16.txt",
    "recs.jsonl",
    "recs.jsonl.gz",
    "recs.parquet",
    "arch.zip",
    "arch.tar.gz",
]


def make_tree(root: Path) -> None:
    """Real documents of every kind, and the same texts compressed, transcoded, as records and
    in archives."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for d in ("corpora-dev/plain", "corpora-dev/html", "corpora-wild-dev/html", "corpora-wild-dev/pdf"):
        shutil.copytree(SHARED / d, root / d.replace("/", "_"))
    shutil.copytree(SHARED / "corpora-markup-dev/docs", root / "markup")
    for d in ("labelled-syntaxes", "labelled-kinds"):
        shutil.copytree(ROOT / "corpora" / d, root / d)
    texts = sorted((SHARED / "corpora-dev/plain").rglob("*.txt"))[:40]
    big = b"".join(p.read_bytes() for p in texts)
    (root / "big.txt").write_bytes(big * 3)
    (root / "big.txt.gz").write_bytes(gzip.compress(big))
    (root / "big.txt.bz2").write_bytes(bz2.compress(big))
    (root / "big.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(big))
    pages = sorted((SHARED / "corpora-dev/html").rglob("*.htm*"))[:3]
    page = pages[0].read_text("utf-8", "replace")
    (root / "page16.html").write_bytes(page.encode("utf-16"))
    latin = f'<html><head><meta charset="iso-8859-1"></head><body>Café {page}</body></html>'
    (root / "latin.html").write_bytes(latin.encode("latin-1", "replace"))
    (root / "latin.html.gz").write_bytes(gzip.compress((root / "latin.html").read_bytes()))
    (root / "small16.txt").write_bytes(texts[1].read_text("utf-8", "replace").encode("utf-16"))
    records = [{"id": f"r{i}", "text": p.read_text("utf-8", "replace")} for i, p in enumerate(texts)]
    (root / "recs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (root / "recs.jsonl.gz").write_bytes(gzip.compress((root / "recs.jsonl").read_bytes()))
    table = pa.table({"id": [r["id"] for r in records], "text": [r["text"] for r in records]})
    pq.write_table(table, root / "recs.parquet", row_group_size=10)
    with zipfile.ZipFile(root / "arch.zip", "w") as z:
        for p in [*texts[:10], pages[1]]:
            z.write(p, p.name)
    with tarfile.open(root / "arch.tar.gz", "w:gz") as t:
        for p in [*texts[10:20], pages[2]]:
            t.add(p, p.name)


def run(tree: Path, out: Path) -> None:
    """The scans and finds of the tree, each output under `out`."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name, args in SCANS.items():
        cmd = [*CLI, "scan", str(tree), "-o", str(out / name), "--quiet", *args]
        subprocess.run(cmd, stderr=subprocess.DEVNULL, check=False)
    for name in FINDS:
        for mode, extra in (("plain", []), ("jsonl", ["--json", "-n", "--jobs", "2"])):
            done = subprocess.run([*CLI, "find", *extra, str(tree / name)], capture_output=True, check=False)
            (out / f"find-{mode}-{name}.out").write_bytes(done.stdout + done.stderr)


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in ("timings", "seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def compare(a: Path, b: Path) -> int:
    """How many files differ between two trees of results (and say which)."""
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    bad = 0
    if files_a != files_b:
        print("not in both:", sorted(set(files_a) ^ set(files_b)))
        bad += 1
    for rel in set(files_a) & set(files_b):
        pa_, pb_ = a / rel, b / rel
        if rel.name == "_run.json" or rel.suffix == ".done":
            same = _untimed(json.loads(pa_.read_text())) == _untimed(json.loads(pb_.read_text()))
        else:
            same = filecmp.cmp(pa_, pb_, shallow=False)
        if not same:
            print("differs:", rel)
            bad += 1
    print(f"{len(files_a)} files compared, {bad} differ")
    return bad


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "tree":
        make_tree(Path(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "run":
        run(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return 1 if compare(Path(argv[1]), Path(argv[2])) else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
