"""What to install when Qt cannot load: the system library an ImportError names, and the Debian or Ubuntu package
that has it (a Windows or macOS Qt brings its own); and, before the window opens on a Linux desktop, what Qt's xcb
platform lacks (Qt itself would abort with its own words)."""

from __future__ import annotations

import ctypes
import os
import re
import sys
from pathlib import Path

# The libraries Qt's offscreen and xcb platforms load on Linux, and the packages they come in.
PACKAGES = {
    "libGL.so": "libgl1",
    "libEGL.so": "libegl1",
    "libxkbcommon.so": "libxkbcommon0",
    "libxkbcommon-x11.so": "libxkbcommon-x11-0",
    "libfontconfig.so": "libfontconfig1",
    "libdbus-1.so": "libdbus-1-3",
    "libglib-2.0.so": "libglib2.0-0",
    "libgthread-2.0.so": "libglib2.0-0",
    "libxcb-cursor.so": "libxcb-cursor0",
    "libxcb-icccm.so": "libxcb-icccm4",
    "libxcb-keysyms.so": "libxcb-keysyms1",
}
ALL = "libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0"


def display_problem() -> str | None:
    """Why Qt's xcb platform (a Linux desktop's) cannot load here, in words with the package to install; None when it
    can, or when the window shows on another platform."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM", "xcb").split(":")[0] != "xcb":
        return None
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    try:
        ctypes.CDLL(str(plugin))  # the loader names the first library it lacks; Qt would abort the process instead
    except OSError as exc:
        return missing_library_words(exc) if plugin.is_file() else None
    return None


def missing_library_words(exc: ImportError | OSError) -> str:
    """`exc` in words, with the package to install for the library it names (or every one Qt needs)."""
    found = re.search(r"(lib[\w.+-]+?\.so)(?:\.\d+)*", str(exc))
    package = PACKAGES.get(found.group(1)) if found else None
    install = package or ALL
    return (f"{found.group(0) if found else exc} is missing, a system library Qt needs: install it with "
            f"sudo apt-get install {install} (Debian, Ubuntu)")
