"""JetstressConfig.xml on the command line, as a runbook uses it: import twice, export, run a file as it came.

Real processes and exit codes: a Jetstress file made into Jetwise's configuration, refused with its
line when it is not one, never written over without --force; the export taken back in; and
`jetwise run` and `validate` taking the XML itself.
"""

from __future__ import annotations

import json

from engine.model.jetstress.loading import config_from_xml
from engine.protocol import ExitCode
from tests.cli.test_cli import _init_small, jetwise
from tests.engine.test_jetstress_xml import COMPLETE

NO_DATABASES = COMPLETE[: COMPLETE.index("<EseInstances>")] + COMPLETE[COMPLETE.index("</EseInstances>") + 15 :]


def test_import_writes_the_configuration_once_says_what_it_replaced_and_refuses_to_overwrite(tmp_path):
    xml = tmp_path / "JetstressConfig.xml"
    xml.write_text(COMPLETE.replace("<SluggishSessions>3</SluggishSessions>", "<SluggishSessions>x</SluggishSessions>"),
                   newline="\r\n")
    done = jetwise("import-xml", str(xml), cwd=tmp_path)
    assert done.returncode == ExitCode.PASS, done.stderr
    out = tmp_path / "JetstressConfig.json"
    data = json.loads(out.read_text())
    assert data["thread_count"] == 12 and data["sluggish_sessions"] == 1 and data["database_source"] == "attach"
    assert "warning: TestDesignInfo/SluggishSessions: 'x' is not a whole number; the default is used" in done.stderr
    assert "note: ignored (Jetwise does not model them): MultiHostBreak, BinaryPerfLog" in done.stderr
    assert f"Wrote {out}" in done.stderr and f"Next: jetwise run {out}" in done.stderr
    before = out.read_bytes()
    again = jetwise("import-xml", str(xml), cwd=tmp_path)  # the same command twice
    assert again.returncode == ExitCode.INVALID and f"{out} exists; use --force to overwrite it" in again.stderr
    assert out.read_bytes() == before
    forced = jetwise("import-xml", str(xml), "--force", cwd=tmp_path)
    assert forced.returncode == ExitCode.PASS and out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["JetstressConfig.json", "JetstressConfig.xml"]


def test_a_file_that_is_not_a_jetstress_configuration_or_lacks_databases_is_refused_with_the_reason(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text(COMPLETE.replace("</ExchangeProfile>", ""))
    done = jetwise("import-xml", str(broken), cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID and "Traceback" not in done.stderr
    assert f"{broken} cannot be read as a JetstressConfig.xml: it is not well-formed XML (line " in done.stderr
    partial = tmp_path / "partial.xml"
    partial.write_text(NO_DATABASES)
    refused = jetwise("import-xml", str(partial), cwd=tmp_path)
    assert refused.returncode == ExitCode.INVALID
    assert "error: ExchangeProfile/EseInstances: lists no database" in refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.xml", "partial.xml"]  # nothing written
    given = jetwise("import-xml", str(partial), "-o", str(tmp_path / "given.json"), "--db-path", "E:\\DB{n}", "E:\\DB9",
                    "--log-path", str(tmp_path / "logs"), cwd=tmp_path)
    assert given.returncode == ExitCode.PASS, given.stderr
    databases = json.loads((tmp_path / "given.json").read_text())["databases"]
    assert [d["database_path"] for d in databases] == ["E:\\DB{n}", "E:\\DB9"]
    assert [d["log_path"] for d in databases] == [str(tmp_path / "logs" / "Log1"), str(tmp_path / "logs" / "Log2")]
    half = jetwise("import-xml", str(partial), "-o", str(tmp_path / "half.json"), "--db-path", "E:\\DB1", cwd=tmp_path)
    assert half.returncode == ExitCode.INVALID and "give --log-path too" in half.stderr


def test_an_exchange_2010_configuration_is_exported_for_jetstress_2010(tmp_path):
    config_path = _init_small(tmp_path, "--exchange", "2010")
    done = jetwise("export-xml", str(config_path), "-o", str(tmp_path / "2010.xml"), cwd=tmp_path)
    assert done.returncode == ExitCode.PASS and f"Wrote {tmp_path / '2010.xml'} for Jetstress 2010 (14.01):" in done.stderr
    assert "Jetstress 2013" not in done.stderr, done.stderr


def test_an_exported_configuration_runs_as_xml_and_imports_back_the_same(tmp_path):
    config_path = _init_small(tmp_path)
    xml = tmp_path / "for-jetstress.xml"
    done = jetwise("export-xml", str(config_path), "-o", str(xml), cwd=tmp_path)
    assert done.returncode == ExitCode.PASS, done.stderr
    assert "for Jetstress 2013 (15.00.0995.000)" in done.stderr and "note: Jetstress's MailboxIops is the figure tested" in done.stderr
    text = xml.read_bytes().decode("utf-8")
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\r\n<configuration ')
    again = jetwise("export-xml", str(config_path), "-o", str(xml), cwd=tmp_path)
    assert again.returncode == ExitCode.INVALID and "exists; use --force" in again.stderr
    back = jetwise("import-xml", str(xml), "-o", str(tmp_path / "back.json"), cwd=tmp_path)
    assert back.returncode == ExitCode.PASS, back.stderr
    assert json.loads((tmp_path / "back.json").read_text()) == json.loads(config_path.read_text())
    assert config_from_xml(text).config is not None
    valid = jetwise("validate", str(xml), cwd=tmp_path)
    assert valid.returncode == ExitCode.PASS, valid.stdout + valid.stderr
    ran = jetwise("run", str(xml), "--output", str(tmp_path / "run"), cwd=tmp_path)  # the XML itself, as a runbook passes it
    assert ran.returncode in (ExitCode.PASS, ExitCode.FAIL), ran.stderr
    ran_with = json.loads((tmp_path / "run" / "config.json").read_text())
    assert ran_with == json.loads(config_path.read_text())  # the run's configuration is the one exported
