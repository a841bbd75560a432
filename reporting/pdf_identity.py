"""A report's PDF is the same bytes whenever it is exported: dated by the run it records, named by its content.

Qt's PDF writer dates a document by the clock when it is written (in the information dictionary and in the XMP
metadata) and gives it a random identifier. A report is a record of its run, so its dates are the run's end and its
identifier is derived from what it shows; both are rewritten in place, dates padded to their length, so every object's
offset in the cross-reference table stays true."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime

# Qt writes "(D:20261126044117Z)" or, east or west of UTC, "(D:20261126054117+01'00')": never shorter than ours
_INFO_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9Z+\-']+\)")
# and "xmp:CreateDate="2026-11-26T04:41:17+00:00"" (or with a "Z"): never shorter than ours
_XMP_DATE = re.compile(rb'xmp:(CreateDate|ModifyDate|MetadataDate)="[0-9T:+\-Z]+"')
_DOCUMENT_ID = re.compile(rb'xmpMM:DocumentID="uuid:([0-9a-fA-F-]{36})"')
_NAMESPACE = uuid.UUID("3f1d5c1e-5a8e-4c44-9a53-6b0c2d7f9e10")  # Jetwise reports


def document_id(*parts: str) -> uuid.UUID:
    """The document's identifier: the same for the same content, different for any other."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    return uuid.uuid5(_NAMESPACE, digest)


def identified(pdf: bytes, document: uuid.UUID) -> bytes:
    """`pdf` with the identifier Qt gave it (in the XMP metadata, and hex-encoded in the trailer's /ID) replaced by
    `document`, the same length in either form. Qt's own setter came in Qt 6.8; this holds for every Qt Jetwise runs
    on. A PDF without Qt's identifier is left as it was."""
    found = _DOCUMENT_ID.search(pdf)
    if found is None:
        return pdf
    old, new = found.group(1), str(document).encode("ascii")
    for before, after in ((old, new), (old.hex().encode("ascii"), new.hex().encode("ascii")),
                          (old.hex().upper().encode("ascii"), new.hex().upper().encode("ascii"))):
        pdf = pdf.replace(before, after)
    return pdf


def dated(pdf: bytes, when: datetime) -> bytes:
    """`pdf` with its creation and modification dates, in the information dictionary and the XMP metadata, set to
    `when`, each padded with spaces to the length it had. A date Qt wrote shorter than ours is left as it was."""
    moment = when.astimezone(UTC)
    info = moment.strftime("%Y%m%d%H%M%SZ").encode("ascii")
    xmp = moment.strftime("%Y-%m-%dT%H:%M:%SZ").encode("ascii")

    def padded(new: bytes, old: bytes) -> bytes:
        return new + b" " * (len(old) - len(new)) if len(new) <= len(old) else old

    pdf = _INFO_DATE.sub(lambda m: padded(b"/%s (D:%s)" % (m.group(1), info), m.group(0)), pdf)
    return _XMP_DATE.sub(lambda m: padded(b'xmp:%s="%s"' % (m.group(1), xmp), m.group(0)), pdf)
