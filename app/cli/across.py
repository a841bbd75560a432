"""`jetwise run CONFIG --hosts HOST[=FILE],...`: one test across servers, from this controller, as a run.

Each HOST is an enrolled server (`jetwise hosts add`) whose agent runs its share of CONFIG; FILE (its own Jetwise
configuration or JetstressConfig.xml) gives that server's own database, log and backup folders, and must be CONFIG in
everything else (`servers_of`). The run's interval source is their agents
(`engine.run.sources.servers.HostsSource`, opened by `app.opening`): every server's measured clock starts at one instant once all
databases are ready, the run's figures are their counters summed, each server's share is judged on its own, and all
of them stop when one fails or the engineer stops it. Its run folder is a run's, with each server's copy of its own run
folder under `hosts/`. `jetwise tune` and `jetwise suite` take their servers here too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.configs import load_or_say
from app.cli.options import duration_type, path_type, port_type
from engine.hosts.roster import CONTROLLER_PORT
from engine.model.config import TestConfig
from engine.model.host_names import host_problem
from engine.model.options import option
from engine.model.profile import ServerPart
from engine.run.request import RunRequest


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


def request_of(args: argparse.Namespace, config: TestConfig | None, **what: object) -> RunRequest | None:
    """The request a command's arguments make of `config` (`what`: what to run, where, in which session): across the
    servers --hosts names when given, else those `config` names; None once the problems are printed."""
    if config is not None and args.hosts is not None:
        config = servers_of(config, args.hosts)
    if config is None:
        return None
    return RunRequest.model_validate({"config": config, "simulate": args.simulate, "port": args.port,
                                      "wait_s": args.wait, **what})
