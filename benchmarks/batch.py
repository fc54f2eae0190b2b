"""The Arrow batch API in memory (`extract_batch`, `find_array`: what Spark, Ray, Dask, Polars and
DuckDB call), over the records of the `records` section, in one thread and in two."""

from __future__ import annotations

import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .harness import two_process_capacity

BATCH_ROWS = 2048  # a batch as an engine hands one over


def batch_tables(corpus: Path, repeat: int, say: Any) -> None:
    """Medians of alternating rounds (each function once a round, in one thread and in two, over
    batches of BATCH_ROWS records), the machine's two-process capacity at each round's start."""
    import pyarrow as pa

    from extractor.arrow import extract_batch, find_array

    texts: list[str] = []
    for part in sorted((corpus / "jsonl").iterdir())[:3]:  # the records section's documents
        with open(part, encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f]
    column = pa.array(texts, pa.string())
    batches = [
        pa.record_batch(
            {"id": pa.array(range(i, min(i + BATCH_ROWS, len(texts)))), "text": column.slice(i, BATCH_ROWS)}
        )
        for i in range(0, len(texts), BATCH_ROWS)
    ]
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    calls = {
        "extract_batch": lambda b: extract_batch(b).num_rows,
        "find_array": lambda b: sum(len(v) for v in find_array(b.column("text")).to_pylist() if v),
    }
    runs = {
        f"{name}, {threads} thread{'s' * (threads > 1)}": (fn, threads)
        for name, fn in calls.items()
        for threads in (1, 2)
    }
    found: dict[str, int] = {}

    def timed(fn: Any, threads: int) -> tuple[float, int]:
        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            rows = sum(pool.map(fn, batches))
        return time.perf_counter() - t0, rows

    for fn, threads in runs.values():  # once before the rounds: modules loaded, caches warm
        timed(fn, threads)
    times: dict[str, list[float]] = {label: [] for label in runs}
    capacities = []
    for _ in range(repeat):
        capacities.append(two_process_capacity())
        for label, (fn, threads) in runs.items():
            seconds, found[label] = timed(fn, threads)
            times[label].append(seconds)
    say()
    say(
        f"the Arrow batch API in memory: {len(texts):,} records ({nbytes / 1e6:.0f} MB of text) in batches of "
        f"{BATCH_ROWS}; medians of {repeat} alternating rounds; two-process capacity per round "
        f"{', '.join(f'{c:.2f}' for c in capacities)}"
    )
    say(f"{'what':<28} {'seconds':>8} {'MB/s':>8} {'rows':>9}   rounds")
    for label, ts in times.items():
        m = statistics.median(ts)
        say(
            f"{label:<28} {m:>8.2f} {nbytes / 1e6 / m:>8.1f} {found[label]:>9,}   {' '.join(f'{t:.2f}' for t in ts)}"
        )
    say(
        "rows: extract_batch's hits (one a display form found), find_array's (record, DOI) pairs; "
        f"two threads' speed-up: extract_batch "
        f"{statistics.median(times['extract_batch, 1 thread']) / statistics.median(times['extract_batch, 2 threads']):.2f}x, "
        f"find_array {statistics.median(times['find_array, 1 thread']) / statistics.median(times['find_array, 2 threads']):.2f}x "
        f"against a median capacity of {statistics.median(capacities):.2f}"
    )
