"""Shared by the scan tests: a scan run in this process, and its output read back."""

from __future__ import annotations

import gzip
import io
import json
import socket
import sys
import tarfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

from extractor.engines import InProcessEngine
from extractor.pipeline import InputType, RunReport, ScanConfig, ShardSpec, output_folder, run_scan
from extractor.pipeline.out.parts import shard_paths
from extractor.pipeline.scan.sinks import OccurrenceSink

TEXT = (
    "Intro. See doi:10.1000/182 and https://doi.org/10.1038/nature12373.\n"
    "Again DOI: 10.1000/182; and 10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O.\n"
)


# `doi-extract scan` as a subprocess runs it (the tests' own interpreter, no installed script).
SCAN = [sys.executable, "-m", "extractor.cli", "scan"]


def scan_here(inputs: Sequence[Path | str], out: Path, force: bool = False, **config: Any) -> RunReport:
    """A whole scan through the in-process engine: the pipeline's public entry, real tracebacks."""
    with output_folder(str(out), force), InProcessEngine(retry_sleep=0) as engine:
        return run_scan([str(i) for i in inputs], ScanConfig(out=str(out), **config), engine, replace=force)


def table(out: Path, name: str) -> list[dict[str, Any]]:
    return ds.dataset(str(out / name), format="parquet").to_table().to_pylist()


def run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "_run.json").read_text())


def make_corpus(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    src.mkdir()
    for i in range(12):
        text = "".join(f"Ref {j}: doi:10.{1000 + j % 7}/doc{i}.ref{j}\n" for j in range(300))
        (src / f"doc{i:02d}.txt").write_text(text + "shared: 10.1000/182\n")
    (src / "page.html").write_text("<p>https://doi.org/10.1000%2F182 and <b>10.1038/nature12373</b></p>")
    return src


# The pieces the rules react to (labels, resolvers, tails, escapes, brackets, look-alike letters,
# invalid bytes as surrogateescape), for texts that hypothesis builds.
PIECES = [
    "10.1000/182",
    "10.12345/abc.def",
    "10.1101/2020.01.01.123",
    "10.5240:",
    "10.",
    "1234",
    "/a",
    "10.1000%2F1",
    "doi:",
    "DOI ",
    "doi ",
    "doi=",
    "doi：",
    "doi%3A",
    "info%3Adoi%2F",
    "https://doi.org/",
    "http://dx.doi.org/",
    "https:////doi.org/",
    "urn:doi:",
    "urn:eidr:",
    "info:doi/",
    "hdl.handle.net/",
    "www.doi.org/",
    "example.com/",
    "https://x.org/doi/abs/",
    "/doi/full/",
    "?id=",
    "&x=1",
    "#s",
    "?a=",
    "biorxiv.org/",
    "academic.oup.com/x/article/doi/",
    "/abstract",
    "/full/",
    ".pdf",
    ";jsessionid=X1",
    "v2.full",
    "v1.full.pdf+html",
    "/transform/x",
    "/agency",
    "/123",
    # issue 12: key-value metadata, extraction debris, resource paths, badges, file stores
    ";journal:",
    ";subjmeta=",
    ";2-",
    ";k",
    "\ufffd",
    "\ue000",
    "\U000f0001",
    "(cid:4)",
    "(cid:",
    # spec §4: an emoji ends a DOI (Extended_Pictographic, regional indicators); others do not
    "\U0001f600",
    "\u00a9",
    "\u2714",
    "\U0001f1eb",
    "\U00020000",
    "\u00b0",
    "/MediaObjects/",
    "/asset/",
    "/suppl_file/",
    "/email",
    "x_HTML.png",
    ".svg",
    "/status.svg",
    ".JPG",
    "img.shields.io/badge/DOI-",
    # spec §4's revision: Springer's hosts, markers, preview pages and .html view segments
    "https://link.springer.com/article/",
    "rd.springer.com/content/pdf/",
    "Link.Springer.com/epdf/",
    "x.springer.com/chapter/",
    "/lookinside",
    "/fulltext.html",
    ".htm",
    "/2010/",
    "shields.io/badge/",
    "-blue",
    "--",
    "__",
    "-",
    "/mp4/",
    "/886/",
    "/Doi/",
    "19.",
    "1.",
    "/123/a-slug",
    "art%3A10.1038%2Fs1",
    # shortDOIs (spec §1)
    "10/",
    "10%2F",
    "10%2f",
    "10%2",
    "b6v3",
    "abcd",
    "2020",
    "rg/",
    "DOI.ORG/",
    "dx.doi.org/",
    "https://",
    "http:///",
    "Doi ",
    "DOİ:",
    "x",
    "_",
    " ",
    "  ",
    "\n",
    "\t",
    "\u00a0",
    "\u3000",
    "\x85",
    "\x1c",
    ".",
    ",",
    ";",
    ":",
    "!",
    "?",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "<i>",
    "</b>",
    "<1",
    "（",
    "）",
    '"',
    "'",
    "“",
    "”",
    "…",
    "*",
    "`",
    "=",
    "-",
    "_",
    "%",
    "%2F",
    "%41",
    "%C3%81",
    "%0a",
    "%ff",
    "%E2%80%8B",
    "%c3",
    "Á",
    "x",
    "Z",
    "İ",
    "ı",
    "ſ",
    "K",
    "\u00ad",
    "\u200b",
    "٣",
    "\udcff",
    "\udcc3",
    "\udc81",
    "\udce2\udc82",  # invalid UTF-8 bytes (surrogateescape)
]


# The pieces the fast path's shortcuts react to (labels, resolvers, stops), for texts that
# hypothesis builds.
FAST_PIECES = [
    "10.1000/182",
    "10.12345/abc.def",
    "doi:",
    "DOI ",
    "doi ",
    "https://doi.org/",
    "http://dx.doi.org/",
    "urn:doi:",
    "info:doi/",
    "hdl.handle.net/",
    "www.doi.org/",
    "https:////doi.org/",
    "http:/dx.doi.org/",
    " ",
    "\n",
    ".",
    ",",
    ";",
    ":",
    "(",
    ")",
    "[",
    "]",
    '"',
    "'",
    "<",
    ">",
    "x",
    "-",
    "/",
    "#",
    "?",
    "&",
    "%2F",
    "Á",
    "\u00ad",
    "\u00a0",
    "10.",
    "1234",
    "/a",
]

# PDF text: what the line-break, column and space joins react to (spec §5).
PDF_PIECES = [
    *FAST_PIECES,
    "10.1234/a-",
    "10.1016/j.cell.",
    "10.1002/(SICI)1097-4571",
    "0022-3956",
    "(75)90026-6",
    "\n",
    "\n\n",
    "\r\n",
    "   ",
    "\t",
    "  ",
    "-\n",
    "/\n",
    ".\n",
    "PMID ",
    "[12]",
    "(3)",
    "12.",
    "154 A. Sundström",
    "https://doi.\norg/",
    "doi.org/ ",
    "•",
    "abstract",
    "t001",
    "showed",
    # registrants' shapes, cut and completed farther down (pdf.SHAPES)
    "10.1038/nmeth.",
    "10.1371/journal.pgen.",
    "10.1146/annurev.genet.42.110807.091",
    "10.1016/j.tree.2020.",
    "10.1371/",
    "2942",
    "1001674",
    "601",
    "11.011",
    "journal.pbio.1153981",
    "doi:10.",
    "https://doi.org/10.   ",
    "1016/j.jmb.",
    "1146/",
    "\f",
    "1101\n",
    "                                                                                  ",
    # a page number glued to a whole DOI (pdf.glued_page_end)
    "10.1371/journal.pgen.1001373",
    "1100–1104",
    "10.1146/annurev-genet-110807-091601",
    # a journal's code alone, then its number (pdf._CODE_ONLY)
    "10.1002/nbm.",
    "4520\n",
]

# A name for each rule of pdf.DEHYPHENATION_RULES that the rule rewrites (pdftotext dropped the
# hyphen), in the table's order.
REHYPHENATION_EXAMPLES = [
    "10.1016/00223956(75)900266",
    "10.1002/(SICI)10974571(199806)49:8<693::AIDASI4>3.0.CO;2O",
    "10.1111/j.13652133.1977.tb1",
    "10.1007/s00268001-00293-5",
    "10.1007/s00268-00100293-5",
    "10.2190/DAC5-TPV6XUHL-CRMV",
    "10.1097/0000653419790300000011",
    "10.9999/x<1::AIDJCLP2>",
    "10.9999/x>3.0.CO;2O",
    "10.1055/s00281095566",
    "10.1146/annurev-pathol020712-163923",
    "10.1016/0022-1317341189",
    "10.1016/(79)900072",
    "10.1038/s41418-021-007989",
    "10.3760/cma.j.cn51137420200924-00691",
    "10.1038/d41573021-00081-z",
    "10.3969/j.issn.16717104.2021.03.011",
    "10.3233/jad210027",
    "10.3181/00379727156-39901",
    "10.3181/00379727-15639901",
    "10.1210/jcem48-5-816",
    "10.1210/jcem-47-3499",
    "10.1210/jcem-482-338",
    "10.1158/0008-5472.can-211188",
    "10.1563/aaid-joi-d-2000301",
    "10.7326/00034819-90-3-435_2",
    "10.7326/0003-4819-901-114",
    "10.1259/0007-1285-51-603220",
]


def occurrence_sink(tmp_path: Path) -> OccurrenceSink:
    """An occurrence sink writing under tmp_path, for a unit's documents read by a test."""
    return OccurrenceSink(shard_paths(str(tmp_path), ShardSpec(0, "", "", InputType("text"))), 1 << 30)


def corrupt_gzip(data: bytes) -> bytes:
    """`data` gzipped with its CRC-32 broken: a corrupt stream (rejected whole once read to its
    end), where one cut short is read up to the cut (tests/test_messy.py)."""
    import gzip

    blob = bytearray(gzip.compress(data))
    blob[-8] ^= 0xFF
    return bytes(blob)


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now: for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def moto_s3() -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1, started and stopped here, and the environment a client of
    it needs (nothing else is configured)."""
    from moto import server as moto_server

    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield {
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    finally:
        server.stop()


def tar_of(path: Path, members: dict[str, bytes], mode: Any = "w") -> None:
    """A tar of these members (name: bytes) at `path`, in a tarfile mode ("w:gz")."""
    with tarfile.open(path, mode) as t:
        for n, data in members.items():
            ti = tarfile.TarInfo(n)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))


def gz_tar(members: dict[str, bytes]) -> bytes:
    """A gzipped tar of these members, as arXiv's per-paper sources are."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for n, data in members.items():
            ti = tarfile.TarInfo(n)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return gzip.compress(buf.getvalue())
