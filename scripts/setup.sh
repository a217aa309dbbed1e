#!/usr/bin/env bash
# Installs what the build needs, idempotently: a project virtualenv (.venv/) holding
# torch==2.13.0 (the LibTorch that tch 0.26 links against), and cshogi==1.1.0 (a small wheel:
# the outside USI client of scripts/usi_cshogi_check.py). A second run does nothing.
# Prints the environment to export, for use as: eval "$(scripts/setup.sh)".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
torch_version="2.13.0"
cshogi_version="1.1.0"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating virtualenv $venv" >&2
  "$python" -m venv "$venv" >&2
fi
# Reads the installed version from the package metadata: importing torch takes seconds.
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(0 if m.version('torch').split('+')[0] == '$torch_version' else 1)" 2>/dev/null; then
  echo "setup: installing torch==$torch_version into $venv (one time, a few minutes)" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$torch_version" >&2
fi
# Only the slow USI check uses cshogi: the build goes on without it.
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(0 if m.version('cshogi') == '$cshogi_version' else 1)" 2>/dev/null; then
  echo "setup: installing cshogi==$cshogi_version into $venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "cshogi==$cshogi_version" >&2 \
    || echo "setup: could not install cshogi; the USI check through cshogi will be skipped" >&2
fi
echo "export LIBTORCH_USE_PYTORCH=1"
echo "export PYTHON_SYS_EXECUTABLE=\"$venv/bin/python\""
echo "export VIRTUAL_ENV=\"$venv\""
echo "export PATH=\"$venv/bin:\$PATH\""
