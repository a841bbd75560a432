"""The window on a 1024×768 Remote Desktop screen through a test across two and four servers with 30-character host
names, during an auto-tune: the wizard, the run view with its title and legend, the results and the tuning session
each no wider than the screen, Stop in the run view's fixed header (never behind a scroll bar) and every column of the
session's table in sight."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractScrollArea, QScrollArea, QWidget

from engine.hosts.keys import KeyStore
from engine.hosts.roster import Roster
from engine.model.host_names import on_server, short_names
from engine.model.profile import ServerPart
from engine.protocol import IntervalEvent, PhaseEvent
from engine.results.sample_schema import IntervalSample
from engine.results.schema import Outcome, ServerResult
from engine.store.paths import hosts_folder
from engine.tuning.tuner import Tuner
from reporting.sweep import target_levels
from tests.hosts.conftest import keys  # noqa: F401 — the fixture that removes the test's keys afterwards
from tests.ui.sweeps import simulated_sweep
from tests.ui.test_small_screen import SCREEN, _walk_wizard, out_of_reach
from ui.controllers.runs import run_title
from ui.views.session_view import COLUMNS
from ui.widgets.fitting import ScrollContent

HOSTS = [f"exmbx{n:02}.emea.corp.contosos.com" for n in range(1, 5)]  # 30 characters each


def wider_than_the_screen(top: QWidget, where: str) -> list[str]:
    """Every view in `top` that is wider than what shows it: a scroll area or a table that scrolls sideways."""
    problems = []
    for area in top.findChildren(QAbstractScrollArea):
        if area.isVisibleTo(top) and area.horizontalScrollBar().maximum() > 0:
            inner = area.widget() if isinstance(area, QScrollArea) else area.viewport()
            problems.append(f"{where}: {type(area).__name__} {area.objectName()!r} scrolls sideways: "
                            f"{area.horizontalScrollBar().maximum()} px of {type(inner).__name__} past its right edge")
    return problems


def overlapping(top: QWidget, where: str) -> list[str]:
    """What a page that scrolls squeezes over its neighbour: each shown item of its column below the one before."""
    problems = []
    for content in top.findChildren(ScrollContent):
        layout = content.layout()
        if not content.isVisibleTo(top) or layout is None:
            continue
        shown = [layout.itemAt(i) for i in range(layout.count())]
        shown = [item for item in shown if item is not None and not item.isEmpty()]
        for above, below in itertools.pairwise(shown):
            if below.geometry().top() < above.geometry().bottom():
                name = type(below.widget()).__name__ if below.widget() else "a row"
                problems.append(f"{where}: {name} is drawn over what is above it ({below.geometry().getRect()} "
                                f"over {above.geometry().getRect()})")
    return problems


def _stop_in_reach(window, where: str) -> list[str]:
    stop = window.run_view.stop
    parent = stop.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QScrollArea):
            return [f"{where}: Stop lies in a scroll area, where it scrolls away"]
        parent = parent.parentWidget()
    shown = QRect(stop.mapTo(window, QPoint(0, 0)), stop.size())
    if not QRect(QPoint(0, 0), SCREEN).contains(shown) or stop.visibleRegion().boundingRect() != stop.rect():
        return [f"{where}: Stop lies at {shown.getRect()}, outside the window or hidden"]
    return [] if "Esc" in stop.text() else [f"{where}: Stop does not say its shortcut ({stop.text()!r})"]


def _across_sample(sample: IntervalSample, hosts: list[str]) -> IntervalSample:
    """A sample of one server's run as every server of the test sends it: each server's instances under its name."""
    instances = {on_server(host, name): counters for host in hosts for name, counters in sample.instances.items()}
    return sample.model_copy(update={"instances": instances})


@pytest.mark.parametrize("count", [2, 4])
def test_a_test_across_servers_with_long_names_fits_a_small_screen_with_stop_always_in_reach(
        qtbot, window, tmp_path, monkeypatch, keys, count):  # noqa: F811
    hosts = HOSTS[:count]
    monkeypatch.setenv("JETWISE_DATA_DIR", str(tmp_path / "controller"))  # enrolled: the Servers page shows them
    roster = Roster(hosts_folder(), KeyStore())
    for host in hosts:
        roster.add(host, "tls://controller.emea.corp.contosos.com:8786", tmp_path)
    swept = simulated_sweep(tmp_path / "sweep", window.store, session="across")
    config = swept.config.model_copy(update={"servers": [ServerPart(host=host) for host in hosts]})
    window.wizard.load_config(config, session="across")
    assert window.wizard.servers.wanted() and window.wizard.servers.selected() == hosts
    problems = _walk_wizard(qtbot, window, f"Across {count} servers")  # the Servers page with them chosen too

    tuner = Tuner(config, [], device="", cpu_count=2)
    assert tuner.next_run() is not None
    title = run_title(config, tuner, tuner.next_sweep())
    assert all(name in title for name in short_names(hosts).values()) and "every server stepping together" in title
    view = window.run_view
    view.begin(config, title)
    window.stack.setCurrentWidget(view)
    for event in swept.events:
        if isinstance(event, IntervalEvent):
            view.on_event(IntervalEvent(sample=_across_sample(event.sample, hosts)))
        elif isinstance(event, PhaseEvent):
            view.on_event(event)
    where = f"The run view of an auto-tune across {count} servers"
    problems += out_of_reach(window, where) + wider_than_the_screen(window, where) + _stop_in_reach(window, where)

    failed = swept.result.summary.model_copy(update={"verdict": Outcome.FAIL, "reasons": [
        f"Average database read latency 25.10 ms on {on_server(hosts[-1], 'Instance 1')} is over the 20 ms limit"] * 3})
    shares = [ServerResult(host=host, summary=swept.result.summary if n else failed, clock_offset_s=0.0,
                           run_folder=rf"hosts\{host}") for n, host in enumerate(hosts)]
    across = swept.result.model_copy(update={"servers": shares, "configuration": config,
                                             "run_id": f"{swept.result.run_id}-across"})
    window.results_view.show_result(across, None, "Auto-tune run 1 across the servers.")
    window.stack.setCurrentWidget(window.results_view)
    where = f"The results of a load sweep across {count} servers"
    problems += out_of_reach(window, where) + wider_than_the_screen(window, where) + overlapping(window, where)

    window.store.begin_run(window.store.session_for("across", config), across.run_id, config, tmp_path / "across")
    window.store.finish_run(across.run_id, across)
    window.show_session()
    where = f"The tuning session with a run across {count} servers"
    assert window.session_view.table.rowCount() == 2
    # like with like: the run across servers set beside its summed IOPS the whole test's target, in the table and the
    # report's IOPS charts, not one server's share
    target = window.session_view.table.item(1, COLUMNS.index("Target\nIOPS")).text()
    assert target == f"{count * config.target_transactional_iops:,.1f}" == f"{config.test_target_iops:,.1f}"
    assert [level.value for level in target_levels(config, "target")] == [config.test_target_iops]
    problems += out_of_reach(window, where) + wider_than_the_screen(window, where)
    assert not problems, "\n".join(problems)


def test_a_server_is_named_short_only_where_its_first_label_tells_it_apart():
    assert short_names(["mbx1.emea.contoso.com", "mbx2.emea.contoso.com"]) == {
        "mbx1.emea.contoso.com": "mbx1", "mbx2.emea.contoso.com": "mbx2"}
    assert short_names(["mbx1.emea.contoso.com", "mbx1.apac.contoso.com", "10.0.0.21"]) == {
        "mbx1.emea.contoso.com": "mbx1.emea.contoso.com", "mbx1.apac.contoso.com": "mbx1.apac.contoso.com",
        "10.0.0.21": "10.0.0.21"}
