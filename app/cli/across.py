"""`jetwise run CONFIG --hosts HOST[=FILE],...`: one test across servers, from this controller.

Each HOST is an enrolled server (`jetwise hosts add`) whose agent runs its part; it runs CONFIG, or FILE (its own
Jetwise configuration or JetstressConfig.xml: its databases, paths and thread setting). What the servers share (test
type, duration, warm-up, sample interval, thresholds) must be the same in each file. The controller listens for the
agents, starts every server's measured clock at one instant once all databases are ready, shows each interval summed
across the servers, stops all of them when one fails or the engineer stops it, and judges each server and the whole.
Its run folder holds `test.json` (the test's verdict, each server's row and the aggregate), `test.log`, and each
server's run folder under `hosts/`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

from app.cli.configs import load_or_say, with_changes
from app.cli.console import ConsoleRenderer, print_problems
from app.cli.options import duration_type, path_type, port_type
from app.cli.signals import run_or_refuse
from app.context import AppContext, UsageError
from engine.hosts.across import AcrossView, TestAcross, shared_problems
from engine.hosts.controller import Arrived, Controller, HostsMissingError
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import CONTROLLER_LOG, log_link_to
from engine.hosts.port import PortInUseError, controller_on
from engine.hosts.roster import CONTROLLER_PORT, Roster, RosterError
from engine.hosts.source import HostsSource
from engine.model.config import TestConfig
from engine.model.host_names import host_problem
from engine.model.options import option
from engine.model.profile import ServerPart
from engine.protocol import ExitCode, LogEvent, PhaseEvent, RefusalEvent, RunEvent
from engine.results.across_schema import AcrossResult
from engine.results.clock import MeasuredClock
from engine.results.schema import IntervalSample, RunResult
from engine.run.sweep import SweepPlan
from engine.store.paths import hosts_folder
from reporting.across import write_across_report
from reporting.bundle import ReportError

T = TypeVar("T")


def host_files(spec: str) -> dict[str, Path | None]:
    """`--hosts`: each host, with its own configuration file where one is given (HOST=FILE), for the command line and
    the engine process alike: every host a host name or address named once, every FILE one that exists."""
    hosts: dict[str, Path | None] = {}
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        host, given, file = item.partition("=")
        if (problem := host_problem(host)) is not None:
            raise argparse.ArgumentTypeError(f"{item!r}: {problem}")
        if any(host.casefold() == named.casefold() for named in hosts):  # a host name is not case-sensitive
            raise argparse.ArgumentTypeError(f"{item!r}: give each server once, as HOST or HOST=FILE")
        hosts[host] = _own_file(item, file) if given else None
    if not hosts:
        raise argparse.ArgumentTypeError("name at least one server: HOST[=FILE],...")
    return hosts


def _own_file(item: str, file: str) -> Path:
    """The configuration file after HOST=, which must be one that exists."""
    if not file.strip():
        raise argparse.ArgumentTypeError(f"{item!r}: give the server's own configuration after = (HOST=FILE), or the "
                                         "server alone (HOST) to run CONFIG")
    path = path_type(file)
    if path.is_dir() or not path.exists():
        where = "is a folder" if path.is_dir() else "does not exist"
        raise argparse.ArgumentTypeError(f"{item!r}: {path} {where}; give the server's own configuration file")
    return path


def add_host_arguments(parser: argparse.ArgumentParser, hosts_help: str, metavar: str = "HOST[=FILE],...") -> None:
    """--hosts, and where and how long the controller listens for their agents."""
    parser.add_argument("--hosts", type=host_files, default=None, metavar=metavar, help=hosts_help)
    parser.add_argument("--port", type=port_type, default=CONTROLLER_PORT, metavar="PORT",
                        help=f"with --hosts: where the controller listens for the agents (default: {CONTROLLER_PORT})")
    parser.add_argument("--wait", type=duration_type(option("duration_s")), default=120.0, metavar="DURATION",
                        help="with --hosts: how long to wait for every agent to connect (default: 120s)")


# What ends a test across servers before it begins, said in words: a server not enrolled or its key unreadable, the
# port held by another program, an agent that never connected.
NOT_BEGUN = (RosterError, KeyStoreError, PortInUseError, HostsMissingError)


def before_a_test(body: Callable[[], T]) -> T | int:
    """`body`'s answer, or the exit code of what ended it before a test began (said): a server not enrolled or its
    key unreadable, the port held by another program, an agent that never connected, a Ctrl-C while waiting for them
    (each an exit code 2 but the Ctrl-C: nothing began, and the engineer can change what stopped it)."""
    try:
        return body()
    except NOT_BEGUN as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    except KeyboardInterrupt:
        print("Stopped while waiting for the agents: no test began.", file=sys.stderr)
        return ExitCode.ABORTED


class ConsoleAcross(AcrossView):
    """A test across servers on the console: the controller's lines, each server's phases and warnings, the sum."""

    def __init__(self, stream: TextIO, *, intervals: bool = True) -> None:
        self.stream = stream
        self.intervals = intervals  # each interval summed, a line each (tuning says its steps and runs instead)
        self.clock = MeasuredClock()  # "measure" counts from the start of measuring, as a run alone's console does

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def host_event(self, host: str, event: RunEvent) -> None:
        if isinstance(event, PhaseEvent):
            self._print(f"[{host}] {event.message}")
        elif isinstance(event, LogEvent) and event.level != "info":
            self._print(f"[{host}] {event.level}: {event.message}")
        elif isinstance(event, RefusalEvent):
            for problem in event.problems:
                self._print(f"[{host}] refused: {problem.located}")

    def summed(self, sample: IntervalSample) -> None:
        if not self.intervals:
            return
        self.clock.add(sample)
        measured_s = self.clock.measured_s(sample)
        figures = sample.summary
        when = f"warm-up {sample.elapsed_s:5.0f} s" if measured_s is None else f"measure {measured_s:5.0f} s"
        self._print(f"  all servers [{when}] {figures.transactional_iops:,.0f} transactional "
                    f"IOPS | DB read {figures.db_read_avg_latency_ms:.2f} ms | log write "
                    f"{figures.log_write_avg_latency_ms:.2f} ms")

    def said(self, line: str) -> None:
        self._print(line)


def configs_of(config_path: Path, hosts: dict[str, Path | None], overrides: dict[str, Any]) -> dict[str, TestConfig] | None:
    """Each server's configuration, the command line's changes made to each (None once the problems are printed,
    each file named)."""
    shared = load_or_say(config_path, sys.stderr)
    if shared is None:
        return None
    configs: dict[str, TestConfig] = {}
    for host, path in hosts.items():
        own = shared if path is None else load_or_say(path, sys.stderr)
        if own is not None and overrides:
            own = with_changes(own, overrides, sys.stderr)
        if own is None:
            print(f"--hosts {host}{'' if path is None else f'={path}'}: its configuration cannot be used", file=sys.stderr)
            return None
        configs[host] = own
    problems = shared_problems(configs)
    if problems:
        for host, words in problems:
            print(f"error: --hosts {host}: {words}", file=sys.stderr)
        return None
    return configs


def enrolled_roster(hosts: list[str]) -> Roster:
    """The controller's roster, every host in it enrolled (UsageError naming those that are not)."""
    if Roster.file_in(hosts_folder()) is None:
        raise UsageError("--hosts: no server enrolled: jetwise hosts add HOST")
    roster = Roster(hosts_folder(), KeyStore())
    enrolled = {entry.name for entry in roster.hosts()}
    unknown = [host for host in hosts if host not in enrolled]
    if unknown:
        raise UsageError(f"--hosts: {', '.join(unknown)} not enrolled (enrolled: {', '.join(sorted(enrolled)) or 'none'}); "
                         "jetwise hosts add HOST")
    return roster


def test_across(configs: dict[str, TestConfig], output: Path, view: AcrossView, *, port: int, wait_s: float,
                simulate: str | None, say: Callable[[str], None], started: Callable[[TestAcross], None],
                sweep: SweepPlan | None = None, arrived: Arrived | None = None) -> AcrossResult:
    """Listen for the servers' agents, then run the test across them (a load sweep in lockstep with `sweep`): for the
    command line and the engine process. Raises UsageError, RosterError, KeyStoreError, PortInUseError or
    HostsMissingError before the test begins."""
    with listening(enrolled_roster(list(configs)), list(configs), port=port, wait_s=wait_s, say=say,
                   arrived=arrived) as controller:
        test = TestAcross(controller, configs, output, view, simulate=simulate, sweep=sweep)
        started(test)
        return test.run()


@contextmanager
def listening(roster: Roster, hosts: list[str], *, port: int, wait_s: float,
              say: Callable[[str], None], arrived: Arrived | None = None) -> Iterator[Controller]:
    """The controller listening on `port` (PortInUseError when another program holds it), every one of `hosts`' agents
    connected within `wait_s` (HostsMissingError naming those that did not), each refusal said as it happens, the
    link's own log in the controller's file; closed on leaving."""
    log_link_to(hosts_folder() / CONTROLLER_LOG)
    with controller_on(roster, port, said=lambda words: say(words[:1].upper() + words[1:])) as controller:
        say(f"Listening at {controller.address}; waiting for {', '.join(hosts)}...")
        controller.wait_for(hosts, wait_s, arrived)
        yield controller


def write_report(output: Path, say: Callable[[str], None]) -> None:
    """The combined report in the test's folder, however the test ended; one that cannot be written is said."""
    try:
        say(f"Combined report: {write_across_report(output)} (a PDF: jetwise report {output} --pdf FILE)")
    except (ReportError, OSError) as exc:
        say(f"note: the combined report was not written: {exc}")


OWN_FIELDS = ("databases", "backup_path", "description", "servers")  # a server's own file gives its folders (and words)


def servers_of(config: TestConfig, hosts: dict[str, Path | None]) -> TestConfig | None:
    """CONFIG across `hosts`: each server runs it, in its own folders where its own file (HOST=FILE) gives them; None
    once the problems are printed, each file named. A server's own file gives its folders and nothing else: every server
    runs the test's one design, at its one setting, so each share means the same."""
    servers: list[ServerPart] = []
    for host, path in hosts.items():
        own = None if path is None else load_or_say(path, sys.stderr)
        if path is not None and own is None:
            print(f"--hosts {host}={path}: its configuration cannot be used", file=sys.stderr)
            return None
        if own is not None:
            differs = [name for name in TestConfig.model_fields if name not in OWN_FIELDS
                       and getattr(own, name) != getattr(config, name)]
            if differs:
                named = " and ".join([", ".join(differs[:-1]), differs[-1]] if len(differs) > 1 else differs)
                print(f"error: --hosts {host}={path}: its {named} {'is' if len(differs) == 1 else 'are'} not CONFIG's: "
                      "every server runs the test's one design, and a server's own file gives only its database, log "
                      "and backup folders", file=sys.stderr)
                return None
        try:
            servers.append(ServerPart(host=host, databases=own.databases if own is not None else [],
                                      backup_path=own.backup_path if own is not None else None))
        except ValueError as exc:
            print(f"error: --hosts {host}: {exc}", file=sys.stderr)
            return None
    try:
        return TestConfig.model_validate({**config.model_dump(), "servers": [s.model_dump() for s in servers]})
    except ValueError as exc:
        print(f"error: --hosts: {exc}", file=sys.stderr)
        return None


def run_across(args: argparse.Namespace, context: AppContext, config: TestConfig, output: Path) -> int:
    """`jetwise run CONFIG --hosts ...`: the run, its servers' agents its source."""
    across = servers_of(config, args.hosts)
    if across is None:
        return ExitCode.INVALID
    hosts = across.server_names
    roster = enrolled_roster(hosts)  # every server enrolled, or said before anything is made
    session = context.session(args.session or args.config.stem, across, lambda words: print(f"note: {words}", file=sys.stderr))
    print(f"Run folder: {output}", file=sys.stderr)

    def say(words: str) -> None:
        print(words, file=sys.stderr, flush=True)

    def the_test() -> RunResult | None:
        with listening(roster, hosts, port=args.port, wait_s=args.wait, say=say) as controller:
            runner = context.runner(across, output, ConsoleRenderer(sys.stderr), session=session,
                                    source=HostsSource(controller, simulate=args.simulate))
            return run_or_refuse(runner.request_stop, runner.run, lambda problems: print_problems(problems, sys.stderr))

    result = before_a_test(the_test)
    if isinstance(result, int):
        return result
    if result is None:
        return ExitCode.INVALID
    if args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    print(f"Results: {output}", file=sys.stderr)
    return ExitCode.of(result.verdict)


def _print_tables(result: AcrossResult) -> None:
    out = sys.stderr
    print(f"\nIndividual server metrics ({result.test_type}):", file=out)
    print(f"  {'server':<18} {'verdict':<8} {'target':>9} {'achieved':>9} {'DB rd/s':>9} {'DB wr/s':>9} {'log wr/s':>9} "
          f"{'rd ms':>7} {'wr ms':>7} {'log ms':>7}", file=out)
    for row in result.servers:
        verdict = row.outcome.value.upper() if row.outcome is not None else "NO RESULT"
        print(f"  {row.host:<18} {verdict:<8} {row.target_transactional_iops:>9,.0f} {row.achieved_transactional_iops:>9,.1f} "
              f"{row.db_reads_per_s:>9,.1f} {row.db_writes_per_s:>9,.1f} {row.log_writes_per_s:>9,.1f} "
              f"{row.db_read_avg_latency_ms:>7.2f} {row.db_write_avg_latency_ms:>7.2f} {row.log_write_avg_latency_ms:>7.2f}",
              file=out)
    total = result.aggregate
    print(f"Aggregate across all servers ({total.servers} with a result; I/O summed, latency averaged):", file=out)
    print(f"  {'all':<18} {result.outcome.value.upper():<8} {total.target_transactional_iops:>9,.0f} "
          f"{total.achieved_transactional_iops:>9,.1f} {total.db_reads_per_s:>9,.1f} {total.db_writes_per_s:>9,.1f} "
          f"{total.log_writes_per_s:>9,.1f} {total.db_read_avg_latency_ms:>7.2f} {total.db_write_avg_latency_ms:>7.2f} "
          f"{total.log_write_avg_latency_ms:>7.2f}", file=out)
    for words in result.reasons:
        print(f"  {words}", file=out)
    print(f"Test across servers: {result.outcome.value.upper()}", file=out)
