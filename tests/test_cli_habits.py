"""The habits command-line users bring: grep's options in `find` (-q, -m, -s, --include,
--exclude, names as typed), errors with the command's own usage, `python -m extractor`, help
with examples, exit codes, extras and environment, -v/--log-level, one --json, completion."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, cwd: Path | None = None, module: str = "extractor") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    """A folder as a user has one: notes, a bibliography in a subfolder, a file with no DOI."""
    (tmp_path / "messy" / "refs").mkdir(parents=True)
    (tmp_path / "messy" / "notes.md").write_text("see doi:10.1000/182, then 10.1038/NATURE12373.\n")
    (tmp_path / "messy" / "refs" / "a.bib").write_text("@article{k, doi = {10.1007/978-3-319-24277-4\\_9}}\n")
    (tmp_path / "messy" / "todo.txt").write_text("nothing to cite\n")
    return tmp_path


def test_python_dash_m_extractor_is_the_command() -> None:
    p = run("--version")
    assert p.returncode == 0 and p.stdout.startswith("doi-extract ")


def test_find_names_inputs_as_typed(messy: Path) -> None:
    p = run("find", "messy", cwd=messy)
    assert p.stdout.splitlines() == [
        "messy/notes.md:10.1000/182",
        "messy/notes.md:10.1038/nature12373",
        "messy/refs/a.bib:10.1007/978-3-319-24277-4_9",
    ]
    p = run("find", "-c", "./messy/notes.md", "messy/todo.txt", cwd=messy)
    assert p.stdout.splitlines() == ["./messy/notes.md:2", "messy/todo.txt:0"]


def test_find_q_prints_nothing_and_answers_by_its_status(messy: Path) -> None:
    p = run("find", "-q", "messy/notes.md", cwd=messy)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    assert run("find", "-q", "messy/todo.txt", cwd=messy).returncode == 1
    # as grep -q: a DOI found answers 0 even when another input is missing
    assert run("find", "-q", "nosuch.txt", "messy/notes.md", cwd=messy).returncode == 0


def test_find_m_stops_each_input_after_num(messy: Path) -> None:
    p = run("find", "-m", "1", "messy", cwd=messy)
    assert p.stdout.splitlines() == [
        "messy/notes.md:10.1000/182",
        "messy/refs/a.bib:10.1007/978-3-319-24277-4_9",
    ]
    assert run("find", "-c", "-m", "1", "messy/notes.md", cwd=messy).stdout == "1\n"
    assert run("find", "-m", "0", "messy/notes.md", cwd=messy).returncode == 1
    assert run("find", "-m", "-1", "messy/notes.md", cwd=messy).returncode == 2


def test_find_s_keeps_quiet_about_missing_inputs(messy: Path) -> None:
    loud = run("find", "nosuch.txt", "messy/notes.md", cwd=messy)
    quiet = run("find", "-s", "nosuch.txt", "messy/notes.md", cwd=messy)
    assert "nosuch.txt" in loud.stderr and quiet.stderr == ""
    assert loud.returncode == quiet.returncode == 2 and loud.stdout == quiet.stdout != ""


def test_find_include_and_exclude_globs_choose_the_files_found(messy: Path) -> None:
    assert run("find", "-r", "--include", "*.bib", "messy", cwd=messy).stdout.splitlines() == [
        "messy/refs/a.bib:10.1007/978-3-319-24277-4_9"
    ]
    p = run("find", "-c", "--exclude", "*.bib", "--exclude", "todo.*", "messy", cwd=messy)
    assert p.stdout.splitlines() == ["messy/notes.md:2"]
    # a file named outright is read whatever the globs say, as grep reads it
    assert run("find", "--exclude", "*.md", "messy/notes.md", cwd=messy).stdout.count("10.") == 2


def test_a_bad_option_shows_the_commands_own_usage(messy: Path) -> None:
    p = run("find", "--no-such-option", "messy", cwd=messy)
    assert p.returncode == 2
    assert (
        p.stderr.startswith("usage: doi-extract find ")
        and "unrecognized arguments: --no-such-option" in p.stderr
    )
    p = run("scan", "messy", "-o", "out", "--bogus", cwd=messy)
    assert p.returncode == 2 and p.stderr.startswith("usage: doi-extract scan ")


@pytest.mark.parametrize("command", ["find", "scan", "summary", "score"])
def test_help_shows_examples_exit_codes_and_defaults(command: str) -> None:
    text = run(command, "--help").stdout
    assert f"doi-extract {command} " in text.split("examples:")[1]
    assert "exit status:" in text and "130" in text
    if command in ("find", "scan"):
        assert "extras," in text and "warc" in text and "pdf" in text
    if command == "scan":
        assert "AWS_ENDPOINT_URL" in text and "(default: 16)" in text  # --buckets


def test_one_spelling_of_json_across_commands(messy: Path) -> None:
    jsonl = run("find", "--format", "jsonl", "messy/notes.md", cwd=messy).stdout
    assert run("find", "--json", "messy/notes.md", cwd=messy).stdout == jsonl != ""
    p = run("scan", "messy", "-o", "out", "--json", "-q", cwd=messy)
    assert p.returncode == 0
    assert json.loads(p.stdout)["distinct_dois"] == 3
    assert json.loads(run("summary", "out", "--json", cwd=messy).stdout)["run"]["hits"] == 3


def test_verbose_and_log_level_log_what_the_run_does(messy: Path) -> None:
    p = run("scan", "messy", "-o", "out", "-q", "-v", cwd=messy)
    assert "doi-extract: INFO: 3 input files, 0 rejected" in p.stderr and "merged: 3 mentions" in p.stderr
    p = run("scan", "messy", "-o", "out2", "-q", "--log-level", "DEBUG", "-j", "1", cwd=messy)
    assert "DEBUG: shard 0" in p.stderr
    assert "INFO" not in run("scan", "messy", "-o", "out3", "-q", cwd=messy).stderr
    p = run("find", "-v", "messy", cwd=messy)
    assert "messy/notes.md: 2 DOIs" in p.stderr and "DEBUG" not in p.stderr
    debug = run("find", "--log-level", "DEBUG", "messy", cwd=messy).stderr
    assert (
        re.search(r"DEBUG: messy/notes\.md: 10\.\S+ at \d+", debug)
        and "INFO: messy/notes.md: 2 DOIs" in debug
    )
    assert run("find", "messy", cwd=messy).stderr == ""


def _complete(script: str, *words: str) -> list[str]:
    """What bash offers for the last of `words` after sourcing `script`."""
    line = " ".join(f"'{w}'" for w in words)
    probe = f'{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _doi_extract; printf "%s\\n" "${{COMPREPLY[@]}}"\n'
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completion_offers_commands_options_and_choices() -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    script = run("completion", "bash").stdout
    assert _complete(script, "doi-extract", "sc") == ["scan", "score"]
    assert _complete(script, "doi-extract", "find", "--sy") == ["--syntax"]
    assert _complete(script, "doi-extract", "find", "--syntax", "bi") == ["bibtex"]
    assert "--max-count" in _complete(script, "doi-extract", "find", "--m")


def test_zsh_completion_is_the_bash_function_through_bashcompinit() -> None:
    script = run("completion", "zsh").stdout
    assert (
        script.startswith("#compdef doi-extract\n")
        and "bashcompinit" in script
        and "_doi_extract()" in script
    )
    if shutil.which("zsh"):
        assert subprocess.run(["zsh", "-n", "-c", script], timeout=30).returncode == 0


def test_the_final_line_counts_inputs_in_the_bars_units(messy: Path) -> None:
    """The bar counts the inputs' bytes as stored and the inputs read; the last line says the
    same, with the text a compressed input held beside it."""
    import gzip

    (messy / "messy" / "big.txt.gz").write_bytes(gzip.compress(b"doi:10.1000/182 " * 100_000))
    p = run("scan", "messy", "-o", "out", "-j", "1", cwd=messy)
    stored = sum(f.stat().st_size for f in (messy / "messy").rglob("*") if f.is_file())
    text = stored - (messy / "messy" / "big.txt.gz").stat().st_size + 1_600_000
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith(
        f"doi-extract scan: 4 inputs, {stored / 1e6:.1f} MB ({text / 1e6:.1f} MB of text), "
    )
