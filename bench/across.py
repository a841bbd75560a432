"""A test across 16 servers of 12 databases each on the simulated device, through the real links (WebSockets over
mutual TLS): does the controller keep up with the sample stream?

    python bench/across.py [--hosts 16] [--databases 12] [--minutes 30] [--json FILE]

Sixteen agents, each its own process and data folder on its own loopback address (127.0.1.N), enrolled as an engineer
enrols them; the controller runs in this process (its links and the test's loop, as `jetwise run --hosts` runs
them). Each server plays a Performance test of `--minutes` in virtual time on the simulated device: every server
sends its samples as fast as its model makes them, far faster than one a second, so the stream is at its heaviest.
Measured at the controller (the test is a run whose source is the servers' agents, `engine.run.sources.servers`): samples
handled per second (taken from the links, written into its copy of each server's folder, added into the one
measurement), its CPU seconds per 1,000 samples and what that makes of one core at the real rate (one sample per
server per second), and its peak memory.
The reference, measured in the same run: the same server's test run alone here (as `jetwise run --simulate` runs it),
writing its own folder — the rate one run makes samples with no controller in between, first sample to last.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.hosts.controller import Controller  # noqa: E402
from engine.hosts.keys import KeyStore  # noqa: E402
from engine.hosts.logs import log_link_to  # noqa: E402
from engine.hosts.membership import enrol  # noqa: E402
from engine.hosts.roster import Roster  # noqa: E402
from engine.model.config import TestType, default_config  # noqa: E402
from engine.model.profile import ServerPart  # noqa: E402
from engine.protocol import IntervalEvent, RunEvent  # noqa: E402
from engine.run.runner import Runner  # noqa: E402
from engine.run.sources.model import PROFILES, runner_for  # noqa: E402
from engine.run.sources.servers import HostsSource  # noqa: E402

PROFILE = "sas-8x10k"


class Counting:
    """The front end: counts the intervals the run shows (across servers, each of every server's samples)."""

    def __init__(self, per_interval: int = 1) -> None:
        self.per_interval = per_interval  # samples one interval shown holds: one per server
        self.samples = 0
        self.first: float | None = None
        self.last = 0.0

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, IntervalEvent):
            now = time.perf_counter()
            self.first = self.first or now
            self.last = now
            self.samples += self.per_interval


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--databases", type=int, default=12)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jetwise-across-"))
    keys = KeyStore()
    agents: list[subprocess.Popen[bytes]] = []
    roster = Roster(work / "controller" / "hosts", keys)
    names = [f"127.0.1.{n}" for n in range(1, args.hosts + 1)]
    config = default_config(work / "databases", databases=args.databases, test_type=TestType.PERFORMANCE,
                            duration_s=args.minutes * 60, warmup_s=0.0, sample_interval_s=1.0,
                            thread_count=2 * args.databases)
    try:
        # the reference: one server's test alone, writing its own folder, timed from its first sample to its last
        alone = Counting()
        runner_for(PROFILES[PROFILE], config, work / "alone-run", alone).run()
        intervals = round(args.minutes * 60)
        alone_rate = (alone.samples - 1) / (alone.last - (alone.first or alone.last))

        log_link_to(work / "controller.log")
        with Controller(roster, host="127.0.0.1", port=0) as controller:
            for name in names:
                added = roster.add(name, controller.address, work)
                enrol(added.bundle, added.code, work / name / "agent", keys)
                agents.append(subprocess.Popen(
                    [sys.executable, "-m", "app", "agent", "--once", "--listen", name], cwd=ROOT,
                    env=dict(os.environ, JETWISE_DATA_DIR=str(work / name)), stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
            controller.wait_for(names, timeout_s=300)
            view = Counting(per_interval=len(names))
            across = config.model_copy(update={"servers": [ServerPart(host=name) for name in names]})
            runner = Runner(across, work / "test", view, source=HostsSource(controller, simulate=PROFILE))
            cpu0 = _cpu_s()
            result = runner.run()
            cpu = _cpu_s() - cpu0
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        span = view.last - (view.first or view.last)
        expected = intervals * args.hosts
        rate = (view.samples - 1) / span if span else float("nan")
        per_1000 = cpu / view.samples * 1000 if view.samples else float("nan")
        real_share = cpu / view.samples * args.hosts * 100 if view.samples else float("nan")  # % of a core at 1/s each
        figures = {
            "hosts": args.hosts, "databases": args.databases, "minutes": args.minutes, "outcome": result.verdict.value,
            "samples": view.samples, "expected": expected, "stream_s": round(span, 1),
            "handled_per_s": round(rate, 1), "alone_per_s": round(alone_rate, 1),
            "ratio_vs_alone": round(rate / alone_rate, 2), "controller_cpu_s": round(cpu, 1),
            "cpu_s_per_1000": round(per_1000, 2), "real_time_core_percent": round(real_share, 2),
            "peak_rss_mb": round(peak_mb),
        }
        print(json.dumps(figures, indent=1))
        print(f"\n{args.hosts} servers x {args.databases} databases, {args.minutes:g} min each: {view.samples:,} of "
              f"{expected:,} samples handled in {span:.1f} s = {rate:,.0f}/s; one server alone makes {alone_rate:,.0f}/s "
              f"(ratio {rate / alone_rate:.2f}); controller CPU {per_1000:.2f} s per 1,000 samples = {real_share:.2f} % "
              f"of a core at one sample per server per second; peak {peak_mb:.0f} MB")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    finally:
        for agent in agents:
            if agent.poll() is None:
                agent.kill()
            agent.wait()
        for name in names:
            member = work / name / "agent"
            if (member / "agent.json").exists():
                from engine.hosts.membership import membership_in

                found = membership_in(member)
                if found is not None:
                    keys.remove(found.key_name)
        found_roster = Roster.file_in(work / "controller" / "hosts")
        if found_roster is not None:
            from engine.hosts.roster import key_name

            for what in ("authority", "controller"):
                keys.remove(key_name(what, found_roster.authority_pem))
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
