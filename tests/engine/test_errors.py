"""I/O errors of a named kind: how they are counted, merged, sent between processes and shown in the test log."""

from __future__ import annotations

from engine.io.pages import ErrorKind
from engine.results.counters import Counters
from engine.workload.errors import ErrorLines, ErrorTally, IoProblem
from engine.workload.stats import InstanceInterval


def _bad_page(number: int, kind: ErrorKind = ErrorKind.CHECKSUM) -> IoProblem:
    return IoProblem(kind, "db_read", "/data/Jetwise001.jwdb", "page", number, number * 32768)


def test_the_log_shows_each_bad_block_once_a_bounded_number_and_the_first_of_every_kind():
    lines: list[tuple[str, str]] = []
    shown = ErrorLines(lambda text, level: lines.append((text, level)), limit=5)
    firsts = [shown.note("Instance 1", _bad_page(page)) for page in (1, 1, 2, 3, 4, 5, 6, 7)]
    assert firsts == [True] + [False] * 7  # the first error stops a run that does not continue despite errors
    shown.note("Instance 1", _bad_page(9, ErrorKind.UNINITIALISED))  # a kind not shown yet, past the bound
    shown.note("Instance 2", _bad_page(8))  # the same kind on another instance is another group
    shown.note("Instance 1", _bad_page(10))
    errors = [text for text, level in lines if level == "error"]
    assert [text.split(" of ")[0] for text in errors] == [
        *(f"Instance 1: bad checksum (ESE -1018 JET_errReadVerifyFailure) reading page {n}" for n in (1, 2, 3, 4, 5)),
        "Instance 1: uninitialised page (ESE -1019 JET_errPageNotInitialized) reading page 9",
        "Instance 2: bad checksum (ESE -1018 JET_errReadVerifyFailure) reading page 8",
    ]
    assert [text for text, level in lines if level == "warning"] == [
        "Further I/O errors are counted by kind but not logged; the result and the report group them"]


def test_counts_by_kind_merge_keep_the_earliest_first_and_cross_the_wire():
    early, late = ErrorTally(), ErrorTally()
    late.add(_bad_page(40), t_ns=2_000)
    late.add(_bad_page(41), t_ns=2_500)
    early.add(_bad_page(7), t_ns=1_000)
    early.add(_bad_page(8, ErrorKind.UNINITIALISED), t_ns=1_500)
    part = InstanceInterval("Instance 1")
    part.errors.merge(late)
    part.errors.merge(early)
    back = Counters.model_validate_json(Counters.of(part).model_dump_json()).part().errors
    assert back.by_kind() == {"bad_checksum": 3, "uninitialised": 1} and back.total == 4
    assert [(g.first.kind, g.first.number, g.count) for g in back.ordered()] == [
        (ErrorKind.CHECKSUM, 7, 3), (ErrorKind.UNINITIALISED, 8, 1)]
    assert Counters.model_validate({"streams": {}, "cache": [0, 0, 0]}).part().errors.total == 0  # an older sample
