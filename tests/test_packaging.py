"""The frozen build's plan, every platform's branch checked here: the spec's executables, the Windows version
resource and icon, what is left out, and how the frozen window finds its engine. The build itself and the
frozen program are checked by tests/frozen (CI builds it on Linux)."""

from __future__ import annotations

import importlib.util
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
        self.datas: list[Any] = []
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
    assert not keep("PySide6\\Qt\\plugins\\sqldrivers\\qsqlite.dll".replace("\\", "/"))
    assert not keep("PySide6/Qt/plugins/tls/libqopensslbackend.so") and keep("PySide6/QtCore.abi3.so")
