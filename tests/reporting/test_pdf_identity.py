"""A report's PDF is the same file whenever it is written: dated by the run's end, identified by its content, its
fonts in one order in every process; the dates are rewritten without moving any object."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import UTC, datetime

import pytest

from reporting.bundle import RunBundle
from reporting.pdf_identity import dated, document_id, identified
from tests.engine.test_report import _samples, known_result

ENDED = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def _xref_offsets_hold(pdf: bytes) -> bool:
    """Every object the cross-reference table lists starts where it says."""
    start = int(re.search(rb"startxref\s+(\d+)", pdf).group(1))
    table = pdf[start:].split(b"trailer")[0].split(b"\n")
    entries = [line.split() for line in table if re.fullmatch(rb"\d{10} \d{5} n ?", line)]
    objects = 0
    for number, entry in enumerate(entries, start=1):
        offset = int(entry[0])
        if not pdf[offset:].startswith(b"%d 0 obj" % number):
            return False
        objects += 1
    return objects > 0


def test_the_dates_qt_writes_in_any_zone_become_the_runs_end_padded_to_their_length():
    east = b"<< /CreationDate (D:20261126054117+01'00')\n/ModDate (D:20261126054117+01'00') >>"
    xmp = b'<x xmp:CreateDate="2026-11-26T05:41:17+01:00" xmp:ModifyDate="2026-11-26T05:41:17+01:00"/>'
    for original in (east, xmp):
        rewritten = dated(original, ENDED)
        assert len(rewritten) == len(original)
        assert b"2026-11-26" not in rewritten and b"20261126" not in rewritten
    assert b"/CreationDate (D:20260304050607Z)      \n" in dated(east, ENDED)
    assert b'xmp:CreateDate="2026-03-04T05:06:07Z"      xmp:ModifyDate=' in dated(xmp, ENDED)
    assert dated(b"/CreationDate (D:2026)", ENDED) == b"/CreationDate (D:2026)"  # shorter than ours: left as it was


def test_the_identifier_qt_drew_at_random_becomes_the_contents_in_both_its_forms():
    drawn = "17323748-ba69-48bc-9c61-9699b36ccee4"
    pdf = (b'<x xmpMM:DocumentID="uuid:%s" xmpMM:VersionID="1"/>\ntrailer << /ID [ <%s> <%s> ] >>'
           % (drawn.encode(), drawn.encode().hex().encode(), drawn.encode().hex().encode()))
    named = document_id("html", "a4")
    rewritten = identified(pdf, named)
    assert len(rewritten) == len(pdf) and drawn.encode() not in rewritten and drawn.encode().hex().encode() not in rewritten
    assert f'xmpMM:DocumentID="uuid:{named}"'.encode() in rewritten
    assert rewritten.count(str(named).encode().hex().encode()) == 2
    assert identified(b"%PDF-1.4 no metadata", named) == b"%PDF-1.4 no metadata"


def test_a_document_is_named_by_its_content():
    assert document_id("html", "a4") == document_id("html", "a4")
    assert len({document_id("html", "a4"), document_id("html", "letter"), document_id("html2", "a4")}) == 3


@pytest.mark.skipif(shutil.which("pdfinfo") is None, reason="pdfinfo (poppler-utils) is not installed")
def test_a_report_written_twice_is_the_same_file_dated_by_its_run(tmp_path, qapp):
    from ui.printing import write_pdf

    result = known_result(tmp_path)
    result.times.test_end_utc = ENDED
    bundle = RunBundle(result, _samples(), [], tmp_path)
    first, second = tmp_path / "first.pdf", tmp_path / "second.pdf"
    write_pdf(bundle, first, "a4")
    write_pdf(bundle, second, "a4")
    assert first.read_bytes() == second.read_bytes()
    assert _xref_offsets_hold(first.read_bytes())
    info = subprocess.run(["pdfinfo", "-isodates", str(first)], capture_output=True, text=True, check=True)
    assert re.findall(r"^(CreationDate|ModDate): +(\S+)$", info.stdout, re.M) == [
        ("CreationDate", "2026-03-04T05:06:07Z"), ("ModDate", "2026-03-04T05:06:07Z")]
    assert not info.stderr  # no repaired cross-reference table
    assert b'xmp:CreateDate="2026-03-04T05:06:07Z"' in first.read_bytes()
    write_pdf(bundle, second, "letter")
    assert re.search(rb"/ID \[ <([0-9a-f]+)>", first.read_bytes()).group(1) != re.search(
        rb"/ID \[ <([0-9a-f]+)>", second.read_bytes()).group(1)
