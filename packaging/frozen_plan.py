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
import shutil
import struct
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

NAME = "jetwise"
COMPANY = "Jetwise"
DESCRIPTION = "Jetwise: Exchange-style mailbox storage validation"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)

# Imported by nothing Jetwise runs, or only optionally (and left out to keep the folder small): Qt's modules
# beyond Core, Gui, Widgets, Svg, PrintSupport and OpenGL(Widgets) (pyqtgraph imports the last two when it is
# imported); toolkits pyqtgraph or numpy would take if present.
EXCLUDES = [
    "tkinter", "unittest", "pydoc_data", "lib2to3", "test",
    "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtSql", "PySide6.QtTest", "PySide6.QtDBus", "PySide6.QtXml",
    "PySide6.QtConcurrent", "PySide6.QtDesigner", "PySide6.QtHelp", "PySide6.QtUiTools", "PySide6.QtSvgWidgets",
    "PySide6.QtNetworkAuth", "PySide6.QtPdf", "PySide6.QtPdfWidgets",
    "matplotlib", "scipy", "pandas", "IPython", "cupy", "OpenGL", "h5py", "metaarray",
    "pyarrow",  # Parquet export is an optional extra: the frozen build says to use CSV instead
    "pytest", "hypothesis", "mypy", "vulture", "ruff", "xmlschema", "importlinter", "grimp",
    "rich", "pygments", "markdown_it",  # only pydantic's debugging printer of a schema imports them
    "readline",  # line editing of an interactive pdb or console, which no run opens
    "numpy.f2py",  # numpy's Fortran wrapper generator, a developer's tool
    # ssl and OpenSSL stay: a test across servers speaks mutual TLS (engine/hosts/tls.py)
]

# What a Qt plugin folder holds is found by Qt when it needs it; the plugins no run loads are left out, a whole
# folder at a time (its name is the same on every platform) ...
QT_PLUGINS_LEFT_OUT = {
    "qtwebengine": "no web view",
    "sqldrivers": "the store is Python's sqlite3, not QtSql",
    "multimedia": "no sound or video",
    "position": "no positioning",
    "sensors": "no sensors",
    "texttospeech": "no speech",
    "qmltooling": "no QML",
    "networkinformation": "no QtNetwork",
    "tls": "no QtNetwork",
    "designer": "Qt Designer's widgets",
    "scenegraph": "Qt Quick's",
    "geometryloaders": "Qt 3D's",
    "platformthemes": "GTK and desktop-portal themes: Qt's own dialogs and style serve, and the GTK one would take GTK, "
                      "cairo, pango and gio from the build machine to mix with the user's",
    "generic": "evdev and TUIO input, for the framebuffer platforms left out below (TUIO takes QtNetwork)",
    "egldeviceintegrations": "for the eglfs platform, left out below",
    "wayland-decoration-client": "for the wayland platform, left out below",
    "wayland-graphics-integration-client": "for the wayland platform, left out below",
    "wayland-shell-integration": "for the wayland platform, left out below",
}
# ... or one plugin of a folder that stays, by the name its file has on every platform (libqNAME.so, qNAME.dll,
# libqNAME.dylib). Staying: the platforms offscreen, minimal, xcb, windows and cocoa; the svg and ico image formats
# (Qt reads PNG itself); Windows' print support, the svg icon engine, input contexts, styles and xcb's GL
# integrations.
QT_PLUGIN_FILES_LEFT_OUT = {
    "platforms": {
        "wayland": "a Wayland desktop shows the window through XWayland and the xcb platform",
        "eglfs": "full-screen on an embedded GPU, without a desktop",
        "minimalegl": "a test platform for EGL",
        "linuxfb": "drawing straight to the Linux framebuffer, without a desktop",
        "vnc": "a window served over VNC (and it takes QtNetwork)",
        "vkkhrdisplay": "full-screen through Vulkan, without a desktop",
        "direct2d": "Windows drawn through Direct2D, only on request (QT_QPA_PLATFORM): the windows platform serves",
    },
    "imageformats": {name: "Jetwise and pyqtgraph read SVG and PNG only" for name in (
        "jpeg", "gif", "tiff", "webp", "icns", "tga", "wbmp", "pdf")},
    "printsupport": {
        "cupsprintersupport": "CUPS printers on Linux (it takes CUPS, GnuTLS and Kerberos from the build machine): "
                              "there the window prints to a PDF file; Windows keeps its printers",
    },
}
# Libraries no run loads, by name on every platform (libNAME.so.N, NAME.dll, libNAME.dylib): most are collected
# only because a plugin left out above links them.
LIBRARIES_LEFT_OUT = {
    **{name: "for the wayland and eglfs platforms" for name in (
        "Qt6WaylandClient", "Qt6WlShellIntegration", "Qt6EglFSDeviceIntegration", "Qt6EglFsKmsSupport")},
    "Qt6Network": "for the vnc platform and TUIO input (Jetwise's own modules never import QtNetwork)",
    **{name: "for the GTK platform theme" for name in (
        "gtk-3", "gdk-3", "atk-bridge-2.0", "atspi", "epoxy", "gdk_pixbuf-2.0", "atk-1.0", "pango-1.0",
        "pangocairo-1.0", "pangoft2-1.0", "harfbuzz", "fribidi", "thai", "datrie", "graphite2", "cairo",
        "cairo-gobject", "pixman-1", "Xrender", "Xext", "gio-2.0", "gobject-2.0", "gmodule-2.0", "mount", "blkid",
        "selinux", "jpeg")},
    **{name: "for the CUPS print support" for name in (
        "cups", "gnutls", "p11-kit", "idn2", "unistring", "tasn1", "nettle", "hogweed", "gmp", "avahi-client",
        "avahi-common", "gssapi_krb5", "krb5", "k5crypto", "krb5support", "com_err", "keyutils")},
    "opengl32sw": "Windows' software OpenGL, for an OpenGL context without a driver: Jetwise's widgets and plots "
                  "draw with Qt's raster engine",
    "d3dcompiler_47": "Windows' Direct3D shader compiler, for Qt Quick's scene graph",
}
# Data by where it goes in the folder.
FILE_SUFFIXES_LEFT_OUT = {
    ".qm": "Qt's translations of its own dialogs: Jetwise speaks English and installs no QTranslator",
}
FOLDERS_LEFT_OUT = {
    "pyqtgraph/icons/peegee": "pyqtgraph's logo, the window icon of its mkQApp(), which Jetwise does not call",
}


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


def is_pythons_own(destination: str) -> bool:
    """Whether a binary is Python's own (libpython and the extension modules of its standard library), built by
    Python's build: it may carry debug information (a Python built with -g, as pyenv builds it: 17 MB in
    libpython alone) but is never rewritten after linking, so strip can take what no run loads."""
    path = PurePosixPath(destination.replace("\\", "/"))
    return path.name.startswith("libpython") or "lib-dynload" in path.parts


def stripped(binaries: list[tuple[str, str, str]], work: Path, platform: str) -> list[tuple[str, str, str]]:
    """`binaries` (PyInstaller's (destination, source, kind)) with Python's own replaced by copies in `work`
    stripped of their symbols and debug information. The others stay as they are: a wheel's libraries are often
    rewritten by patchelf, and strip breaks them (numpy's OpenBLAS then fails to load: "ELF load command
    address/offset not page-aligned"), which is why PyInstaller's own strip option, on every binary, is not used.
    Windows DLLs keep no debug information (it is in .pdb files): nothing to do there, nor without strip."""
    if platform == "win32" or shutil.which("strip") is None:
        return binaries
    options = ["-S"] if platform == "darwin" else []  # macOS: debug symbols only, as PyInstaller does
    result = []
    for destination, source, kind in binaries:
        if kind in ("BINARY", "EXTENSION") and is_pythons_own(destination) and Path(source).is_file():
            copy = work / destination
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
            subprocess.run(["strip", *options, str(copy)], check=True, capture_output=True)
            source = str(copy)
        result.append((destination, source, kind))
    return result


def _library_name(file_name: str) -> str:
    """libQt6Network.so.6 and Qt6Network.dll -> Qt6Network; libgdk_pixbuf-2.0.so.0 -> gdk_pixbuf-2.0."""
    name = re.sub(r"\.(so(\.\d+)*|dll|dylib|pyd)$", "", file_name, flags=re.IGNORECASE)
    return name[3:] if name.startswith("lib") else name


def _plugin_name(file_name: str) -> str:
    """libqxcb.so, qwindows.dll, libqcocoa.dylib -> xcb, windows, cocoa."""
    name = _library_name(file_name)
    return name[1:] if name.startswith("q") else name


def keep_binary(destination: str) -> bool:
    """Whether a collected file, binary or data, belongs in the folder (`destination`: where it goes in it, with
    / or \\): what no run loads is left out (the lists above)."""
    path = PurePosixPath(destination.replace("\\", "/"))
    parts = path.parts
    if "plugins" in parts:
        after = parts[parts.index("plugins") + 1:]
        if after and after[0] in QT_PLUGINS_LEFT_OUT:
            return False
        if len(after) == 2 and _plugin_name(after[1]) in QT_PLUGIN_FILES_LEFT_OUT.get(after[0], {}):
            return False
    if path.suffix.lower() in FILE_SUFFIXES_LEFT_OUT or _library_name(path.name) in LIBRARIES_LEFT_OUT:
        return False
    return not any(path.as_posix().startswith(folder + "/") for folder in FOLDERS_LEFT_OUT)


def once_in_their_package(binaries: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """`binaries` without the copy at the folder's top of a library a wheel keeps in its own `<package>.libs`
    folder (delvewheel's on Windows, auditwheel's on Linux): the package loads it from there (numpy adds
    numpy.libs to the DLL search path, its extensions' RPATH names it), and PyInstaller's scan of their links
    collects it again at the top. On Linux that copy is a symbolic link; on Windows a second file, 38 MB for
    numpy's OpenBLAS."""
    def path(destination: str) -> PurePosixPath:
        return PurePosixPath(destination.replace("\\", "/"))

    packaged = {path(entry[0]).name.lower() for entry in binaries if path(entry[0]).parent.name.endswith(".libs")}
    return [entry for entry in binaries if len(path(entry[0]).parts) > 1 or path(entry[0]).name.lower() not in packaged]
