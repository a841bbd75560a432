"""`jetwise hosts add HOST | list | remove HOST | check | reset`: the servers a test across servers runs on, as the
controller keeps them. `add` writes HOST's one-time enrolment bundle and shows the code that opens it and its
certificate's fingerprint; `remove` makes the controller refuse HOST's certificate from then on; `check` listens as the
controller until every enrolled agent has connected, and says each with its certificate's fingerprint; `reset` starts
the controller's authority anew (its keys lost, as a Linux controller's are when it restarts): every server is then
enrolled again."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from app.cli.options import controller_type, duration_type, host_type, path_type, port_type
from app.context import AppContext, UsageError, writable_destination
from engine.hosts.controller import HostsMissingError
from engine.hosts.enrolment import BUNDLE_SUFFIX, bundle_name
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import CONTROLLER_LOG, log_link_to
from engine.hosts.port import PortInUseError, controller_on
from engine.hosts.roster import CONTROLLER_PORT, Roster, RosterError
from engine.hosts.trust import fingerprint
from engine.model.options import option
from engine.model.units import sentence
from engine.protocol import ExitCode
from engine.store.paths import hosts_folder

NONE_ENROLLED = "no server enrolled: jetwise hosts add HOST"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="enrol a server: write its one-time bundle and show its code")
    add.add_argument("host", type=host_type, metavar="HOST",
                     help="the server's host name or address, as the controller reaches it")
    add.add_argument("--controller", type=controller_type, metavar="ADDRESS",
                     help=f"where the agent finds this controller, tls://HOST:PORT (default: tls://{socket.getfqdn()}:"
                          f"{CONTROLLER_PORT})")
    add.add_argument("--folder", type=path_type, default=Path.cwd(), metavar="FOLDER",
                     help=f"where to write HOST{BUNDLE_SUFFIX} (default: the current folder)")
    actions.add_parser("list", help="the servers enrolled, with their certificates' fingerprints")
    remove = actions.add_parser("remove", help="remove a server: its certificate is refused from then on")
    remove.add_argument("host", metavar="HOST")
    check = actions.add_parser("check", help="listen for the agents and say each that connects, by its certificate")
    check.add_argument("--port", type=port_type, default=CONTROLLER_PORT, metavar="PORT",
                       help=f"where to listen (default: {CONTROLLER_PORT})")
    check.add_argument("--timeout", type=duration_type(option("duration_s")), default=60.0, metavar="DURATION",
                       help="how long to wait for every agent (default: 60s)")
    reset = actions.add_parser("reset", help="start this controller's authority anew: its keys and every server "
                                             "enrolled removed, each to be enrolled again")
    reset.add_argument("--yes", action="store_true", help="reset without asking")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    if args.action == "add":  # before anything is made for the server
        writable_destination("--folder", args.folder, folder=True)  # a file in its way said there
        if not args.folder.is_dir():
            raise UsageError(f"--folder {args.folder} does not exist; give the folder to write {bundle_name(args.host)} in")
    try:
        if args.action != "add" and Roster.file_in(hosts_folder()) is None:  # nothing enrolled yet: nothing made
            return _none_enrolled(args)
        roster = Roster(hosts_folder(), KeyStore())
        if args.action == "add":
            controller = args.controller or f"tls://{socket.getfqdn()}:{CONTROLLER_PORT}"
            enrolled = roster.add(args.host, controller, args.folder)
            print(f"Enrolment bundle for {enrolled.host}: {enrolled.bundle}")
            print(f"  Copy it to {enrolled.host} and run there: jetwise agent --enrol {enrolled.bundle.name}")
            print(f"  One-time code (type it there; it is not written anywhere): {enrolled.code}")
            print(f"  Its certificate's fingerprint: {enrolled.fingerprint}")
            print(f"  The agent will connect to {controller}; its key stays in {roster.keys.where} on that server.")
            return ExitCode.PASS
        if args.action == "remove":
            removed = roster.remove(args.host)
            print(f"Removed {removed.name}: its certificate is refused from now on.")
            return ExitCode.PASS
        if args.action == "check":
            return _check(roster, args.port, args.timeout)
        if args.action == "reset":
            return _reset(roster, args.yes)
        hosts = roster.hosts()
        print(f"Authority {roster.authority_fingerprint}; keys in {roster.keys.where}")
        if not hosts:
            print(sentence(NONE_ENROLLED))
        for entry in hosts:
            redeemed = (f"its bundle redeemed {entry.redeemed_utc:%Y-%m-%d %H:%M} UTC from {entry.redeemed_from}"
                        if entry.redeemed_utc is not None else "its bundle not redeemed yet")
            print(f"  {entry.name}  enrolled {entry.enrolled_utc:%Y-%m-%d %H:%M} UTC  {fingerprint(entry.cert_pem)}  "
                  f"({redeemed})")
        return ExitCode.PASS
    except (RosterError, KeyStoreError, PortInUseError, HostsMissingError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID


def _none_enrolled(args: argparse.Namespace) -> int:
    if args.action == "list":
        print(sentence(NONE_ENROLLED))
        return ExitCode.PASS
    if args.action == "reset":
        print("Nothing to reset: this controller has no authority yet (jetwise hosts add HOST makes one).")
        return ExitCode.PASS
    said = f"{args.host} is not enrolled; enrolled: none" if args.action == "remove" else NONE_ENROLLED
    print(f"error: {said}", file=sys.stderr)
    return ExitCode.INVALID


def _check(roster: Roster, port: int, timeout_s: float) -> int:
    """Listen as the controller until every enrolled agent has connected: each said with its certificate."""
    hosts = roster.hosts()
    if not hosts:
        print(f"error: {NONE_ENROLLED}", file=sys.stderr)
        return ExitCode.INVALID
    log_link_to(hosts_folder() / CONTROLLER_LOG)
    with controller_on(roster, port) as controller:
        print(f"Listening at {controller.address} for {len(hosts)} agent(s) (start jetwise agent on each)...", flush=True)
        connected = controller.wait_for([entry.name for entry in hosts], timeout_s)
        for entry in hosts:
            print(f"  {entry.name}: connected from {connected[entry.name]}, certificate {fingerprint(entry.cert_pem)}")
        for refusal in controller.refusals:
            print(f"  note: {refusal.words}")
    print("Every agent connected over mutual TLS.")
    return ExitCode.PASS


def _reset(roster: Roster, yes: bool) -> int:
    """Start the controller's authority anew once the engineer has confirmed it (or gave --yes): what it removes, said
    before and after."""
    if not yes and (sys.stdin is None or not sys.stdin.isatty()):
        print("error: give --yes to reset: it removes this controller's authority and every server enrolled (jetwise "
              "hosts list shows them), and there is no console to confirm it in", file=sys.stderr)
        return ExitCode.INVALID
    hosts = [entry.name for entry in roster.hosts()]
    enrolled = f"every server enrolled ({', '.join(hosts)})" if hosts else "no server (none is enrolled)"
    print(f"Reset removes this controller's authority {roster.authority_fingerprint}, its keys in {roster.keys.where} "
          f"and {enrolled}; each server is then enrolled again (jetwise hosts add HOST here, jetwise agent --enrol "
          "FILE there).")
    if not yes and not _confirmed("Reset? [y/N] "):
        print("Nothing was reset.")
        return ExitCode.ABORTED
    authority = roster.authority_fingerprint
    removed = roster.reset()
    print(f"Removed the authority {authority} and its keys, and {len(removed)} enrolled server(s)"
          + (f": {', '.join(entry.name for entry in removed)}." if removed else "."))
    print("jetwise hosts add HOST starts a new authority.")
    return ExitCode.PASS


def _confirmed(question: str) -> bool:
    """Whether the engineer answered yes at the console (its input ending is said by `run_cli`, exit 2)."""
    return input(question).strip().lower() in ("y", "yes")
