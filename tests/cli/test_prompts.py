"""The end of input at a prompt (Ctrl-D on a console) is a clear message and exit 2, never a traceback: each prompt
answered on a real terminal (a pty), as an engineer types at it."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.store.paths import DATA_DIR_ENV
from tests.cli.test_bad_input import PLACES
from tests.cli.test_cli import JETWISE

EOF_KEY = b"\x04"  # Ctrl-D
SAYS = "error: the input ended before an answer was typed; nothing was done"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pty is POSIX's")


def _at_prompt(arguments: list[str], prompt: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `jetwise arguments` on a terminal of its own, press Ctrl-D once `prompt` shows: its exit code and words."""
    master, slave = os.openpty()
    process = subprocess.Popen([*JETWISE, *arguments], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                               start_new_session=True)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if prompt.encode() in seen and EOF_KEY not in seen:
                os.write(master, EOF_KEY)
                seen += EOF_KEY
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the program ended and closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    return code, seen.decode(errors="replace")


@pytest.mark.parametrize(("arguments", "prompt", "store"), [
    (["agent", "--enrol", "{tmp}/mbx1.jwenrol"], "One-time code:", None),
    (["hosts", "reset"], "Reset? [y/N]", "roster"),
], ids=["agent --enrol", "hosts reset"])
def test_the_end_of_input_at_a_prompt_is_said_and_exits_2(tmp_path, arguments, prompt, store):
    env = dict(os.environ, **{DATA_DIR_ENV: str(PLACES[store](tmp_path) if store else tmp_path / "store")})
    code, said = _at_prompt([a.format(tmp=tmp_path) for a in arguments], prompt, tmp_path, env)
    assert code == 2 and SAYS in said and "Traceback" not in said and "unexpected error" not in said, said
