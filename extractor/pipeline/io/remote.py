"""Inputs on any file system fsspec reaches — `s3://`, `gs://`, `hdfs://`, `https://`, … —
listed, globbed, sized and opened for the planner and the workers. Local paths (and
`file://` URLs) never come here: the operating system reads them faster, in windows with pread.

Credentials and endpoints are the stores' own: for S3 the standard `AWS_*` environment
variables (`AWS_ENDPOINT_URL` included) and fsspec's configuration; nothing of ours.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ..errors import StoreError, StoreUnreachable

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# The package fsspec needs for a protocol, for the message when it is missing.
_PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs", "abfs": "adlfs"}
# (size, version) of each object as its listing gave it: the planner's stat reads it here instead
# of asking the store again for every object.
_SEEN: dict[str, tuple[int, str]] = {}


def is_url(path: str) -> bool:
    """A URL that fsspec reads (not a local path, not file://)."""
    return "://" in path and bool(_URL.match(path)) and not path.lower().startswith("file://")


def local_path(path: str) -> str:
    """A file:// URL as a local path; anything else unchanged."""
    return path[len("file://") :] if path.lower().startswith("file://") else path


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec file system of a URL and the path in it; raises StoreError with a reason."""
    protocol = url.split("://", 1)[0].lower()
    try:
        import fsspec

        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as exc:
        package = _PACKAGES.get(protocol, exc.name or "fsspec")
        extra = {"s3fs": "s3", "gcsfs": "gcs"}.get(package)
        how = f"pip install 'doi-extractor[{extra}]'" if extra else f"pip install {package}"
        raise StoreUnreachable(f"reading {protocol}:// needs {package}: {how}") from exc
    except ValueError as exc:  # an unknown protocol
        raise StoreError(str(exc)) from exc
    return fs, path


def reason(exc: BaseException) -> str:
    """What went wrong with an object or a listing, in a few words for the user."""
    if isinstance(exc, StoreError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return "no such object or prefix"
    if isinstance(exc, PermissionError):
        return f"access denied: {exc}"
    return f"{type(exc).__name__}: {exc}"


# Exceptions (by class name, anywhere in the chain) of a store that does not answer: botocore's,
# aiohttp's and the system's connection failures.
_UNREACHABLE = frozenset(
    {
        "EndpointConnectionError",
        "ConnectTimeoutError",
        "ConnectionClosedError",
        "ClientConnectorError",
        "ServerDisconnectedError",
        "ConnectionRefusedError",
        "ConnectionError",
    }
)


def _in_chain(exc: BaseException | None, names: frozenset[str], text: str = "") -> bool:
    """Whether an exception or one it came from is of a class named in `names` (or says `text`)."""
    seen = 0
    while exc is not None and seen < 16:
        if any(c.__name__ in names for c in type(exc).__mro__) or (text and text in str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _no_bucket(fs: Any, path: str) -> str | None:
    """The bucket of `path` when the store has none of that name (object stores only)."""
    bucket = path.split("/", 1)[0]
    if not bucket or getattr(fs, "root_marker", "/") != "":  # a file system with a root, not buckets
        return None
    try:
        return None if fs.exists(bucket) else bucket
    except Exception:  # a store that fails this too fails for its own reason
        return None


def expand(url: str) -> list[str]:
    """The objects a URL names: itself, every object under it (a prefix, recursively), or the
    matches of its glob pattern; raises StoreError with a reason, StoreUnreachable when no
    input of the store can be read (it does not answer, the bucket does not exist)."""
    fs: Any = None
    try:
        fs, path = filesystem(url)
        if any(c in path for c in "*?["):
            found = sorted(fs.glob(path, detail=True).items())
            objects: list[tuple[str, dict[str, Any]]] = []
            for p, info in found:
                objects += _objects(fs, p) if info.get("type") == "directory" else [(p, info)]
            if not objects:
                raise StoreError("no object matches the pattern")
        elif fs.isdir(path):
            objects = _objects(fs, path)
        else:
            objects = [(path, fs.info(path))]
    except StoreUnreachable:
        raise
    except Exception as exc:
        if _in_chain(exc, _UNREACHABLE):
            raise StoreUnreachable(f"the store does not answer: {reason(exc)}") from exc
        bucket = None
        if fs is not None and isinstance(exc, FileNotFoundError):
            bucket = _no_bucket(fs, path)
        elif fs is not None and _in_chain(exc, frozenset({"NoSuchBucket"}), "NoSuchBucket"):
            bucket = path.split("/", 1)[0]
        if bucket is not None:
            raise StoreUnreachable(f"the store has no bucket {bucket!r}") from exc
        raise StoreError(reason(exc)) from exc
    out = []
    for p, info in objects:
        name = p.rstrip("/").rsplit("/", 1)[-1]
        if name.startswith("."):
            continue
        full = fs.unstrip_protocol(p)
        _SEEN[full] = _size_version(info)
        out.append(full)
    return out


def _objects(fs: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    return sorted((p, i) for p, i in fs.find(path, detail=True).items() if i.get("type") != "directory")


def _size_version(info: dict[str, Any]) -> tuple[int, str]:
    version = info.get("ETag") or info.get("etag") or info.get("mtime") or info.get("LastModified") or ""
    return int(info.get("size") or 0), str(version)


def stat(url: str) -> tuple[int, str]:
    """An object's size and what identifies this version of it (ETag, or modification time):
    as the listing of this run gave it (expand), else asked of the store."""
    seen = _SEEN.get(url)
    if seen is not None:
        return seen
    try:
        fs, path = filesystem(url)
        info = fs.info(path)
    except Exception as exc:
        raise StoreError(reason(exc)) from exc
    _SEEN[url] = _size_version(info)
    return _SEEN[url]


def open_binary(url: str) -> io.BufferedReader:
    """An object as a buffered, seekable binary stream with peek (compression is told by the
    first bytes); read ahead in large blocks, the way object stores are read fastest."""
    try:
        fs, path = filesystem(url)
        f = fs.open(path, "rb", block_size=8 << 20)
    except Exception as exc:
        raise StoreError(reason(exc)) from exc
    return io.BufferedReader(f, buffer_size=1 << 20)


# The work of a scan kept in object storage, for a cluster whose workers share no folder
# (out/parts.py, out/finalize.py, out/publish.py): whole objects and byte ranges read,
# files put, prefixes listed and removed. Errors are StoreError with the store's reason.


def _store_errors(what: str, url: str, exc: Exception) -> StoreError:
    if isinstance(exc, StoreError):
        return exc
    return StoreError(f"{what} {url}: {reason(exc)}")


def fetch(url: str, start: int | None = None, end: int | None = None) -> bytes:
    """An object's bytes, or bytes [start, end) of it."""
    try:
        fs, path = filesystem(url)
        # s3fs sizes a whole object from a listing it keeps, which an object written since
        # (another worker's) is not in: it would be "not found"
        fs.invalidate_cache(path)
        data: bytes = fs.cat_file(path, start=start, end=end)
        return data
    except Exception as exc:
        raise _store_errors("cannot read", url, exc) from exc


def fetch_ranges(urls: list[str], starts: list[int], ends: list[int]) -> list[bytes]:
    """Byte ranges of objects, asked of the store all at once (s3fs sends them concurrently):
    a bucket merge's slices of every shard's part file cost one round trip, not one each."""
    if not urls:
        return []
    try:
        fs, _ = filesystem(urls[0])
        paths = [filesystem(u)[1] for u in urls]
        data: list[bytes] = fs.cat_ranges(paths, starts, ends)
    except Exception as exc:
        raise _store_errors("cannot read", urls[0], exc) from exc
    for d in data:
        if isinstance(d, Exception):
            raise _store_errors("cannot read", urls[0], d)
    return data


def fetch_existing(urls: list[str]) -> dict[str, bytes]:
    """The objects of `urls` that exist, by URL: one listing per folder, then the objects asked
    of the store at once (a resume's completion markers)."""
    if not urls:
        return {}
    try:
        fs, _ = filesystem(urls[0])
        folders = {u.rsplit("/", 1)[0] for u in urls}
        there: set[str] = set()
        for folder in folders:
            there |= {fs.unstrip_protocol(p) for p in objects_in(fs, filesystem(folder)[1])}
        wanted = [u for u in urls if u in there]
        if not wanted:
            return {}
        got = fs.cat([filesystem(u)[1] for u in wanted], on_error="omit")
    except Exception as exc:
        raise _store_errors("cannot read", urls[0], exc) from exc
    return {fs.unstrip_protocol(p): data for p, data in got.items()}


def objects_in(fs: Any, path: str) -> list[str]:
    """Every object under a prefix of a file system, as its paths (none when there is no such
    prefix). Asked of the store each time: fsspec keeps listings, and the shards of a run add
    objects that an earlier listing did not hold."""
    fs.invalidate_cache(path)
    try:
        return [p for p, i in fs.find(path, detail=True).items() if i.get("type") != "directory"]
    except FileNotFoundError:
        return []


def put(local: str, url: str) -> None:
    """A local file written to `url` as one object (whole or absent: stores write no half object)."""
    try:
        fs, path = filesystem(url)
        fs.put_file(local, path)
    except Exception as exc:
        raise _store_errors("cannot write", url, exc) from exc


def remove_under(url: str) -> None:
    """Every object under a prefix removed (nothing when there is none)."""
    try:
        fs, path = filesystem(url)
        paths = objects_in(fs, path.rstrip("/"))
        if paths:
            fs.rm(paths)
    except Exception as exc:
        raise _store_errors("cannot remove", url, exc) from exc
