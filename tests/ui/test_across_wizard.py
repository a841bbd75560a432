"""A test across servers planned in the wizard, without agents: Review names each chosen server with its database and
log folders, a server's own folders are typed as the Databases page's are, and Start's wait for the agents shows who
connected and can be cancelled."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from engine.hosts.keys import KeyStore
from engine.hosts.roster import Roster
from engine.store.paths import hosts_folder
from tests.conftest import small_config
from tests.hosts.conftest import keys  # noqa: F401 — the fixture that removes the test's keys afterwards
from tests.ui.test_across_window import _choose as choose_servers
from ui.wizard import PAGE_REVIEW, PAGE_SERVERS

HOSTS = ["mbx1", "mbx2"]


@pytest.fixture
def enrolled(tmp_path, monkeypatch, keys):  # noqa: F811
    """Two servers enrolled with the window's controller (its data folder under the test's); no agent runs."""
    monkeypatch.setenv("JETWISE_DATA_DIR", str(tmp_path / "controller"))
    roster = Roster(hosts_folder(), KeyStore())
    for host in HOSTS:
        roster.add(host, "tls://127.0.0.1:1", tmp_path)
    return HOSTS


def _to_servers(qtbot, window, config, hosts: list[str]):
    """`hosts` chosen, past Review and back to the Servers page."""
    choose_servers(qtbot, window, config, hosts)
    window.wizard.restart_at(PAGE_SERVERS)
    return window.wizard.servers


def _own_folders(qtbot, page, row: int):
    page.list.setCurrentRow(row)
    qtbot.mouseClick(page.folders_button, Qt.MouseButton.LeftButton)
    dialog = page.folders_dialog
    assert dialog is not None
    return dialog


def test_review_names_each_server_with_its_database_and_log_folders(qtbot, window, tmp_path, enrolled):
    config = small_config(tmp_path / "dbs")
    page = _to_servers(qtbot, window, config, HOSTS)
    dialog = _own_folders(qtbot, page, 1)
    own = tmp_path / "other-disks"
    for row in range(dialog.table.rowCount()):
        dialog.table.item(row, 0).setText(str(own / f"DB{row + 1}"))
        dialog.table.item(row, 1).setText(str(own / f"Log{row + 1}"))
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    wizard = window.wizard
    while wizard.currentId() != PAGE_REVIEW:
        wizard.next()
    shown = wizard.review.text.toPlainText()
    assert "Across 2 servers" in shown
    each = config.target_transactional_iops  # each server carries its share; the test is judged on the sum
    assert f"{each:,.1f} transactional IOPS" in shown and f"on each server; {2 * each:,.1f} across the 2 servers" in shown
    assert "mbx1: this server's folders" in shown and "mbx2: its own folders" in shown
    first, second = shown.index("mbx1: this server's folders"), shown.index("mbx2: its own folders")
    for spec in config.databases:  # mbx1's table lists this server's folders, mbx2's its own
        assert first < shown.index(str(spec.database_path)) < second and first < shown.index(str(spec.log_path)) < second
    for n in (1, 2):
        assert shown.index(str(own / f"DB{n}")) > second and shown.index(str(own / f"Log{n}")) > second


def test_a_server_s_own_folders_are_filled_down_from_a_pattern_and_made_there_by_its_agent(qtbot, window, tmp_path,
                                                                                         enrolled):
    config = small_config(tmp_path / "dbs")
    page = _to_servers(qtbot, window, config, HOSTS)
    dialog = _own_folders(qtbot, page, 0)
    patterns = dialog.patterns
    assert not patterns.fill_button.isEnabled()  # no pattern typed yet
    patterns.db_pattern.setText(str(tmp_path / "E" / "Exchange{n}" / "DB"))
    patterns.log_pattern.setText(str(tmp_path / "L"))  # a plain folder: Log1, Log2 below it
    qtbot.mouseClick(patterns.fill_button, Qt.MouseButton.LeftButton)
    assert dialog.rows() == [(str(tmp_path / "E" / f"Exchange{n}" / "DB"), str(tmp_path / "L" / f"Log{n}")) for n in (1, 2)]
    assert "created there" in dialog.made.text() and "mbx1" in dialog.made.text()
    assert not (tmp_path / "E").exists()  # nothing is made on this machine for another server's folders
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    own = page.with_servers(config).for_server("mbx1")
    assert [str(spec.database_path) for spec in own.databases] == [str(tmp_path / "E" / f"Exchange{n}" / "DB") for n in (1, 2)]


def test_a_configuration_that_names_servers_chooses_them_and_is_saved_with_them(qtbot, window, tmp_path, enrolled,
                                                                                 monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from engine.io.config_file import load_config
    from engine.model.config import TestConfig

    config = small_config(tmp_path / "dbs")
    own = [{"database_path": str(tmp_path / "other" / f"DB{n}"), "log_path": str(tmp_path / "other" / f"Log{n}")}
           for n in (1, 2)]
    across = TestConfig.model_validate({**config.model_dump(mode="json"),
                                        "servers": [{"host": "mbx1"}, {"host": "mbx2", "databases": own}]})
    wizard = window.wizard
    wizard.load_config(across, session="named")
    wizard.restart_at(PAGE_SERVERS)
    page = wizard.servers
    assert page.across.isChecked() and page.selected() == HOSTS and page.isComplete()
    assert page.parts() == across.servers and "mbx2" in page.own_words.text()
    saved = tmp_path / "saved.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(saved), ""))
    window.files.save_json()
    assert load_config(saved).servers == across.servers  # the file names the servers, the second its folders
    # a server the configuration names that is not enrolled is said on the page, and Next waits
    wizard.load_config(across.model_copy(update={"servers": [*across.servers[:1], across.servers[0].model_copy(
        update={"host": "mbx9"})]}), session="named")
    wizard.restart_at(PAGE_SERVERS)
    assert not page.isComplete() and "mbx9, named by the configuration loaded, is not enrolled" in page.message.text()
    page.alone.setChecked(True)  # this server alone after all
    assert page.isComplete() and not page.named
    wizard.load_config(config, session="alone")  # a configuration without servers: this server alone
    assert page.alone.isChecked() and page.selected() == []


def test_the_window_listens_on_the_port_the_chosen_servers_bundles_name_and_says_when_they_differ(
        qtbot, window, tmp_path, monkeypatch, keys):  # noqa: F811
    monkeypatch.setenv("JETWISE_DATA_DIR", str(tmp_path / "controller"))
    roster = Roster(hosts_folder(), KeyStore())
    for host in HOSTS:
        roster.add(host, "tls://controller.contoso.com:9123", tmp_path)
    roster.add("mbx3", "tls://controller.contoso.com:9200", tmp_path)
    choose_servers(qtbot, window, small_config(tmp_path / "dbs"), HOSTS)
    page = window.wizard.servers
    assert page.port.value() == 9123  # the bundles' port, not 8786
    started = []
    monkeypatch.setattr(window.runs, "start_planned", lambda config: started.append(window.runs.across_port))
    window.start_from_wizard()
    assert started == [9123]

    window.wizard.restart_at(PAGE_SERVERS)
    page.list.findItems("mbx3", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Checked)
    assert not page.isComplete() and "mbx1's on port 9123" in page.problem() and "enrol them again" in page.problem()
    page.port.setValue(9200)  # set by hand: the engineer's port holds, and the others' bundles are said
    assert page.port.value() == 9200 and "mbx1's on port 9123, mbx2's on port 9123" in page.problem()
    page.list.findItems("mbx1", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Unchecked)
    page.list.findItems("mbx2", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Unchecked)
    assert page.isComplete() and page.port.value() == 9200
