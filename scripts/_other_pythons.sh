# Part of scripts/test: the portable core of the suite on every other CPython this machine has
# (3.12, 3.13: pyenv's or the system's), and on Python 3.11 with the lowest dependency versions
# pyproject.toml declares (constraints-min.txt) — issue 13. Each in its own venv, made once.
# Usage: . scripts/_other_pythons.sh   (from scripts/test, with ROOT set)
set -euo pipefail
# The tests that exercise what differs between Pythons and dependency versions: the matcher and
# its C port, the CLI, record readers (JSONL, Parquet, compressed), encodings and whole scans.
# (The CLI's subprocess tests are many; a few of them stand for the rest here.)
CORE=(tests/test_spec.py tests/test_records.py tests/test_encodings.py tests/test_scan.py tests/test_cli.py tests/test_input_type.py tests/test_derive.py
      -k "not killed and not demo and not ctrl_c and (not test_cli or records or stdin or tsv_and_jsonl or compressed or line_numbers)")

core_run() {  # core_run NAME PYTHON [pip args…]
  local name="$1" py="$2"
  shift 2
  local venv="$ROOT/.venv-$name" log
  log="$(mktemp)"
  local INSTALL
  if "$ROOT/.venv/bin/python" -m uv --version >/dev/null 2>&1; then
    # the main venv's uv installs into this one, which then needs no pip of its own (bootstrapping
    # pip and uv into each venv cost 11 s of a core apiece); bytecode is compiled as the tests
    # import it (they import a part of what is installed)
    [ -x "$venv/bin/python" ] || "$py" -m venv --without-pip "$venv"
    INSTALL=("$ROOT/.venv/bin/python" -m uv pip install --quiet --python "$venv/bin/python")
  else
    [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
    venv_installer "$venv"  # scripts/_venv.sh's: uv, or pip
  fi
  if ! "${INSTALL[@]}" "$@" -e "$ROOT" "pytest>=7" "hypothesis>=6" "pytest-timeout>=2.2" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  echo "== $name: $("$venv/bin/python" -c 'import sys, pyarrow, zstandard, tqdm; print(sys.version.split()[0], "pyarrow", pyarrow.__version__, "zstandard", zstandard.__version__, "tqdm", tqdm.__version__)')"
  # a temporary folder of its own: runs side by side never share pytest's numbered ones
  local tmp rc=0
  tmp="$(mktemp -d)"
  (cd "$ROOT" && PATH="$venv/bin:$PATH" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    --basetemp "$tmp/t" "${MARK[@]}" "${CORE[@]}") || rc=$?
  rm -rf "$tmp"
  return "$rc"
}

find_python() {  # find_python 3.12: an interpreter of that version, or nothing
  local v="$1" py
  # pyenv's shims answer only for the selected versions: its own installs are asked directly
  if command -v pyenv >/dev/null; then
    for py in "$(pyenv root)"/versions/"$v".*/bin/python"$v"; do
      if [ -x "$py" ]; then echo "$py"; return; fi
    done
  fi
  py="$(command -v "python$v" || true)"
  if [ -n "$py" ] && "$py" -c 'import sys' 2>/dev/null; then echo "$py"; fi
}

# The three runs go side by side (they are independent, and the machine's cores are idle after
# the main suite); each one's output is shown whole when it ends.
LOGS="$(mktemp -d)"
pids=()
names=()
for v in 3.12 3.13; do
  py="$(find_python "$v")"
  if [ -n "$py" ]; then
    core_run "py$v" "$py" >"$LOGS/py$v" 2>&1 &
    pids+=($!)
    names+=("py$v")
  else
    echo "== python$v: not on this machine, not tested"
  fi
done
core_run min "${PYTHON:-python3}" -c "$ROOT/constraints-min.txt" >"$LOGS/min" 2>&1 &
pids+=($!)
names+=(min)
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then failed=1; fi
  cat "$LOGS/${names[$i]}"
done
rm -rf "$LOGS"
[ "$failed" = 0 ] || { echo "== the portable core failed on another Python or with the lowest versions" >&2; exit 1; }
