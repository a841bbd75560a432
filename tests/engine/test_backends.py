"""Backends: POSIX for real here; Windows pieces that need no kernel32 (flags, offsets, alignment, errors)."""

from __future__ import annotations

import errno
import os
import sys

import pytest

from engine.io.platform import AlignedBuffer
from engine.io.platform import windows as win
from engine.io.platform.posix import PosixBackend, filesystem_type, open_flags


def test_posix_flags_are_direct_and_never_truncate():
    flags = open_flags(create=True, writable=True, unbuffered=True, write_through=True)
    assert flags & os.O_TRUNC == 0
    assert flags & os.O_CREAT and flags & os.O_EXCL
    if hasattr(os, "O_DIRECT"):
        assert flags & os.O_DIRECT
    assert flags & getattr(os, "O_DSYNC", os.O_SYNC)
    read_only = open_flags(create=False, writable=False, unbuffered=True, write_through=False)
    assert read_only & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) == 0


def test_posix_create_refuses_an_existing_file(tmp_path):
    path = tmp_path / "exists"
    path.write_bytes(b"x")
    with pytest.raises(FileExistsError):
        PosixBackend().open_file(path, create=True, writable=True, unbuffered=False, write_through=False)
    assert path.read_bytes() == b"x"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_DIRECT is Linux's")
def test_unbuffered_round_trip_and_misaligned_io_is_refused(tmp_path):
    backend = PosixBackend()
    if not backend.probe_unbuffered(tmp_path).supported:
        pytest.skip("this file system refuses O_DIRECT")
    buffer = backend.allocate(8192)
    buffer.view[:] = os.urandom(8192)
    expected = bytes(buffer.view)
    with backend.open_file(tmp_path / "f", create=True, writable=True, unbuffered=True, write_through=True) as handle:
        handle.write_from(buffer, 4096)
        buffer.view[:] = bytes(8192)
        handle.read_into(buffer, 4096)
        assert bytes(buffer.view) == expected
        with pytest.raises(OSError) as info:
            handle.read_into(buffer, 100)  # not sector-aligned: the kernel refuses under O_DIRECT
        assert info.value.errno == errno.EINVAL


def test_probe_leaves_no_file_behind(tmp_path):
    probe = PosixBackend().probe_unbuffered(tmp_path)
    assert probe.detail
    assert list(tmp_path.iterdir()) == []


def test_filesystem_type_is_known_for_the_root():
    if sys.platform.startswith("linux"):
        assert filesystem_type(__import__("pathlib").Path("/")) != ""


def test_aligned_buffers_are_page_aligned():
    buffer = AlignedBuffer(3 * 4096)
    assert buffer.address % 4096 == 0
    with pytest.raises(ValueError):
        AlignedBuffer(1000)


def test_windows_flags_compose_no_buffering_and_write_through():
    flags = win.create_flags(unbuffered=True, write_through=True)
    assert flags & win.FILE_FLAG_NO_BUFFERING and flags & win.FILE_FLAG_WRITE_THROUGH
    assert win.create_flags(unbuffered=False, write_through=False) == win.FILE_ATTRIBUTE_NORMAL
    assert win.create_flags(unbuffered=True, write_through=False, random_access=True) == (
        win.FILE_ATTRIBUTE_NORMAL | win.FILE_FLAG_NO_BUFFERING | win.FILE_FLAG_RANDOM_ACCESS
    )
    assert win.desired_access(writable=False) == win.GENERIC_READ
    assert win.desired_access(writable=True) == win.GENERIC_READ | win.GENERIC_WRITE


def test_windows_never_truncates():
    assert win.creation_disposition(create=True) == win.CREATE_NEW
    assert win.creation_disposition(create=False) == win.OPEN_EXISTING


@pytest.mark.parametrize(
    ("offset", "low", "high"), [(0, 0, 0), (32768, 32768, 0), (5 * 2**32 + 4096, 4096, 5), (2**64 - 1, 2**32 - 1, 2**32 - 1)]
)
def test_windows_offsets_split_into_overlapped_dwords(offset, low, high):
    assert win.split_offset(offset) == (low, high)
    ov = win.overlapped_at(offset)
    assert (ov.Offset, ov.OffsetHigh) == (low, high)


def test_windows_offset_out_of_range():
    with pytest.raises(ValueError):
        win.split_offset(-1)


def test_windows_alignment_rules():
    win.check_alignment(offset=8192, length=32768, address=4096 * 7, sector_bytes=4096)
    with pytest.raises(ValueError, match="offset"):
        win.check_alignment(offset=512, length=4096, address=0, sector_bytes=4096)
    with pytest.raises(ValueError, match="buffer address"):
        win.check_alignment(offset=0, length=4096, address=100, sector_bytes=512)
    with pytest.raises(ValueError, match="power of two"):
        win.check_alignment(offset=0, length=0, address=0, sector_bytes=600)
    assert win.effective_alignment(512) == 4096 and win.effective_alignment(8192) == 8192


@pytest.mark.parametrize(
    ("code", "err", "words"),
    [
        (win.ERROR_INVALID_PARAMETER, errno.EINVAL, "not sector-aligned"),
        (win.ERROR_DISK_FULL, errno.ENOSPC, "disk is full"),
        (win.ERROR_ACCESS_DENIED, errno.EACCES, "access is denied"),
        (win.ERROR_FILE_EXISTS, errno.EEXIST, "already exists"),
        (win.ERROR_IO_DEVICE, errno.EIO, "I/O error"),
        (win.ERROR_CRC, errno.EIO, "could not read the data back as written: a CRC data error"),
        (9999, errno.EIO, "Windows error 9999"),
    ],
)
def test_windows_errors_map_to_errno_and_words(code, err, words):
    error = win.map_error(code, r"F:\DB1\Jetwise001.jwdb", "write")
    assert error.errno == err and words in error.strerror and error.filename == r"F:\DB1\Jetwise001.jwdb"
    assert error.winerror == code
