"""JetstressCmd's switches as runbooks type them: `/c CONFIG.xml /timeout 2H0M0S /threads 8 /new /dbpath E:\\DB1 ...`.

A switch starts with `/` or `-` and is matched without regard to case; its values are the words up to
the next switch. A path on Linux starts with `/` too, so only the switch names below are switches:
`/c /tmp/config.xml` reads `/tmp/config.xml` as the value of /c, while `/c a.xml /bogus` refuses /bogus as a
switch JetstressCmd does not have, not as a second value of /c.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from app.context import UsageError
from engine.model.config import MAX_DURATION_S
from engine.model.units import as_typed, parse_duration_s

# switch -> how many values it takes: 0, 1, or "+" (one or more)
SWITCHES: dict[str, int | str] = {
    "c": 1, "timeout": 1, "threads": 1, "new": 0, "open": 0, "dbpath": "+", "logpath": "+", "output": 1,
    "pctcapacity": 1, "throughput": 1, "?": 0, "g": 0,
}
HELP = """usage: jetwise cmd /c CONFIG.xml [/timeout 2H0M0S] [/threads N] [/new | /open] [/dbpath DIR ...]
                   [/logpath DIR ...] [/pctcapacity N] [/throughput N] [/output DIR] [--simulate PROFILE]

JetstressCmd's switches, so that a runbook works by changing the program's name:
  /c CONFIG        the JetstressConfig.xml (or a Jetwise configuration) to run
  /timeout D       the test's length (2H40M0S, or 2h40m); a performance test over 6 hours runs as a stress test
  /threads N       the thread count; omitted, the file's ThreadCount with SuppressTuning true, else auto-tune first
  /new | /open     create the databases, or attach those a previous test left
  /dbpath DIR ...  the databases' folders, one per database (in place of the file's EseInstances)
  /logpath DIR ... the logs' folders, one per database
  /pctcapacity N   the share of the databases' size to create, in percent; in the disk throughput scenario, the
                   share of each database volume's free space the databases take
  /throughput N    run the disk subsystem throughput scenario: no target, auto-tune (unless /threads) finds the most
                   transactional IOPS that pass; mailboxes are planned at N percent of it
  /output DIR      where the result files go (default: the current folder): <Type>_<yyyy>_<M>_<d>_<H>_<m>_<s>.html
                   and .xml, beside a folder per run with Jetwise's own files
  --simulate P     run on a simulated storage model instead of the disk (Jetwise's, for rehearsals)
Exit code: 0 Pass, 1 Fail, 2 bad input, 3 stopped or an error.
"""
_LIKE_A_SWITCH = re.compile(r"[/-][A-Za-z?]+")  # /bogus: a mistyped switch where its switch has its values already


@dataclass
class CmdSwitches:
    config: Path | None = None
    timeout_s: float | None = None
    threads: int | None = None
    source: str | None = None  # "create" or "attach"
    dbpath: list[str] = field(default_factory=list)
    logpath: list[str] = field(default_factory=list)
    output: Path | None = None
    capacity_percent: float | None = None
    throughput_percent: float | None = None  # given: the disk subsystem throughput scenario
    simulate: str | None = None
    help: bool = False


def _switch(word: str) -> str | None:
    if word.lower() == "--simulate":
        return "simulate"
    if len(word) < 2 or word[0] not in "/-":
        return None
    name = word.lstrip("/-").lower()
    return name if name in SWITCHES else None


def _number(switch: str, text: str, low: float, high: float, whole: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"/{switch} takes a number (got {as_typed(text)})") from None
    if not math.isfinite(value) or not low <= value <= high:  # 5,000 digits are infinity as a float
        raise UsageError(f"/{switch} takes {low:g} to {high:g} (got {as_typed(text)})")
    if whole and value != int(value):
        raise UsageError(f"/{switch} takes a whole number (got {as_typed(text)})")
    return value


def _groups(words: list[str]) -> list[tuple[str, list[str]]]:
    groups: list[tuple[str, list[str]]] = []
    for word in words:
        name = _switch(word)
        if name is not None:
            groups.append((name, []))
        elif not groups:
            raise UsageError(f"'{word}' is not a switch; JetstressCmd's switches start with / (jetwise cmd /? lists them)")
        else:
            groups[-1][1].append(word)
    return groups


def parse_switches(words: list[str]) -> CmdSwitches:
    """The switches, every value checked; a `UsageError` names the first one wrong."""
    found = CmdSwitches()
    seen: set[str] = set()
    for name, values in _groups(words):
        wanted = 1 if name == "simulate" else SWITCHES[name]
        if name in seen and name not in ("dbpath", "logpath"):
            raise UsageError(f"/{name} is given twice; give it once")
        seen.add(name)
        stray = next((value for value in values if _LIKE_A_SWITCH.fullmatch(value)), None)
        if stray is not None and isinstance(wanted, int) and len(values) > wanted:
            raise UsageError(f"{stray} is not one of JetstressCmd's switches (jetwise cmd /? lists them)")
        if wanted == 0 and values:
            raise UsageError(f"/{name} takes no value (got '{values[0]}')")
        if wanted == 1 and len(values) != 1:
            raise UsageError(f"/{name} takes one value (got {len(values)}: {' '.join(values) or 'none'})")
        if wanted == "+" and not values:
            raise UsageError(f"/{name} takes one folder per database (got none)")
        _apply(found, name, values)
    if "new" in seen and "open" in seen:
        raise UsageError("/new and /open contradict each other; give one")
    if not found.help and found.config is None:
        raise UsageError("give the configuration with /c CONFIG.xml (jetwise cmd /? lists the switches)")
    return found


def _apply(found: CmdSwitches, name: str, values: list[str]) -> None:
    value = values[0] if values else ""
    if name == "c":
        found.config = Path(value)
    elif name == "timeout":
        try:
            found.timeout_s = parse_duration_s(value)
        except ValueError as exc:
            raise UsageError(f"/timeout {value}: {exc}") from None
        if found.timeout_s > MAX_DURATION_S:
            raise UsageError(f"/timeout {value} is longer than {MAX_DURATION_S / 86400:g} days, the longest test")
    elif name == "threads":
        found.threads = int(_number(name, value, 1, 10_000, whole=True))
    elif name in ("new", "open"):
        found.source = "create" if name == "new" else "attach"
    elif name in ("dbpath", "logpath"):
        getattr(found, name).extend(values)
    elif name == "output":
        found.output = Path(value)
    elif name == "pctcapacity":
        found.capacity_percent = _number(name, value, 0.001, 100)
    elif name == "throughput":
        found.throughput_percent = _number(name, value, 0.001, 100)
    elif name == "simulate":
        found.simulate = value
    elif name == "?":
        found.help = True
    else:  # /g
        raise UsageError("/g (generate a configuration) is not taken: write one with jetwise init, or the window's "
                         "File > Save as Jetstress XML")
