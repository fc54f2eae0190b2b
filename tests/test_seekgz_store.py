"""One large gzip or bzip2 object in many shards (io/seekgz.py) with nothing shared but the store:
the planner reads the object from an S3 API server (moto, on 127.0.0.1), each shard's seek
points travel in its plan, and each shard reads only its own range of the object, its work kept
in the store as a cluster that shares no folder keeps it; the rows are those of the same text
uncompressed on disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from extractor.pipeline.out.publish import preflight, publish

from .helpers import run_json, scan_here
from .test_s3 import _client, _store, s3  # noqa: F401 - s3 is the server fixture
from .test_seekgz import COMPRESSIONS, SHARD, _records, _rows, _text

pytest.importorskip("rapidgzip")


@pytest.fixture
def store_env(s3: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:  # noqa: F811
    """This module's server in the environment, with no file system left cached by fsspec (it
    keys its instances by their arguments, not by the endpoint the environment names: another
    module's server, stopped since, would be asked)."""
    import s3fs

    from extractor.pipeline.io import remote

    def forget() -> None:
        s3fs.S3FileSystem.clear_instance_cache()
        remote._SEEN.clear()

    for k, v in s3.items():
        monkeypatch.setenv(k, v)
    forget()
    yield s3
    forget()


# bzip2 the same way through the store: the thorough profile (the default's time is kept short)
@pytest.mark.parametrize("ext", ["gz", pytest.param("bz2", marks=pytest.mark.slow)])
def test_a_compressed_object_in_a_store_is_read_in_ranges_by_shards_that_share_no_folder(
    tmp_path: Path, store_env: dict[str, str], ext: str
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    bucket = f"split-{ext}"
    client = _client(store_env)
    client.create_bucket(Bucket=bucket)
    for name, data in (("r.jsonl", _records(6000)), ("t.txt", _text(6000))):
        (plain / name).write_bytes(data)
        client.put_object(Bucket=bucket, Key=f"in/{name}.{ext}", Body=COMPRESSIONS[ext](data))
    scan_here([plain], tmp_path / "a", shard_size=SHARD, occurrences=True)
    run = f"s3://{bucket}/run"
    preflight(run)  # as the CLI does, before the shards write there
    stage = tmp_path / "stage"
    report = scan_here(
        [f"s3://{bucket}/in/"], stage, shard_size=SHARD, occurrences=True, split_gzip=True, work=run
    )
    publish(str(stage), run, report.staged)
    _store(store_env).get(f"{bucket}/run/", str(tmp_path / "b"), recursive=True)
    a, b = run_json(tmp_path / "a"), run_json(tmp_path / "b")
    for field in ("shards", "hits", "documents", "bytes_read"):
        assert b[field] == a[field], field
    sources = [i["source"] for i in b["inputs"]]
    for name in ("r.jsonl", "t.txt"):  # each object in ranges
        assert sources.count(f"s3://{bucket}/in/{name}.{ext}") > 2, name
    assert [s["first"] for s in b["skipped_records"]] == [s["first"] for s in a["skipped_records"]]
    for dataset in ("mentions", "occurrences", "dois"):
        assert _rows(tmp_path / "b", dataset) == _rows(tmp_path / "a", dataset), dataset
