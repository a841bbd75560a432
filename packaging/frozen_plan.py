"""What the frozen Jetwise is made of, per platform: read by `jetwise.spec` and tested on any platform.

One folder holds everything. On Windows it has two executables sharing it: `jetwise.exe`, a console
program (the CLI: output in the console it was started from, exit codes a script can read, Ctrl-C), and
`jetwisew.exe`, a windowed one (the wizard, double-clicked or pinned: no console window behind it). A
Windows executable is one or the other when it is linked, as python.exe and pythonw.exe are. Both run
every command; the window's engine sub-process is the executable it was started from, so a window
opened by `jetwisew.exe` runs its engine without a console window, its streams piped to the window.
Elsewhere one `jetwise` does both. Nothing asks for administrator rights (`asInvoker`).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

NAME = "jetwise"
COMPANY = "Jetwise"
DESCRIPTION = "Jetwise: Exchange-style mailbox storage validation"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)

# Imported by nothing Jetwise runs, or only optionally (and left out to keep the folder small): Qt's modules
# beyond Core, Gui, Widgets, Svg and PrintSupport; toolkits pyqtgraph or numpy would take if present.
EXCLUDES = [
    "tkinter", "unittest", "pydoc_data", "lib2to3", "test",
    "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtSql", "PySide6.QtTest", "PySide6.QtDBus", "PySide6.QtXml",
    "PySide6.QtConcurrent", "PySide6.QtDesigner", "PySide6.QtHelp", "PySide6.QtUiTools", "PySide6.QtSvgWidgets",
    "PySide6.QtNetworkAuth", "PySide6.QtPdf", "PySide6.QtPdfWidgets",
    "matplotlib", "scipy", "pandas", "IPython", "cupy", "OpenGL", "h5py", "metaarray",
    "pyarrow",  # Parquet export is an optional extra: the frozen build says to use CSV instead
    "pytest", "hypothesis", "mypy", "vulture", "ruff", "xmlschema", "importlinter", "grimp",
]
# Qt plugins a run never loads: left out of the folder (the offscreen and xcb/windows platforms, the image
# formats and the SVG icon engine stay).
QT_PLUGINS_LEFT_OUT = ("qtwebengine", "sqldrivers", "multimedia", "position", "sensors", "texttospeech",
                       "qmltooling", "networkinformation", "tls", "designer", "scenegraph", "geometryloaders")


@dataclass(frozen=True)
class Executable:
    name: str
    console: bool


def executables(platform: str) -> list[Executable]:
    """The executables of the folder on `platform` (`sys.platform`)."""
    if platform == "win32":
        return [Executable(NAME, console=True), Executable(NAME + "w", console=False)]
    return [Executable(NAME, console=True)]


def version_numbers(version: str) -> tuple[int, int, int, int]:
    """"0.1.0" -> (0, 1, 0, 0): a Windows version resource holds four numbers (a pre-release's letters dropped)."""
    numbers = [int(found) for found in re.findall(r"\d+", version)[:4]]
    if not numbers:
        raise ValueError(f"no version number in {version!r}")
    return tuple([*numbers, 0, 0, 0, 0][:4])  # type: ignore[return-value]


def version_resource(version: str, executable: Executable) -> str:
    """The Windows version resource of one executable (what Explorer's Details tab shows), in the text form
    PyInstaller reads (`version=` a file of it; grab_version.py writes the same)."""
    numbers = version_numbers(version)
    description = DESCRIPTION if executable.console else DESCRIPTION + " (window)"
    strings = [("CompanyName", COMPANY), ("FileDescription", description), ("FileVersion", version),
               ("InternalName", executable.name), ("OriginalFilename", executable.name + ".exe"),
               ("ProductName", COMPANY), ("ProductVersion", version)]
    table = ",\n          ".join(f"StringStruct({key!r}, {value!r})" for key, value in strings)
    return f"""VSVersionInfo(
  ffi=FixedFileInfo(filevers={numbers!r}, prodvers={numbers!r}, mask=0x3f, flags=0x0, OS=0x40004,
                    fileType=0x1, subtype=0x0, date=(0, 0)),
  kids=[
    StringFileInfo([StringTable('040904B0', [
          {table}])]),
    VarFileInfo([VarStruct('Translation', [1033, 1200])])
  ]
)
"""


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .ico holding each size's PNG image (Windows Vista and later read PNG entries at every size)."""
    head = struct.pack("<HHH", 0, 1, len(pngs))
    entries, images = b"", b""
    offset = 6 + 16 * len(pngs)
    for size, png in sorted(pngs.items()):
        side = 0 if size >= 256 else size  # 0 stands for 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(images))
        images += png
    return head + entries + images


def write_icon(svg: Path, ico: Path, render: Callable[[Path, int], bytes]) -> Path:
    """The icon file made from the SVG at every size, `render(svg, size)` giving a PNG."""
    ico.parent.mkdir(parents=True, exist_ok=True)
    ico.write_bytes(ico_bytes({size: render(svg, size) for size in ICO_SIZES}))
    return ico


def qt_png(svg: Path, size: int) -> bytes:
    """The SVG drawn by Qt at `size` pixels square, as PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(["jetwise-build"])
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def keep_binary(destination: str) -> bool:
    """Whether a collected binary belongs in the folder (Qt plugins no run loads are left out)."""
    parts = Path(destination).parts
    if "plugins" in parts:
        after = parts[parts.index("plugins") + 1:]
        return not (after and after[0] in QT_PLUGINS_LEFT_OUT)
    return True
