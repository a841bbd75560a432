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
