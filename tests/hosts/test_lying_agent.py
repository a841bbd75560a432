"""Every message a server sends is checked against the test before it counts: a real, enrolled agent running its part
for real, whose messages all validate against the link's schema and lie (`tests.hosts.lying_agent`), named first in
the test beside an honest server. Each lie is refused, said in the test's log and on the controller's console (who,
from where, why), its link closed, and the test ends with a result naming it; nothing of it is counted, and no
server's timing stands for the test's. Words with a line break are shown escaped, never as a line of their own."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from engine.hosts.roster import Roster
from engine.protocol import ExitCode
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from tests.conftest import small_config
from tests.hosts.agents import JETWISE, enrolled, free_port, start_agent, stop_all

pytestmark = pytest.mark.slow  # a controller, an honest agent and a lying one in their own processes, real I/O
HONEST, LIAR = "127.0.0.2", "127.0.0.4"


def _test_with_a_liar(tmp_path, keys, lie: str, duration_s: float = 6.0):
    port = free_port()
    data = tmp_path / "controller"
    roster = Roster(data / "hosts", keys)
    folders = {host: enrolled(roster, tmp_path, host, f"tls://127.0.0.1:{port}") for host in (LIAR, HONEST)}
    files = {}
    for host in (LIAR, HONEST):
        files[host] = tmp_path / f"{host}.json"
        files[host].write_text(small_config(tmp_path / f"databases-{host}", sample_interval_s=1.0, warmup_s=1.0,
                                            duration_s=duration_s).model_dump_json(indent=1), encoding="utf-8")
    honest = start_agent(folders[HONEST], HONEST)
    liar = subprocess.Popen([sys.executable, "-m", "tests.hosts.lying_agent", lie, LIAR], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, JETWISE_DATA_DIR=str(folders[LIAR])))
    output = tmp_path / "test"
    hosts = ",".join(f"{host}={files[host]}" for host in (LIAR, HONEST))  # the liar named first
    controller = subprocess.Popen([*JETWISE, "run", str(files[LIAR]), "--hosts", hosts, "--port", str(port),
                                   "--wait", "60s", "--output", str(output)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=dict(os.environ, JETWISE_DATA_DIR=str(data)))
    try:
        _out, err = controller.communicate(timeout=180)
    finally:
        stop_all([controller, honest, liar])
    return controller.returncode, err, output


WHY = {
    "short": "after one 0.2 s long, for an interval of 1 s (only a part's last, as it stops, is shorter)",
    "ghost": "a sample naming instance Ghost Instance 1, which it does not run",
    "nan": "a sample whose figure host.cpu_percent is nan",
    "future": "a sample for interval 1,000,000, which the test does not have (it has 7)",
    "early": " s before that interval ends by the controller's clock",
    "twice": "a sample for interval 0 after one for interval 0 (each is sent once, in turn)",
    "mute": "it sent no sample for interval 0, 10 s after that interval ended by the controller's clock",
}


@pytest.mark.parametrize("lie", list(WHY))
def test_a_server_s_lie_that_the_schema_accepts_is_refused_by_the_test_and_ends_it_naming_the_server(
        tmp_path, keys, lie):
    code, err, output = _test_with_a_liar(tmp_path, keys, lie, duration_s=30.0 if lie == "mute" else 6.0)
    assert code == ExitCode.ABORTED, err
    result = read_result(output)
    assert result.summary.verdict == Outcome.ABORTED
    why = WHY[lie]
    how = "was lost" if lie == "mute" else "was refused"
    assert any(f"{LIAR} {how} (" in reason and why in reason for reason in result.summary.reasons), \
        result.summary.reasons
    [share] = [s for s in result.servers if s.host == LIAR]
    assert share.end == ("lost" if lie == "mute" else "rejected") and why in share.ended
    log = (output / "test.log").read_text(encoding="utf-8")
    assert why in log and why in err, log  # the console says what the log says
    if lie != "mute":  # refused, and said so: who, from where
        assert f"Refused the agent {LIAR} from tls://{LIAR}:" in log and f"Refused the agent {LIAR} from" in err
    # nothing of the liar's counted once it lied: the test's measured samples are the honest server's alone
    measured = [sample for sample in read_samples(output) if sample.phase == "measure"]
    assert not [name for sample in measured for name in sample.instances if name.startswith(f"{LIAR} ")]


def test_a_server_s_words_with_a_line_break_are_shown_escaped_and_write_no_line_in_another_server_s_name(
        tmp_path, keys):
    code, err, output = _test_with_a_liar(tmp_path, keys, "newline", duration_s=3.0)
    assert code == ExitCode.PASS, err
    log = (output / "test.log").read_text(encoding="utf-8")
    forged = "12:00:00 -- 127.0.0.2: databases ready (forged)"
    assert f"\\n{forged}" in log  # shown, escaped, on the liar's own line
    assert not [line for line in log.splitlines() + err.splitlines() if line.startswith(forged)]
    for line in log.splitlines():
        if forged in line:
            assert f" {LIAR}: " in line, line  # in the liar's name only
    own = (output / "hosts" / LIAR / "test.log").read_text(encoding="utf-8")  # its copy of its own run folder too
    assert not [line for line in own.splitlines() if line.startswith(forged)]
