"""A run's reasons as a person reads them: a criterion many instances failed is one line, with its range and worst."""

from __future__ import annotations

import json

from engine.model.config import default_config
from engine.results import verdict
from engine.results.document import build_result
from engine.results.host_schema import HostInfo
from engine.results.note_schema import PAGE_FAULT_WORDS, RunNote
from engine.results.reasons import grouped_reasons
from engine.results.sample_read import SampleList
from engine.results.schema import RunKind, RunResult, RunTimes
from engine.results.verdict import judge
from reporting.bundle import RunBundle
from reporting.document import render_html
from tests.engine.test_verdict import _instance
from tests.reporting.reading import html_text

LIMIT = "20.0 ms (Strict)"


def _judged(tmp_path, instances: dict) -> RunResult:
    config = default_config(tmp_path, databases=len(instances), thread_count=len(instances),
                            profile={"mailboxes": 100, "iops_per_mailbox": 0.1, "headroom_percent": 0})
    verdict = judge(config, instances, 100.0, highest=None)
    return build_result(run_id="grouped", config=config, verdict=verdict, instances=instances, cache={}, measured_s=100.0,
                        host=HostInfo(), host_samples=[], times=RunTimes(), unbuffered_io=True, io_detail="",
                        backend_name="posix", device="", notes=[], run_kind=RunKind.QUALIFICATION, host_bound=False)


def test_a_criterion_failed_on_many_instances_is_one_line_in_the_place_of_its_first(tmp_path):
    instances = {f"Instance {i}": _instance(read_avg=20.5 + i / 10) for i in range(1, 49)}  # 48 slow readers
    instances["Instance 7"] = _instance(read_avg=30.2, read_max=180.0)  # the worst, and over the maximum too
    instances["Instance 9"] = _instance(read_avg=5.0)  # one that kept up
    result = _judged(tmp_path, instances)
    assert len(result.summary.reasons) == 48  # 47 slow averages and one maximum, each instance's
    assert grouped_reasons(result) == [
        f"47 of 48 instances: average database read latency 20.6 to 30.2 ms > {LIMIT}, the highest on Instance 7",
        "Instance 7: maximum database read latency 180 ms > 100 ms (Strict)",
    ]
    page = html_text(render_html(RunBundle(result, SampleList(), [], tmp_path)))
    summary, criteria = page.split("Pass/Fail Criteria", 1)[0], page.rsplit("Pass/Fail Criteria", 1)[1]
    assert "Failed On 47 of 48 instances: average database read latency" in summary and "more under" not in summary
    assert "Instance 48: average database read latency 25.3 ms" in criteria  # the criteria keep every instance's


def test_two_instances_keep_their_own_lines_and_other_reasons_stay_as_they_are(tmp_path):
    instances = {"Instance 1": _instance(read_avg=22.4), "Instance 2": _instance(read_avg=21.0),
                 "Instance 3": _instance(reads=0, writes=0)}
    result = _judged(tmp_path, instances)
    assert grouped_reasons(result) == result.summary.reasons  # under three of a kind: nothing to group
    assert f"Instance 1: average database read latency 22.4 ms > {LIMIT}" in result.summary.reasons
    assert any("no database reads completed" in r for r in grouped_reasons(result))


def test_reasons_are_grouped_by_their_facts_whatever_their_words(tmp_path, monkeypatch):
    """Each failure carries the criterion and instance it failed: reworded, a reason is grouped all the same, and a
    result of an older schema (words alone) is said as it was written, not parsed."""
    monkeypatch.setattr(verdict, "with_set", lambda words, set_name: f"{words}, judged on the {set_name} thresholds")
    instances = {f"Instance {i}": _instance(read_avg=21.0 + i) for i in range(1, 5)}
    result = _judged(tmp_path, instances)
    assert result.summary.reasons[0] == "Instance 1: average database read latency 22.0 ms > 20.0 ms, judged on the " \
                                        "Strict thresholds"
    assert [(f.criterion, f.instance) for f in result.summary.failures] == \
        [("average database read latency", f"Instance {i}") for i in range(1, 5)]
    assert grouped_reasons(result) == ["4 of 4 instances: average database read latency 22.0 to 25.0 ms > 20.0 ms, "
                                       "judged on the Strict thresholds, the highest on Instance 4"]
    older = result.model_copy(update={"summary": result.summary.model_copy(update={"failures": []})})
    assert grouped_reasons(older) == older.summary.reasons


def test_a_results_notes_are_facts_said_where_shown_and_an_older_results_words_are_said_as_written(tmp_path):
    """A note travels as what it is and its figures: the report says it; an older result's sentence is kept whole."""
    result = _judged(tmp_path, {"Instance 1": _instance(read_avg=5.0)})
    host_bound = RunNote(what="host_bound", cpu_percent=97.4)
    result = result.model_copy(update={"notes": [*result.notes, host_bound]})
    again = RunResult.model_validate_json(result.model_dump_json())
    assert [n.what for n in again.notes] == ["page_faults", "host_bound"] and again.notes[1].cpu_percent == 97.4
    page = html_text(render_html(RunBundle(again, SampleList(), [], tmp_path)))
    assert "Host-bound: the processors were 97 % busy on average while measuring" in page
    assert PAGE_FAULT_WORDS in page

    older = json.loads(result.model_dump_json())
    older["schema_version"] = 13
    older["notes"] = [PAGE_FAULT_WORDS, "A tuning run (300 s measured): it steers the thread count"]
    read = RunResult.model_validate(older)
    assert [(n.what, n.said) for n in read.notes] == [
        ("page_faults", ""), ("said", "A tuning run (300 s measured): it steers the thread count")]
    assert "A tuning run (300 s measured): it steers the thread count" in html_text(
        render_html(RunBundle(read, SampleList(), [], tmp_path)))
