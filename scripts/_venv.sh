# Shared by scripts/demo and scripts/test: create .venv if absent and install the package.
# Usage: VENV_EXTRA=test . scripts/_venv.sh   (installs the package with that extra)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
if [ ! -x "$ROOT/.venv/bin/python" ]; then
  "$PY" -m venv "$ROOT/.venv"
  "$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
fi
SPEC="$ROOT"
if [ -n "${VENV_EXTRA:-}" ]; then SPEC="$ROOT[$VENV_EXTRA]"; fi
LOG="$(mktemp)"
if ! "$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$SPEC" >"$LOG" 2>&1; then
  cat "$LOG" >&2
  rm -f "$LOG"
  exit 1
fi
rm -f "$LOG"
export PATH="$ROOT/.venv/bin:$PATH"
