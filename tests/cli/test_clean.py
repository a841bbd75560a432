"""`jetwise clean`: what a configuration's runs left, with its size; removed only with --yes, and only what carries a
Jetwise header."""

from __future__ import annotations

from tests.cli.test_cli import _init_small, jetwise


def test_clean_lists_then_removes_only_jetwise_files_and_says_what_it_freed(tmp_path):
    config = _init_small(tmp_path)
    assert jetwise("run", str(config), "--output", str(tmp_path / "run"), cwd=tmp_path).returncode in (0, 1)
    mine = tmp_path / "DB1" / "notes.txt"
    mine.write_text("the engineer's own notes")
    listed = jetwise("clean", str(config), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert f"{tmp_path / 'DB1'}: 2 file(s)" in listed.stdout and f"{tmp_path / 'Log2'}: 16 file(s)" in listed.stdout
    assert "36 Jetwise test file(s)" in listed.stdout and "run again with --yes to remove them" in listed.stdout
    assert (tmp_path / "DB1" / "Jetwise001.jwdb").is_file()  # listed, not touched
    removed = jetwise("clean", str(config), "--yes", cwd=tmp_path)
    assert removed.returncode == 0 and "Removed 36 Jetwise test file(s):" in removed.stdout and " freed" in removed.stdout
    assert not (tmp_path / "DB1" / "Jetwise001.jwdb").exists() and mine.read_text() == "the engineer's own notes"
    assert not (tmp_path / "DB1" / "Jetwise001.jwfm").exists()  # its flush map, which the run made beside it
    again = jetwise("clean", str(config), "--yes", cwd=tmp_path)
    assert again.returncode == 0 and "nothing to remove" in again.stdout
    assert jetwise("clean", str(tmp_path / "missing.json"), cwd=tmp_path).returncode == 2


def test_a_file_jetwise_did_not_make_where_a_database_keeps_its_flush_map_is_refused_and_never_touched(tmp_path):
    config = _init_small(tmp_path)
    (tmp_path / "DB2").mkdir()
    foreign = tmp_path / "DB2" / "Jetwise002.jwfm"
    foreign.write_bytes(b"the engineer's own file")
    checked = jetwise("validate", str(config), cwd=tmp_path)
    assert checked.returncode == 2 and f"{foreign} is not a flush map Jetwise made" in checked.stdout, checked.stdout
    assert jetwise("run", str(config), "--output", str(tmp_path / "run"), cwd=tmp_path).returncode == 2
    jetwise("clean", str(config), "--yes", cwd=tmp_path)
    assert foreign.read_bytes() == b"the engineer's own file"
