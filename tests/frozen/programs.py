"""Jetwise as a program: the frozen executable (JETWISE_FROZEN, its folder) or, from source, `python -m app`.

The same checks run against both: the source one in the suite, the frozen one once CI has built it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

FROZEN_ENV = "JETWISE_FROZEN"
WINDOW_WAIT_S = 180  # a short run from the window: start-up, creating two small databases, 2 s of test


def frozen_program() -> list[str]:
    """The frozen `jetwise` in the folder JETWISE_FROZEN names (dist/jetwise by default)."""
    folder = Path(os.environ.get(FROZEN_ENV) or Path(__file__).resolve().parents[2] / "dist" / "jetwise")
    program = folder / ("jetwise.exe" if sys.platform == "win32" else "jetwise")
    if not program.is_file():
        raise FileNotFoundError(f"no frozen Jetwise at {program}: build it with python packaging/build.py "
                                f"(or set {FROZEN_ENV} to its folder)")
    return [str(program)]


def source_program() -> list[str]:
    return [sys.executable, "-m", "app"]


def environment(home: Path) -> dict[str, str]:
    """A user of its own: store, settings and window runs under `home`, the offscreen platform."""
    env = dict(os.environ)
    env.update(JETWISE_DATA_DIR=str(home / "data"), JETWISE_RUNS_DIR=str(home / "runs"), HOME=str(home),
               XDG_CONFIG_HOME=str(home / "config"), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONPATH", None)  # a frozen program must find everything in its own folder
    return env


WINE_INTERNAL_ERROR = 1359  # ERROR_INTERNAL_ERROR: Wine's CreateProcess now and then fails to start a process
LAUNCH_TRIES = 3


def started(command: list[str], **options: Any) -> subprocess.Popen[str]:
    """`subprocess.Popen(command, text=True, **options)`, tried again when Wine's CreateProcess fails with
    ERROR_INTERNAL_ERROR before the program ran (seen once in a lane, between two launches that worked; Windows does
    not); any other error, or the last try's, is raised."""
    for _ in range(LAUNCH_TRIES - 1):
        try:
            return subprocess.Popen(command, text=True, **options)
        except OSError as error:
            if getattr(error, "winerror", None) != WINE_INTERNAL_ERROR:
                raise
    return subprocess.Popen(command, text=True, **options)


def jetwise(program: list[str], *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    with started([*program, *args], cwd=cwd, env=environment(cwd), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def small_config(program: list[str], folder: Path) -> Path:
    """Two small databases, 1 s of warm-up and 2 s of test."""
    config = folder / "small.json"
    made = jetwise(program, "init", str(config), "--databases", "2", "--db-path", str(folder / "DB{n}"), "--log-path",
                   str(folder / "Log{n}"), "--mailboxes", "8", "--mailbox-size-mb", "1", "--duration", "2s",
                   "--warmup", "1s", "--cache-min-mb", "1", "--cache-max-mb", "2", cwd=folder)
    assert made.returncode == 0, made.stderr
    return config


def kill_when_measuring(program: list[str], folder: Path,
                        before_kill: Callable[[list[psutil.Process]], object] = lambda _: None) -> tuple[list[psutil.Process], str]:
    """Start a ten-minute run of two small databases and kill its runner (SIGKILL, TerminateProcess) once it
    measures: its workers as they were, and what it said. `before_kill` sees the workers first."""
    made = jetwise(program, "init", "long.json", "--databases", "2", "--db-path", str(folder / "DB{n}"), "--log-path",
                   str(folder / "Log{n}"), "--mailboxes", "8", "--mailbox-size-mb", "1", "--cache-min-mb", "1",
                   "--cache-max-mb", "2", "--duration", "10m", "--warmup", "0s", cwd=folder)
    assert made.returncode == 0, made.stderr
    runner = started([*program, "run", "long.json", "--output", str(folder / "run")], cwd=folder,
                     env=environment(folder), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    said = said_until(runner)
    workers = [p for p in psutil.Process(runner.pid).children(recursive=True) if not is_wine_desktop(p)]
    before_kill(workers)
    runner.kill()
    runner.wait(30)
    assert runner.stderr is not None
    runner.stderr.close()
    return workers, "".join(said)


def said_until(process: subprocess.Popen[str], words: str = "[measure") -> list[str]:
    """The lines a started run wrote on its standard error, up to the first that holds `words` (its first measured
    sample's line by default)."""
    assert process.stderr is not None
    said = []
    for line in process.stderr:
        said.append(line)
        if words in line:
            break
    return said


def is_wine_desktop(process: psutil.Process) -> bool:
    """The desktop process Wine starts as a child of the first program that loads user32 (it ends with it)."""
    try:
        line = process.cmdline()
    except (psutil.Error, OSError):
        return False
    return sys.platform == "win32" and bool(line) and line[0].lower().endswith("explorer.exe") and "/desktop" in line


def window_run(program: list[str], folder: Path) -> tuple[dict[str, object], list[list[str]]]:
    """`jetwise window CONFIG --start` to its result: the result document, and the command lines of the processes
    the window started (its engine, and the engine's workers)."""
    config = small_config(program, folder)
    window = started([*program, "window", str(config), "--start"], cwd=folder, env=environment(folder),
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: dict[int, list[str]] = {}
    deadline = time.monotonic() + WINDOW_WAIT_S
    results: list[Path] = []
    try:
        while time.monotonic() < deadline and not results and window.poll() is None:
            for child in psutil.Process(window.pid).children(recursive=True):
                try:
                    seen.setdefault(child.pid, child.cmdline())
                except psutil.Error:
                    pass
            results = list((folder / "runs").rglob("result.json"))
            time.sleep(0.1)
    finally:
        ended = window.poll()
        window.terminate()
        _out, err = window.communicate(timeout=30)
    assert ended is None, f"the window ended ({ended}) before its result: {err}"
    assert results, f"no result within {WINDOW_WAIT_S} s: {err}"
    return json.loads(results[0].read_text(encoding="utf-8")), list(seen.values())
