# Sourced by the other scripts: make ./.venv with the project and its test tools installed.
# Needs only Python 3.11+ on PATH (python3.11 or python3). The versions are the lock file's
# (requirements-test.lock: every package pinned with its hashes, made from the ranges of
# pyproject.toml by pip-compile; see its header to make it again). Re-installs when it or
# pyproject.toml changes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PY="$candidate"; break; fi
  done
fi
if [ -z "$PY" ] || ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "acwc-bot needs Python 3.11 or newer on PATH (python3.11 or python3)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
STAMP="$VENV/.installed"
LOCK="$ROOT/requirements-test.lock"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ] || [ "$LOCK" -nt "$STAMP" ]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$LOCK"
  # the project itself, on top of the locked packages (no dependency resolved again)
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT"
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
