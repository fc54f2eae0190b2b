"""A finished scan published to object storage (`-o s3://bucket/out`).

The scan itself runs in a stage folder — local, or shared by a cluster's workers — with all its
guarantees (completion markers, resume, the lock); the finished datasets are then copied to the
store. A store has no rename, so publication is ordered instead of atomic: `_run.json` is
removed first, each dataset's objects are uploaded under a temporary prefix and moved into
place (an object appears whole or not at all), objects of an earlier run that this one did not
write are deleted, and `_run.json` is written last. A reader that finds `_run.json` finds the
whole result; without it, a publication is under way or was interrupted (publish again).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from typing import Any

from ..errors import StoreError
from ..io.remote import filesystem, objects_in, reason, remove_under
from .output import MARKER, marker_text

DATASETS = ("mentions", "dois", "occurrences")
RUN = "_run.json"


def default_stage(url: str) -> str:
    """Where a run to `url` is staged unless told: a folder of the user's cache, one per URL,
    so that an interrupted run resumes there."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.blake2b(url.rstrip("/").encode(), digest_size=8).hexdigest()
    return os.path.join(cache, "doi-extractor", "stage", key)


def _ours(fs: Any, root: str, url: str) -> list[str]:
    """The objects under `root`, refused (StoreError) when a scan did not write them."""
    fs.invalidate_cache(root)  # fsspec's listing of an earlier call is not what is there now
    existing = [p for p in fs.find(root) if p != root]  # not exists(): it hides a refused key
    top = {p[len(root) + 1 :].split("/", 1)[0] for p in existing}
    if top and not (MARKER in top or RUN in top):
        raise StoreError(
            f"{url} holds objects that doi-extract did not write: choose another output (nothing was touched)"
        )
    return existing


def preflight(url: str) -> None:
    """Before a scan: that `url` can take its result — the store reached with these credentials,
    nothing there that a scan did not write, and a first object written (the marker publication
    writes first anyway) — so that a missing bucket or a refused key stops the run at once
    rather than after it. Raises StoreError."""
    try:
        fs, root = filesystem(url)
        root = root.rstrip("/")
        _ours(fs, root, url)
        fs.pipe_file(f"{root}/{MARKER}", marker_text().encode())
    except StoreError:
        raise
    except FileNotFoundError as exc:  # a prefix need not exist to be written: its bucket does
        raise StoreError(f"cannot write to {url}: no such bucket") from exc
    except Exception as exc:
        raise StoreError(f"cannot write to {url}: {reason(exc)}") from exc


def publish(stage: str, url: str, staged: str = "") -> int:
    """Copy the datasets and _run.json of a finished scan in `stage` to `url`; how many objects
    were written (the marker among them). With `staged`, a prefix of the same store where the merges wrote the datasets
    already (the work in object storage), they are moved from there instead. Raises StoreError
    when the store refuses, or when `url` holds objects that a scan did not write (nothing is
    then touched)."""
    try:
        fs, root = filesystem(url)
        root = root.rstrip("/")
        existing = _ours(fs, root, url)
        fs.put_file(os.path.join(stage, MARKER), f"{root}/{MARKER}")  # the stage's own marker
        if f"{root}/{RUN}" in existing:
            fs.rm_file(f"{root}/{RUN}")  # the commit point: absent while the datasets change
        tmp = filesystem(staged)[1].rstrip("/") if staged else f"{root}/_publishing-{uuid.uuid4().hex[:12]}"
        written = 0
        for name in DATASETS:
            local = os.path.join(stage, name)
            new: set[str] = set()
            if staged:
                new = {p[len(tmp) + 1 :] for p in objects_in(fs, f"{tmp}/{name}")}
            elif os.path.isdir(local):
                for base, _dirs, files in os.walk(local):
                    for f in sorted(files):
                        rel = os.path.relpath(os.path.join(base, f), stage).replace(os.sep, "/")
                        fs.put_file(os.path.join(base, f), f"{tmp}/{rel}")
                        new.add(rel)
            for old in [p for p in existing if p.startswith(f"{root}/{name}/")]:
                if old[len(root) + 1 :] not in new:
                    fs.rm_file(old)
            for rel in sorted(new):
                fs.mv(f"{tmp}/{rel}", f"{root}/{rel}")
                written += 1
        if fs.exists(tmp):
            fs.rm(tmp, recursive=True)
        fs.put_file(os.path.join(stage, RUN), f"{root}/{RUN}")
        return written + 2  # the datasets' objects, the marker and _run.json
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot publish to {url}: {type(exc).__name__}: {exc}") from exc


def remove_work(work: str) -> None:
    """A published scan's work in object storage removed: the completion markers first, so
    that a removal stopped half-way leaves shards to redo, never a marker without its parts."""
    for name in ("_shards", "_work"):
        remove_under(f"{work.rstrip('/')}/{name}")
