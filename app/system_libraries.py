"""What to install when Qt cannot load: the system library an ImportError names, and the Debian or Ubuntu package
that has it (a Windows or macOS Qt brings its own)."""

from __future__ import annotations

import re

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


def missing_library_words(exc: ImportError) -> str:
    """`exc` in words, with the package to install for the library it names (or every one Qt needs)."""
    found = re.search(r"(lib[\w.+-]+?\.so)(?:\.\d+)*", str(exc))
    package = PACKAGES.get(found.group(1)) if found else None
    install = package or ALL
    return (f"{found.group(0) if found else exc} is missing, a system library Qt needs: install it with "
            f"sudo apt-get install {install} (Debian, Ubuntu)")
