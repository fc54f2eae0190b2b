"""`doi-extract summary` (issue 13): what a finished scan found, read back from its Parquet
datasets — checked against the datasets read whole — and its one-page HTML report, looked at in
a real headless browser where one is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from extractor.pipeline.out.summary import DOCUMENT_BINS, summarize

from .helpers import corrupt_gzip, make_corpus, scan_here, table

SICI = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"


def summary_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "extractor.cli", "summary", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real scan: 12 documents of 300 distinct DOIs each plus one DOI cited by all, an HTML
    page, a document citing a DOI with markup characters and two funders, and a corrupt gzip
    (rejected)."""
    tmp = tmp_path_factory.mktemp("summary")
    src = make_corpus(tmp)
    (src / "sici.txt").write_text(
        f"doi:{SICI} and again https://doi.org/10.1038/nature12373\n{SICI}; {SICI}\n"
        "Funded by doi:10.13039/100000001 and doi:10.13039/501100000780 (twice: doi:10.13039/100000001)\n"
    )
    (src / "cut.txt.gz").write_bytes(corrupt_gzip(b"doi:10.1000/lost\n" * 1000))
    out = tmp / "out"
    # small batches of rows: the summary's top list is merged across many
    scan_here([src], out, buckets=8)
    return out


def test_summary_agrees_with_the_datasets_read_whole(out: Path) -> None:
    s = summarize(str(out), top=5)
    dois = table(out, "dois")
    want = sorted(dois, key=lambda r: (-r["documents"], -r["occurrences"], r["doi"]))[:5]
    assert s.top_dois == [{k: r[k] for k in ("doi", "documents", "occurrences")} for r in want]
    assert s.top_dois[0] == {"doi": "10.1000/182", "documents": 13, "occurrences": 13}
    prefixes = Counter(r["doi"].split("/", 1)[0] for r in dois)
    assert s.prefixes_total == len(prefixes) == 9
    assert [(p["prefix"], p["dois"]) for p in s.prefixes] == sorted(
        prefixes.items(), key=lambda kv: (-kv[1], kv[0])
    )[:5]
    mentions = table(out, "mentions")
    by_prefix = Counter(m["doi"].split("/", 1)[0] for m in mentions)
    assert all(p["mentions"] == by_prefix[p["prefix"]] for p in s.prefixes)
    forms = Counter(f for m in mentions for f in m["forms"])
    assert {f["form"]: f["mentions"] for f in s.forms} == forms and forms["resolver-url"] == 2
    bins = {b["documents"]: b["dois"] for b in s.documents_per_doi}
    assert list(bins) == [label for label, _lo, _hi in DOCUMENT_BINS]
    assert sum(bins.values()) == len(dois) == 12 * 300 + 3 + 2
    assert bins["11-100"] == 1 and bins["2"] == 1  # 10.1000/182 (13 documents); nature12373 (2)
    assert [r["source"] for r in s.run["rejected"]] == [str(out.parent / "corpus" / "cut.txt.gz")]
    # spec §6: what the DOIs name, from the datasets' entity column
    for e in s.entities:
        rows = [r for r in dois if r["entity"] == e["entity"]]
        assert (e["dois"], e["mentions"], e["occurrences"]) == (
            len(rows),
            sum(r["documents"] for r in rows),
            sum(r["occurrences"] for r in rows),
        )
    assert [(e["entity"], e["dois"], e["occurrences"]) for e in s.entities][1] == ("funder", 2, 3)


def test_summary_prints_the_run_as_text_and_json(out: Path) -> None:
    p = summary_cli(str(out), "--top", "3")
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert f"{out!s}: 14 documents" in text and "3605 distinct DOIs" in text
    lines = text.splitlines()
    top = lines.index("Most cited DOIs (by documents citing them):")
    assert lines[top + 2].split() == ["13", "13", "10.1000/182"]
    assert "Registrant prefixes (9 in all; by distinct DOIs):" in lines
    named = lines.index("What the DOIs name (a citation graph leaves funders out):")
    assert lines[named + 3].split() == ["2", "2", "3", "funder"]
    assert "Rejected inputs: 1" in lines and any("cut.txt.gz" in x for x in lines)
    data = json.loads(summary_cli(str(out), "--json", "--top", "3").stdout)
    assert data["top_dois"] == summarize(str(out), top=3).top_dois
    assert data["run"]["distinct_dois"] == 3605


@pytest.mark.slow
def test_summary_of_a_folder_that_is_no_scan_output_is_a_clear_error(tmp_path: Path) -> None:
    for target in (tmp_path / "missing", tmp_path):
        p = summary_cli(str(target))
        assert p.returncode == 2 and "Traceback" not in p.stderr
        assert "no _run.json" in p.stderr
    (tmp_path / "_run.json").write_text("{}")
    p = summary_cli(str(tmp_path))
    assert p.returncode == 2 and "no dois/ dataset" in p.stderr and "Traceback" not in p.stderr


def test_html_report_is_one_offline_page_with_a_chart_per_section(out: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    p = summary_cli(str(out), "--html", str(page), "--top", "8")
    assert p.returncode == 0, p.stderr
    doc = page.read_text()
    assert doc.startswith("<!doctype html>") and "<script" not in doc
    # nothing to fetch: no source, linked style or url() that points outside the page (the SVG's
    # namespace names are names, not addresses that are read; a DOI's link is followed only
    # when clicked)
    assert not re.search(
        r"""src\s*=\s*["']?(https?:|//)|<link[^>]*href|url\(\s*["']?(https?:|//)|@import""", doc
    )
    # each DOI is a link to its URL form (NISO Z39.84 Appendix E's encoding: to_url)
    sici = "10.1002/(sici)1097-4571(199806)49:8&lt;693::aid-asi4&gt;3.0.co;2-o"
    assert (
        f'<a href="https://doi.org/10.1002/(sici)1097-4571(199806)49:8%3C693::aid-asi4%3E3.0.co;2-o">{sici}</a>'
        in doc
    )
    for section in ("top-dois", "prefixes", "forms", "documents-per-doi", "rejected"):
        assert f'<section id="{section}">' in doc
    assert doc.count("<svg") == 4
    # markup characters of a DOI are escaped, never markup
    assert "10.1002/(sici)1097-4571(199806)49:8&lt;693::aid-asi4&gt;3.0.co;2-o" in doc
    assert "<693::" not in doc
    assert not [n for n in os.listdir(tmp_path) if n != "report.html"]  # no temporary left


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (Debian: apt-get install chromium)")
def test_html_report_renders_its_charts_in_a_real_browser(out: Path, tmp_path: Path) -> None:
    """The page opened by headless Chromium from the file: the charts are drawn (the bars'
    colour covers a good part of the screenshot), and nothing is fetched from anywhere."""
    from PIL import Image

    from extractor.cli.report import BAR

    page = tmp_path / "report.html"
    assert summary_cli(str(out), "--html", str(page)).returncode == 0
    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    assert CHROMIUM is not None
    p = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--window-size=1200,2400",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.exists(), p.stderr[-2000:]
    img = Image.open(shot).convert("RGB")
    want = tuple(int(BAR[i : i + 2], 16) for i in (1, 3, 5))
    pixels = Counter(img.get_flattened_data() if hasattr(img, "get_flattened_data") else img.getdata())
    near = sum(n for c, n in pixels.items() if max(abs(a - b) for a, b in zip(c, want, strict=True)) <= 8)
    assert near > 0.01 * img.width * img.height, (near, img.size)
    assert len(pixels) > 50  # text and axes drawn too, not a blank or one-colour page
