# Shared by scripts/demo and scripts/test: create .venv if absent and install the package.
# Usage: VENV_EXTRA=test . scripts/_venv.sh   (installs the package with that extra)
# The installer is uv (from PyPI, into the venv): the test extra's 150 packages take it 40 s
# from an empty cache where pip takes 130 s from a full one; pip where uv cannot be had.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
if [ ! -x "$ROOT/.venv/bin/python" ]; then
  "$PY" -m venv "$ROOT/.venv"
fi
# venv_installer VENV: the command that installs packages into VENV (uv's, or pip's)
venv_installer() {
  local py="$1/bin/python"
  if "$py" -m uv --version >/dev/null 2>&1 ||
      "$py" -m pip install --quiet --disable-pip-version-check "uv>=0.4" >/dev/null 2>&1; then
    # bytecode compiled at install, as pip does: where PYTHONDONTWRITEBYTECODE is set, every
    # process would compile each module it imports again (pyarrow's: 40 ms a process)
    INSTALL=("$py" -m uv pip install --quiet --compile-bytecode --python "$py")
  else
    "$py" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    INSTALL=("$py" -m pip install --quiet --disable-pip-version-check)
  fi
}
SPEC="$ROOT"
if [ -n "${VENV_EXTRA:-}" ]; then SPEC="$ROOT[$VENV_EXTRA]"; fi
# The package is installed editable: Python changes need nothing, and the install (which
# compiles the C parts, 12 s) is done again only when the build's own files are newer than the
# last install with this extra.
STAMP="$ROOT/.venv/.installed-${VENV_EXTRA:-none}"
if [ ! -e "$STAMP" ] || [ -n "$(cd "$ROOT" && find pyproject.toml setup.py extractor \
    \( -name '*.c' -o -name '*.h' -o -name 'pyproject.toml' -o -name 'setup.py' \) -newer "$STAMP" | head -n 1)" ]; then
  venv_installer "$ROOT/.venv"
  LOG="$(mktemp)"
  # compat: the editable install is a path in a .pth file, as a regular install is found, not an
  # import hook that loads pathlib and importlib.util into every process (10 ms of each start)
  if ! "${INSTALL[@]}" -e "$SPEC" --config-settings editable_mode=compat >"$LOG" 2>&1; then
    cat "$LOG" >&2
    rm -f "$LOG"
    exit 1
  fi
  rm -f "$LOG"
  touch "$STAMP"
fi
export PATH="$ROOT/.venv/bin:$PATH"
