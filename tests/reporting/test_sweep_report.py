"""A load sweep's report: every step in a table, the judged one marked, its curve charted, its steps on the time
charts, its place in the session, its samples in the CSV; a run at one setting keeps the report it had."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from engine.model.config import default_config
from engine.results.sweep_schema import SweepStep
from engine.run.sinks import fan_out
from engine.run.sources.model import PROFILES, runner_for
from engine.run.sweep import plan_sweep
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store
from reporting.bundle import RunBundle, load_run
from reporting.csv_export import CSV_COLUMNS, write_csv
from reporting.document import charts, render_html
from tests.engine.test_report import _samples, known_result
from tests.pdf_text import needs_pdftotext, pdf_text


def sweep_folder(base: Path, store: Store | None = None) -> Path:
    """A real load sweep on the simulated SATA pair (about a second), recorded in `store`'s session "sata" if given;
    its run folder."""
    config = default_config(base, databases=2, profile={"mailboxes": 1100, "iops_per_mailbox": 0.12, "mailbox_size_mb": 100})
    folder = base / "run"
    emit = fan_out(RunRecorder(store, "sata", folder), lambda _event: None) if store else (lambda _event: None)
    runner_for(PROFILES["sata-2x7k"], config, folder, emit, sweep=plan_sweep(config, 2),
               session="sata" if store else None).run()
    return folder


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> RunBundle:
    """The report material of a real sweep that bracketed the latency limit (both outcomes to show)."""
    bundle = load_run(str(sweep_folder(tmp_path_factory.mktemp("sweep"))))
    assert bundle.result.sweep is not None and len(bundle.result.sweep.steps) >= 3
    assert {s.latency_ok for s in bundle.result.sweep.steps} == {True, False}
    return bundle


def _steps(bundle: RunBundle) -> list[SweepStep]:
    assert bundle.result.sweep is not None
    return bundle.result.sweep.steps


def _section(html: str) -> str:
    return html[html.index(">Load Sweep</h2>") : html.index(">I/O Errors</h2>")]


def test_the_report_of_a_sweep_has_a_row_per_step_and_names_the_judged_one(swept):
    html = render_html(swept)
    sweep, steps = swept.result.sweep, _steps(swept)
    section = _section(html)
    rows = re.findall(r'<tr(?: class="judged")?><td>(\d+)( \(judged\))?</td>\n<td class="n">(\d+)</td><td class="n">(\d+)</td>'
                      r'<td class="n">([\d.]+)</td><td class="n">([\d,.]+)</td>', section)
    assert [(int(n), int(t), int(s)) for n, _j, t, s, _l, _i in rows] == [(s.step + 1, s.threads, s.sluggish_sessions)
                                                                          for s in steps]
    assert [n for n, judged, *_ in rows if judged] == [str(sweep.judged_step + 1)]
    for (_n, _j, _t, _s, load, iops), step in zip(rows, steps, strict=True):
        assert (load, iops) == (f"{step.effective_load:.2f}", f"{step.transactional_iops:,.1f}")
    judged = next(s for s in steps if s.step == sweep.judged_step)
    assert (f"are those of step {judged.step + 1}: {judged.threads} threads, SluggishSessions {judged.sluggish_sessions}"
            in section)
    assert f"The sweep ended: {sweep.ended_words}." in section
    broke = [s for s in steps if not s.latency_ok]
    assert section.count(">Broke a threshold</td>") == len(broke)
    assert f"Broke: {broke[0].broke_words}".replace(">", "&gt;") in section  # the criterion it broke, on a line of its own
    assert section.count(">Kept the thresholds</td>") == len(steps) - len(broke)
    assert f"Run Kind</th><td>Tuning run: a load sweep of {len(steps)} steps</td>" in html


def test_the_sweep_charts_tell_kept_from_broken_steps_by_shape_and_mark_the_steps_on_the_time_charts(swept):
    svgs = charts(swept)
    steps = _steps(swept)
    kept = sum(s.latency_ok for s in steps)
    for name, level in (("sweep_latency", "limit 20 ms"), ("sweep_iops", "target 158")):
        svg = svgs[name]
        assert svg.count("<circle") == kept + 1 and svg.count("<path") == len(steps) - kept + 1  # + the legend's
        assert level in svg and "latency limit lies here" in svg  # the bracket, shaded
        assert "advisor:" not in svg  # no session, no advice
    for name in ("iops", "latency"):
        labels = re.findall(r'stroke-dasharray="3,3"/>(?:<text [^>]+>([^<]+)</text>)?', svgs[name])
        assert len(labels) == len(steps)  # a line where each step starts
        assert {label for label in labels if label} <= {f"{s.threads}÷{s.sluggish_sessions}" for s in steps}


def test_a_sweep_in_a_session_is_listed_as_a_sweep_and_its_charts_mark_the_advisors_setting(tmp_path):
    store = Store(tmp_path / "store.sqlite3")
    try:
        folder = sweep_folder(tmp_path, store)
        bundle = load_run(str(folder), store)
        html = render_html(bundle)
    finally:
        store.close()
    assert f'<td colspan="2">load sweep ({len(_steps(bundle))} steps)</td>' in html
    advice = re.search(r"The solid line is the advisor's setting for the session: (\d+) threads with SluggishSessions (\d+)",
                       html)
    assert advice is not None
    assert html.count(f"advisor: {advice[1]}÷{advice[2]}</text>") == 2  # on both sweep charts


def test_a_run_at_one_setting_has_no_sweep_section_chart_or_step_marks(tmp_path):
    bundle = RunBundle(known_result(tmp_path), _samples(), [], tmp_path)
    html = render_html(bundle)
    assert "Load Sweep" not in html and "load sweep" not in html.lower()
    assert set(charts(bundle)) == {"iops", "latency"} and 'stroke-dasharray="3,3"' not in html
    assert "26 (for the server)</td>" in html and "Qualification run</td>" in html


def test_the_csv_names_each_sweep_samples_step_and_setting(swept, tmp_path):
    write_csv(swept, tmp_path / "sweep.csv")
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open(encoding="utf-8")))
    by_number = {s.step + 1: s for s in _steps(swept)}  # numbered from 1, as the report and the log number steps
    assert {int(row["sweep_step"]) for row in rows} == set(by_number)
    for row in rows:
        step = by_number[int(row["sweep_step"])]
        assert step.first_interval <= int(row["interval"]) <= step.last_interval
        assert (int(row["threads"]), int(row["sluggish_sessions"])) == (step.threads, step.sluggish_sessions)
    write_csv(RunBundle(known_result(tmp_path), _samples(2), [], tmp_path), tmp_path / "one.csv")
    plain = list(csv.reader((tmp_path / "one.csv").open(encoding="utf-8")))
    assert plain[0] == CSV_COLUMNS and all(row[-3:] == ["", "", ""] for row in plain[1:])


def _pdf_text(bundle: RunBundle, pdf: Path) -> str:
    from ui.printing import write_pdf

    write_pdf(bundle, pdf, "a4")
    return pdf_text(pdf)


@needs_pdftotext
def test_the_pdf_of_a_sweep_has_every_step_and_the_judged_one(swept, tmp_path, qapp):
    text = _pdf_text(swept, tmp_path / "sweep.pdf")
    assert "Load Sweep" in text and "(judged)" in text and "The sweep ended:" in text
    for step in _steps(swept):
        # the judged step's "(judged)" shares its cell: beside its number or after the row, as the system's font wraps it
        row = (rf"(?<![\d.,]){step.step + 1}(?: \(judged\))? {step.threads} {step.sluggish_sessions} {step.effective_load:.2f} "
               rf"{step.transactional_iops:,.1f} {step.db_read_avg_latency_ms:.2f} {step.db_read_max_latency_ms:.2f} ")
        assert re.search(row, text), step


@needs_pdftotext
def test_the_pdf_of_a_run_at_one_setting_has_no_sweep_section(tmp_path, qapp):
    text = _pdf_text(RunBundle(known_result(tmp_path), _samples(), [], tmp_path), tmp_path / "one.pdf")
    assert "Pass/Fail Criteria" in text and "Load Sweep" not in text and "(judged)" not in text
