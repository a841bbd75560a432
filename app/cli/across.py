"""`jetwise run CONFIG --hosts HOST[=FILE],...`: one test across servers, from this controller, as a run.

Each HOST is an enrolled server (`jetwise hosts add`) whose agent runs its share of CONFIG; FILE (its own Jetwise
configuration or JetstressConfig.xml) gives that server's own database, log and backup folders, and must be CONFIG in
everything else (`servers_of`). The controller listens for the agents (`listening`); the run's interval source is
their agents (`engine.hosts.source.HostsSource`): every server's measured clock starts at one instant once all
databases are ready, the run's figures are their counters summed, each server's share is judged on its own, and all
of them stop when one fails or the engineer stops it. Its run folder is a run's, with each server's copy of its own run
folder under `hosts/`. `jetwise tune` and `jetwise suite` take their servers here too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from app.cli.configs import load_or_say
from app.cli.options import duration_type, path_type, port_type
from app.context import UsageError
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
from engine.protocol import ExitCode
from engine.run.runner import IntervalSource
from engine.store.paths import hosts_folder

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


def with_source(args: argparse.Namespace, config: TestConfig, work: Callable[[IntervalSource | None], T], *,
                say: Callable[[str], None] = lambda words: print(words, file=sys.stderr, flush=True),
                arrived: Arrived | None = None, refused: Callable[[str], None] | None = None) -> T | int:
    """`work` with the run's interval source, for every command that runs: none (this server's own) for a test on this
    server; across the servers `config` names, their agents once every one has connected (`arrived` hears who has, and
    the time left); or the exit code of what kept them apart, said (`refused`: a front end's own way to say it)."""
    if not config.servers:
        return work(None)
    hosts = config.server_names

    def across() -> T:
        with listening(enrolled_roster(hosts), hosts, port=args.port, wait_s=args.wait, say=say,
                       arrived=arrived) as controller:
            return work(HostsSource(controller, simulate=args.simulate))

    try:
        return across()
    except (UsageError, *NOT_BEGUN) as exc:  # nothing began: the engineer can change what kept the servers apart
        if refused is None:
            raise UsageError(str(exc)) from None
        refused(str(exc).removeprefix("--hosts: "))
        return ExitCode.INVALID
    except KeyboardInterrupt:
        print("Stopped while waiting for the agents: no test began.", file=sys.stderr)
        return ExitCode.ABORTED
