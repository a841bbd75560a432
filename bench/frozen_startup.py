"""The frozen Jetwise: folder size, time to `--version` and to the first window, against Jetwise from source.

    python packaging/build.py && python bench/frozen_startup.py [--frozen dist/jetwise] [--tries 5] [--json FILE]

- size: the folder's files (symbolic links not counted twice) and their count, and the installed size of what
  the build leaves out (packaging/frozen_plan.py: Qt plugins no run loads, pyarrow and other packages present
  here but not imported);
- `--version`: wall time of `jetwise --version`, frozen and from source (`python -m app --version`), alternated;
- first window: from starting `jetwise window` to its window being mapped on an X display (Xvfb, started here
  when there is no DISPLAY; xdotool asked for it every few milliseconds; Qt's xcb libraries must be installed),
  frozen and from source, alternated.
Medians of --tries. The reference, Jetwise from source on the same machine in the same run, is what an
engineer with Python installed would start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))

import frozen_plan as plan  # noqa: E402


def _bytes(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files), len(files)


def _left_out() -> int:
    """Installed bytes of what the build leaves out: Qt plugin folders and excluded packages present here."""
    import PySide6

    total = 0
    plugins = Path(PySide6.__file__).parent / "Qt" / "plugins"
    for name in plan.QT_PLUGINS_LEFT_OUT:
        if (plugins / name).is_dir():
            total += _bytes(plugins / name)[0]
    site = Path(PySide6.__file__).parents[1]
    for name in plan.EXCLUDES:
        if "." not in name and (site / name).is_dir():
            total += _bytes(site / name)[0]
    return total


def _version_s(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([*command, "--version"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("Jetwise"), done.stderr
    return time.perf_counter() - start


def _window_s(command: list[str], env: dict[str, str]) -> float:
    """Seconds from starting the window to its being mapped on the display."""
    start = time.perf_counter()
    window = subprocess.Popen([*command, "window"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while time.perf_counter() - start < 120:  # asked every few ms (xdotool's own --sync waits in half seconds)
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(window.pid)], env=env,
                                   capture_output=True, text=True, timeout=30)
            if found.returncode == 0 and found.stdout.strip():
                return time.perf_counter() - start
            assert window.poll() is None, f"the window ended before it showed: {window.communicate()[1]}"
        raise TimeoutError("no window within 120 s")
    finally:
        window.terminate()
        window.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frozen", type=Path, default=ROOT / "dist" / "jetwise")
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    program = args.frozen / ("jetwise.exe" if sys.platform == "win32" else "jetwise")
    if not program.is_file():
        print(f"error: no frozen Jetwise at {program}: python packaging/build.py first", file=sys.stderr)
        return 2
    home = Path(tempfile.mkdtemp(prefix="jetwise-start-"))
    env = dict(os.environ, JETWISE_DATA_DIR=str(home / "data"), HOME=str(home), XDG_CONFIG_HOME=str(home / "config"))
    env.pop("QT_QPA_PLATFORM", None)
    display = None
    if not env.get("DISPLAY") and shutil.which("Xvfb"):
        display = subprocess.Popen(["Xvfb", ":77", "-screen", "0", "1600x1000x24", "-noreset"], stderr=subprocess.DEVNULL)
        env["DISPLAY"] = ":77"
        while subprocess.run(["xdotool", "getmouselocation"], env=env, capture_output=True).returncode != 0:
            assert display.poll() is None, "Xvfb did not start"
            time.sleep(0.05)  # until the display answers; nothing measured depends on it
    commands = {"frozen": [str(program)], "source": [sys.executable, "-m", "app"]}
    timings: dict[str, dict[str, list[float]]] = {name: {"version": [], "window": []} for name in commands}
    try:
        for command in commands.values():  # one untimed start each: the disk cache warm for both alike
            _version_s(command, env)
        for _ in range(args.tries):
            for name, command in commands.items():
                timings[name]["version"].append(_version_s(command, env))
                if env.get("DISPLAY") and shutil.which("xdotool"):
                    timings[name]["window"].append(_window_s(command, env))
    finally:
        if display is not None:
            display.terminate()
        shutil.rmtree(home, ignore_errors=True)
    size, files = _bytes(args.frozen)
    row = {"folder_mb": size / 1e6, "files": files, "left_out_mb": _left_out() / 1e6}
    for name in commands:
        for what, values in timings[name].items():
            row[f"{name}_{what}_s"] = statistics.median(values) if values else None
    print(f"folder {row['folder_mb']:.0f} MB in {files:,} files; left out: {row['left_out_mb']:.0f} MB installed here")
    for what in ("version", "window"):
        frozen, source = row[f"frozen_{what}_s"], row[f"source_{what}_s"]
        if frozen is not None and source is not None:
            print(f"{what:>8}: frozen {frozen:.2f} s, from source {source:.2f} s, frozen / source {frozen / source:.2f}")
    if args.json:
        args.json.write_text(json.dumps(row, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
