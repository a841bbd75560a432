"""A missing system library Qt needs is named with the package that has it."""

from __future__ import annotations

import pytest

from app.system_libraries import ALL, missing_library_words


@pytest.mark.parametrize(("error", "package"), [
    ("libGL.so.1: cannot open shared object file: No such file or directory", "libgl1"),
    ("libEGL.so.1: cannot open shared object file", "libegl1"),
    ("libxkbcommon.so.0: cannot open shared object file", "libxkbcommon0"),
    ("libxcb-cursor.so.0: cannot open shared object file", "libxcb-cursor0"),
])
def test_the_library_and_its_package_are_named(error, package):
    words = missing_library_words(ImportError(error))
    assert words.startswith(error.split(":")[0] + " is missing") and f"sudo apt-get install {package} " in words


def test_an_unknown_library_names_every_package_qt_needs():
    assert f"sudo apt-get install {ALL} " in missing_library_words(ImportError("libsomething.so.9: cannot open"))


def test_a_desktop_qt_cannot_show_the_window_on_is_said_with_its_package_before_qt_aborts(monkeypatch, capsys):
    """The xcb platform's libraries missing: Qt printed its own words and aborted the process; Jetwise says which
    package to install and exits, from the real loader's refusal of Qt's own xcb plugin."""
    import ctypes

    from app.cli import open_window
    from app.system_libraries import display_problem
    from engine.protocol import ExitCode

    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)

    def refused(path: str) -> None:  # as the loader refuses the plugin on a desktop without libxcb-cursor0
        assert path.endswith("libqxcb.so")
        raise OSError("libxcb-cursor.so.0: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(ctypes, "CDLL", refused)
    assert open_window() == ExitCode.ABORTED
    err = capsys.readouterr().err
    assert err.startswith("error: the window cannot start: libxcb-cursor.so.0 is missing") and "libxcb-cursor0" in err
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # another platform: nothing of xcb is asked
    assert display_problem() is None
