"""The frozen build's plan, every platform's branch checked here: the spec's executables, the Windows version
resource and icon, what is left out, and how the frozen window finds its engine. The build itself and the
frozen program are checked by tests/frozen (CI builds it on Linux)."""

from __future__ import annotations

import importlib.util
import shutil
import struct
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "jetwise.spec"


def _plan() -> ModuleType:
    spec = importlib.util.spec_from_file_location("frozen_plan", ROOT / "packaging" / "frozen_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["frozen_plan"] = module  # as the spec imports it
    spec.loader.exec_module(module)
    return module


plan = _plan()


class _Recorded:
    """A PyInstaller building block as the spec calls it: what it was given."""

    made: ClassVar[list[tuple[str, tuple[Any, ...], dict[str, Any]]]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs
        self.made.append((type(self).__name__, args, kwargs))
        self.binaries = [("PySide6/Qt/plugins/platforms/libqoffscreen.so", "x", "BINARY"),
                         ("PySide6/Qt/plugins/sqldrivers/libqsqlite.so", "x", "BINARY"), ("libpython3.so", "x", "BINARY")]
        self.datas = [("PySide6/Qt/translations/qtbase_de.qm", "x", "DATA"), ("resources/icons/jetwise.svg", "x", "DATA")]
        self.pure: list[Any] = []
        self.scripts: list[Any] = []


def _built(monkeypatch: pytest.MonkeyPatch, platform: str, work: Path,
           onefile: bool = False) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """What the spec builds on `platform`, run with PyInstaller's building blocks recorded (its work folder `work`)."""
    from PyInstaller.utils import hooks

    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(hooks, "collect_submodules", lambda name: [name])
    monkeypatch.setattr(hooks, "collect_data_files", lambda name, includes: [(name, name)])
    monkeypatch.setenv("JETWISE_ONEFILE", "1" if onefile else "0")
    monkeypatch.setenv("JETWISE_ICON", "C:\\build\\jetwise.ico")
    monkeypatch.setattr(sys, "path", list(sys.path))
    _Recorded.made = []
    kinds = {name: type(name, (_Recorded,), {}) for name in ("Analysis", "PYZ", "EXE", "COLLECT")}
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"),
         {"SPECPATH": str(SPEC.parent), "workpath": str(work), **kinds})
    return _Recorded.made


def test_windows_gets_a_console_jetwise_and_a_windowed_jetwisew_in_one_folder(monkeypatch, tmp_path):
    made = _built(monkeypatch, "win32", tmp_path)
    exes = [kwargs for kind, _args, kwargs in made if kind == "EXE"]
    assert [(e["name"], e["console"]) for e in exes] == [("jetwise", True), ("jetwisew", False)]
    assert all(e["uac_admin"] is False and e["icon"] == "C:\\build\\jetwise.ico" for e in exes)
    versions = [_resource(Path(e["version"]).read_text(encoding="utf-8")) for e in exes]
    assert [v["strings"]["OriginalFilename"] for v in versions] == ["jetwise.exe", "jetwisew.exe"]
    [collect] = [(args, kwargs) for kind, args, kwargs in made if kind == "COLLECT"]
    assert collect[1]["name"] == "jetwise" and sum(1 for a in collect[0] if type(a).__name__ == "EXE") == 2
    [analysis] = [kwargs for kind, _args, kwargs in made if kind == "Analysis"]
    assert "pyarrow" in analysis["excludes"] and "PySide6.QtNetwork" in analysis["excludes"]


def test_linux_gets_one_jetwise_without_windows_resources_and_the_unused_qt_plugins_left_out(monkeypatch, tmp_path):
    made = _built(monkeypatch, "linux", tmp_path)
    exes = [kwargs for kind, _args, kwargs in made if kind == "EXE"]
    assert [(e["name"], e["console"], e["version"], e["icon"]) for e in exes] == [("jetwise", True, None, None)]
    [collect] = [args for kind, args, _kwargs in made if kind == "COLLECT"]
    binaries = [name for name, *_rest in collect[1]]
    assert binaries == ["PySide6/Qt/plugins/platforms/libqoffscreen.so", "libpython3.so"]  # no SQL drivers
    assert [name for name, *_rest in collect[2]] == ["resources/icons/jetwise.svg"]  # no translations


def test_one_file_is_one_executable_holding_everything(monkeypatch, tmp_path):
    made = _built(monkeypatch, "win32", tmp_path, onefile=True)
    assert [kind for kind, _args, _kwargs in made] == ["Analysis", "PYZ", "EXE"]
    [(_kind, args, kwargs)] = [m for m in made if m[0] == "EXE"]
    assert kwargs["console"] is True and "exclude_binaries" not in kwargs and len(args) == 5


def _resource(text: str) -> dict[str, Any]:
    """A version resource's text read as PyInstaller reads it (an expression of its versioninfo classes), into
    its numbers and strings."""
    def record(kind: str) -> Any:
        return lambda *args, **kwargs: (kind, args, kwargs)

    names = ("VSVersionInfo", "FixedFileInfo", "StringFileInfo", "StringTable", "StringStruct", "VarFileInfo", "VarStruct")
    _kind, _args, top = eval(text, {"__builtins__": {}}, {name: record(name) for name in names})
    fixed = top["ffi"][2]
    [string_info, var_info] = top["kids"]
    [(_t, (language, strings), _k)] = string_info[1][0]
    return {"filevers": fixed["filevers"], "prodvers": fixed["prodvers"], "language": language,
            "strings": {key: value for _s, (key, value), _k in strings}, "translation": var_info[1][0][0][1]}


def test_the_version_resource_holds_four_numbers_and_the_names():
    assert plan.version_numbers("0.1.0") == (0, 1, 0, 0)
    assert plan.version_numbers("2.10.3.7.9") == (2, 10, 3, 7)
    with pytest.raises(ValueError, match="no version number"):
        plan.version_numbers("dev")
    resource = _resource(plan.version_resource("1.4.2", plan.Executable("jetwisew", console=False)))
    assert resource["filevers"] == resource["prodvers"] == (1, 4, 2, 0)
    assert resource["strings"] == {
        "CompanyName": "Jetwise", "FileDescription": "Jetwise: Exchange-style mailbox storage validation (window)",
        "FileVersion": "1.4.2", "InternalName": "jetwisew", "OriginalFilename": "jetwisew.exe", "ProductName": "Jetwise",
        "ProductVersion": "1.4.2"}
    assert resource["language"] == "040904B0" and resource["translation"] == ("Translation", [1033, 1200])


def test_the_icon_holds_every_size_as_png_and_qt_reads_it(qapp, tmp_path):
    from PySide6.QtGui import QImageReader

    ico = plan.write_icon(ROOT / "resources" / "icons" / "jetwise.svg", tmp_path / "jetwise.ico", plan.qt_png)
    data = ico.read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind, count) == (0, 1, len(plan.ICO_SIZES))
    sides = []
    for index in range(count):
        side, _h, _c, _r, _planes, _bits, size, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * index)
        assert data[offset:offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + size <= len(data)
        sides.append(side or 256)
    assert sides == list(plan.ICO_SIZES)
    reader = QImageReader(str(ico))
    assert reader.imageCount() == count and not reader.read().isNull()


def test_the_frozen_window_on_windows_runs_its_engine_through_the_console_executable_beside_it(tmp_path):
    from ui.controllers.engine_process import engine_command

    windowed, console = tmp_path / "jetwisew.exe", tmp_path / "jetwise.exe"
    windowed.write_bytes(b"")
    assert engine_command(str(windowed), frozen=True) == (str(windowed), [])  # no console one: itself
    console.write_bytes(b"")
    assert engine_command(str(windowed), frozen=True) == (str(console), [])
    assert engine_command(str(console), frozen=True) == (str(console), [])
    assert engine_command(str(tmp_path / "jetwise"), frozen=True) == (str(tmp_path / "jetwise"), [])  # Linux
    assert engine_command("/usr/bin/python3", frozen=False) == ("/usr/bin/python3", ["-m", "app"])


def test_qt_plugins_no_run_loads_are_left_out():
    keep = plan.keep_binary
    assert keep("PySide6/Qt/plugins/platforms/qwindows.dll") and keep("PySide6/Qt/plugins/imageformats/qsvg.dll")
    assert not keep("PySide6\\Qt\\plugins\\sqldrivers\\qsqlite.dll")
    assert not keep("PySide6/Qt/plugins/tls/libqopensslbackend.so") and keep("PySide6/QtCore.abi3.so")


@pytest.mark.parametrize("destination", [
    # the platforms a run starts (offscreen: no display, the CLI's PDF; xcb, windows, cocoa: a desktop; minimal)
    "PySide6/Qt/plugins/platforms/libqoffscreen.so", "PySide6/Qt/plugins/platforms/libqxcb.so",
    "PySide6/Qt/plugins/platforms/libqminimal.so", "PySide6\\plugins\\platforms\\qwindows.dll",
    "PySide6\\plugins\\platforms\\qoffscreen.dll", "PySide6/Qt/plugins/platforms/libqcocoa.dylib",
    "PySide6/Qt/plugins/imageformats/libqsvg.so", "PySide6\\plugins\\imageformats\\qico.dll",
    "PySide6/Qt/plugins/iconengines/libqsvgicon.so", "PySide6\\plugins\\printsupport\\windowsprintersupport.dll",
    "PySide6\\plugins\\styles\\qmodernwindowsstyle.dll", "PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so",
    "PySide6/Qt/plugins/platforminputcontexts/libcomposeplatforminputcontextplugin.so",
    # Qt's libraries a run loads, pyqtgraph's OpenGL bindings among them, and the xcb platform's X libraries
    "PySide6/Qt/lib/libQt6Core.so.6", "libQt6Gui.so.6", "PySide6\\Qt6Widgets.dll", "PySide6/Qt/lib/libQt6OpenGL.so.6",
    "PySide6/QtOpenGL.abi3.so", "PySide6\\QtOpenGLWidgets.pyd", "PySide6/Qt/lib/libQt6XcbQpa.so.6", "libxcb-cursor.so.0",
    "PySide6/Qt/lib/libicudata.so.73", "libglib-2.0.so.0", "libfreetype.so.6", "libdbus-1.so.3",
    # Python's own, and Jetwise's and pyqtgraph's data
    "libpython3.11.so.1.0", "python3.11/lib-dynload/_sha512.cpython-311-x86_64-linux-gnu.so", "python311.dll",
    "resources/icons/jetwise.svg", "resources/templates/report.html.j2", "pyqtgraph/icons/auto.png",
    "pyqtgraph/colors/maps/viridis.csv", "base_library.zip",
])
def test_what_a_run_loads_stays(destination):
    assert plan.keep_binary(destination)


@pytest.mark.parametrize("destination", [
    # Qt's translations, wherever the wheel keeps them (Linux and macOS under Qt/, Windows beside the DLLs)
    "PySide6/Qt/translations/qtbase_de.qm", "PySide6\\translations\\qt_help_ja.qm",
    # Windows' software OpenGL and Direct3D shader compiler
    "PySide6\\opengl32sw.dll", "opengl32sw.dll", "PySide6\\d3dcompiler_47.dll",
    # platforms without a desktop, and what only they need
    "PySide6/Qt/plugins/platforms/libqwayland.so", "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so", "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so", "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6\\plugins\\platforms\\qdirect2d.dll",
    "PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so", "PySide6/Qt/plugins/egldeviceintegrations/libqeglfs-x11-integration.so",
    "PySide6/Qt/plugins/generic/libqtuiotouchplugin.so", "PySide6\\plugins\\generic\\qtuiotouchplugin.dll",
    "PySide6/Qt/lib/libQt6WaylandClient.so.6", "libQt6EglFSDeviceIntegration.so.6",
    "PySide6/Qt/lib/libQt6Network.so.6", "PySide6\\Qt6Network.dll",
    # the GTK platform theme and the GTK, cairo, pango and gio it drags in
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so", "PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so",
    "libgtk-3.so.0", "libcairo.so.2", "libpango-1.0.so.0", "libgdk_pixbuf-2.0.so.0", "libgio-2.0.so.0", "libharfbuzz.so.0",
    # image formats Jetwise never reads, and CUPS with what it takes
    "PySide6/Qt/plugins/imageformats/libqjpeg.so", "PySide6\\plugins\\imageformats\\qtiff.dll",
    "PySide6/Qt/plugins/imageformats/libqwebp.so", "PySide6/Qt/plugins/printsupport/libcupsprintersupport.so",
    "libcups.so.2", "libgnutls.so.30", "libkrb5.so.3",
    # pyqtgraph's logo
    "pyqtgraph/icons/peegee/peegee_512px.png", "pyqtgraph\\icons\\peegee\\peegee.svg",
])
def test_what_no_run_loads_is_left_out(destination):
    assert not plan.keep_binary(destination)


def test_every_left_out_item_says_why():
    reasons = [*plan.QT_PLUGINS_LEFT_OUT.values(), *plan.LIBRARIES_LEFT_OUT.values(), *plan.FILE_SUFFIXES_LEFT_OUT.values(),
               *plan.FOLDERS_LEFT_OUT.values(), *(r for files in plan.QT_PLUGIN_FILES_LEFT_OUT.values() for r in files.values())]
    assert reasons and all(isinstance(reason, str) and len(reason) > 5 for reason in reasons)
    assert {"rich", "pygments"} <= set(plan.EXCLUDES)
    assert not {"ssl", "_hashlib"} & set(plan.EXCLUDES)  # a test across servers speaks mutual TLS
    assert "PySide6.QtOpenGL" not in plan.EXCLUDES and "PySide6.QtOpenGLWidgets" not in plan.EXCLUDES  # pyqtgraph's


def test_pythons_own_binaries_are_stripped_and_the_wheels_libraries_left_as_they_are(tmp_path):
    import _json

    own = Path(_json.__file__)
    wheel = tmp_path / "libscipy_openblas64_.so"
    wheel.write_bytes(own.read_bytes())
    binaries = [(f"python3.11/lib-dynload/{own.name}", str(own), "EXTENSION"),
                ("numpy.libs/libscipy_openblas64_.so", str(wheel), "BINARY"),
                ("libpython3.11.so.1.0", "libpython3.11.so.1.0", "SYMLINK")]
    assert plan.stripped(binaries, tmp_path / "work", "win32") == binaries  # Windows DLLs carry no debug information
    if shutil.which("strip") is None or sys.platform == "win32":
        pytest.skip("no strip here")
    made = plan.stripped(binaries, tmp_path / "work", sys.platform)
    assert made[1:] == binaries[1:]
    destination, source, kind = made[0]
    assert (destination, kind) == binaries[0][::2] and Path(source) == tmp_path / "work" / destination
    assert Path(source).read_bytes()[:4] == own.read_bytes()[:4] and Path(source).stat().st_size <= own.stat().st_size
    assert plan.is_pythons_own("libpython3.11.so.1.0") and plan.is_pythons_own("python3.11\\lib-dynload\\_ctypes.so")
    assert not plan.is_pythons_own("numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so")


def test_a_wheels_own_library_is_kept_once_in_its_package_folder():
    blas = "libopenblas64__v0.3.23-gcc_10_3_0.dll"
    binaries = [(blas, "C:/site/numpy.libs/" + blas, "BINARY"), ("numpy.libs\\" + blas, "C:/site/numpy.libs/" + blas, "BINARY"),
                ("numpy/_core/_multiarray_umath.cp312-win_amd64.pyd", "C:/x.pyd", "EXTENSION"),
                ("python312.dll", "C:/py/python312.dll", "BINARY")]
    assert plan.once_in_their_package(binaries) == binaries[1:]
    linux = [("libscipy_openblas64_-32a4b2a6.so", "/site/numpy.libs/libscipy_openblas64_-32a4b2a6.so", "BINARY"),
             ("numpy.libs/libscipy_openblas64_-32a4b2a6.so", "/site/numpy.libs/libscipy_openblas64_-32a4b2a6.so", "BINARY"),
             ("libpython3.11.so.1.0", "/py/lib/libpython3.11.so.1.0", "BINARY")]
    assert plan.once_in_their_package(linux) == linux[1:]
