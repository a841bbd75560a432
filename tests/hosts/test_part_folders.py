"""A server's part of a test across servers makes its missing database and log folders on that server, with the
folders above them, as the window's Create folders makes this machine's: the engineer typed them for that server, and
no one can make them there but its agent."""

from __future__ import annotations

import time

from engine.hosts.messages import Ended, Prepare
from engine.hosts.part import Part, run_part
from tests.conftest import small_config


def _part(sent: list[object]) -> Part:
    part = Part("t1", sent.append)
    part.go(time.time())  # the controller's instant: at once
    return part


def test_a_part_makes_its_missing_folders_with_the_folders_above_them_and_runs(tmp_path):
    deep = tmp_path / "server-disks" / "exchange"  # neither exists on the server yet
    config = small_config(tmp_path, make_base=False).model_copy(deep=True)
    for n, spec in enumerate(config.databases, start=1):
        spec.database_path, spec.log_path = deep / f"DB{n}", deep / f"Log{n}"
    sent: list[object] = []
    ended = run_part(Prepare(test_id="t1", config=config, simulate="sas-8x10k"), tmp_path / "runs", _part(sent))
    assert isinstance(ended, Ended) and not ended.refused and ended.error is None and ended.result is not None
    assert all((deep / f"{leaf}{n}").is_dir() for leaf in ("DB", "Log") for n in (1, 2))


def test_a_folder_that_cannot_be_made_is_refused_at_its_field_with_the_system_s_words(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    config = small_config(tmp_path).model_copy(deep=True)
    config.databases[1].log_path = blocker / "Log2"
    ended = run_part(Prepare(test_id="t1", config=config, simulate="sas-8x10k"), tmp_path / "runs", _part([]))
    assert ended.result is None and ended.refused
    field, words = ended.refused[0]
    assert field == "databases[1].log_path" and words == f"{blocker / 'Log2'} is below {blocker}, which is a file, not a folder"
    assert blocker.read_text() == "not a folder"
