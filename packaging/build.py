"""Build the frozen Jetwise: `python packaging/build.py [--onefile]` (after `pip install ".[packaging]"`).

Makes dist/jetwise/ (one folder: `jetwise`, and on Windows `jetwise.exe` and `jetwisew.exe`), or with
--onefile dist/jetwise(.exe) as one file, and says what it made and how big it is. PyInstaller's work
folder (build/<platform>/pyinstaller) is kept between builds: a second build reuses what did not change, and the
Windows build of the same checkout (the Windows lane, under Wine) keeps its own.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import frozen_plan as plan  # noqa: E402


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onefile", action="store_true", help="one executable instead of one folder")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where it goes (default dist/)")
    parser.add_argument("--clean", action="store_true", help="forget what earlier builds cached")
    args = parser.parse_args(argv)
    try:
        import PyInstaller.__main__ as pyinstaller
    except ImportError:
        print('error: PyInstaller is missing: pip install ".[packaging]"', file=sys.stderr)
        return 2
    work = ROOT / "build" / sys.platform / ("pyinstaller-onefile" if args.onefile else "pyinstaller")
    if sys.platform == "win32":
        os.environ["JETWISE_ICON"] = str(plan.write_icon(ROOT / "resources" / "icons" / "jetwise.svg",
                                                         work / "jetwise.ico", plan.qt_png))
    os.environ["JETWISE_ONEFILE"] = "1" if args.onefile else "0"
    dist = args.dist / "onefile" if args.onefile else args.dist
    start = time.perf_counter()
    pyinstaller.run([str(HERE / "jetwise.spec"), "--noconfirm", "--log-level", "WARN", "--distpath", str(dist),
                     "--workpath", str(work), *(["--clean"] if args.clean else [])])
    made = dist / (plan.NAME + (".exe" if sys.platform == "win32" else "")) if args.onefile else dist / plan.NAME
    size = made.stat().st_size if made.is_file() else folder_bytes(made)
    print(f"Built {made} ({size / 1e6:.0f} MB) in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
