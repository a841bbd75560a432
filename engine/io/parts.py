"""An instance's database files as one file: each I/O goes to the file its page number names.

An instance of several database files (Jetstress's DatabasePaths) numbers their pages in one space
(`PART_SHIFT`): a byte offset `page * PAGE_SIZE_BYTES` carries the file in its high bits.
The instance's threads, its flushers, its maintenance and a replay read and write through this one object, as
they do through a single file; no I/O crosses from one file into the next, as no page run does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoBackend, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES

# An instance with several database files numbers their pages in one space: the file's part in the high bits, its
# page in the low. A page's number says which file holds it; an instance of one file numbers its pages as they lie.
PART_SHIFT = 32


def part_base(part: int) -> int:
    """The number of page 0 of an instance's database file `part` (0 for its first)."""
    return part << PART_SHIFT


def split_page(number: int) -> tuple[int, int]:
    """(the file's part, its page in that file) of a page number in an instance's space."""
    return number >> PART_SHIFT, number & ((1 << PART_SHIFT) - 1)


def page_words(number: int) -> str:
    """A page as an engineer reads it: "page 12", or "page 12 of database file 2"."""
    part, page = split_page(number)
    return f"page {page:,}" if part == 0 else f"page {page:,} of database file {part + 1}"


_OFFSET_SHIFT = PART_SHIFT + (PAGE_SIZE_BYTES.bit_length() - 1)
_OFFSET_MASK = (1 << _OFFSET_SHIFT) - 1


class DatabaseParts(IoFile):
    """Several open database files, addressed as one."""

    def __init__(self, files: list[IoFile]) -> None:
        self._files = files
        self.path = files[0].path

    def part_at(self, offset: int) -> tuple[IoFile, int]:
        return self._files[offset >> _OFFSET_SHIFT], offset & _OFFSET_MASK

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._files[offset >> _OFFSET_SHIFT].read_into(buffer, offset & _OFFSET_MASK, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._files[offset >> _OFFSET_SHIFT].write_from(buffer, offset & _OFFSET_MASK, length)

    def reader(self, buffer: AlignedBuffer) -> Callable[[int], int]:
        readers = [file.reader(buffer) for file in self._files]
        return lambda offset: readers[offset >> _OFFSET_SHIFT](offset & _OFFSET_MASK)

    def size_bytes(self) -> int:
        """The first file's length: a read's end is checked against the file it lands in (`part_at`)."""
        return self._files[0].size_bytes()

    def flush(self) -> None:
        for file in self._files:
            file.flush()

    def close(self) -> None:
        for file in self._files:
            file.close()


def open_database(backend: IoBackend, paths: list[Path], *, writable: bool, unbuffered: bool) -> IoFile:
    """An instance's database files opened as one: the file itself when it has one."""
    files: list[IoFile] = []
    try:
        for path in paths:
            files.append(backend.open_file(path, create=False, writable=writable, unbuffered=unbuffered,
                                           write_through=False))
    except BaseException:
        for file in files:
            file.close()
        raise
    return files[0] if len(files) == 1 else DatabaseParts(files)
