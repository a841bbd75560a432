"""`jetwise agent --enrol FILE` once, then `jetwise agent`: this server as an agent of a test across servers.

Enrolling imports the bundle the controller wrote (the code typed, or given with --code), keeps the private key in the
operating system's credential store and deletes the bundle. Then `jetwise agent` connects to the controller over
mutual TLS (waiting for it to listen) and runs what each test asks of this server, test after test (--once: one).
Dask's own log goes to agent/agent.log in the data folder."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
import time

from app.cli.options import path_type, port_type
from app.context import AppContext
from engine.hosts.agent import AgentRefusedError, serve, wait_for_controller
from engine.hosts.enrolment import EnrolmentError
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import AGENT_LOG, quiet_dask
from engine.hosts.membership import enrol, membership_in
from engine.hosts.part import RUNS_FOLDER
from engine.hosts.port import PortInUseError, address_in_use
from engine.hosts.trust import fingerprint
from engine.protocol import ExitCode
from engine.store.paths import agent_folder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--enrol", type=path_type, metavar="FILE", help="import the bundle the controller wrote")
    parser.add_argument("--code", metavar="CODE", help="the bundle's one-time code (asked for when not given)")
    parser.add_argument("--listen", metavar="ADDRESS", help="the address the agent listens on (default: the one that "
                                                            "reaches the controller)")
    parser.add_argument("--port", type=port_type, default=0, metavar="PORT", help="the port it listens on (default: any)")
    parser.add_argument("--once", action="store_true", help="stop when the controller's test ends (default: wait for "
                                                            "the next test)")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    try:
        keys = KeyStore()
        if args.enrol is not None:
            if args.code is None and not sys.stdin.isatty():
                print("error: give the bundle's one-time code with --code (there is no console to type it in)",
                      file=sys.stderr)
                return ExitCode.INVALID
            code = args.code if args.code is not None else getpass.getpass("One-time code: ")
            membership = enrol(args.enrol, code, agent_folder(), keys)
            print(f"Enrolled as {membership.host}, controller {membership.controller}; the key is in {keys.where} "
                  f"and {args.enrol} is deleted.")
            print(f"  This agent's certificate: {fingerprint(membership.cert_pem)}")
            return ExitCode.PASS
        kept = membership_in(agent_folder())
        if kept is None:
            print("error: this server is not enrolled: run jetwise agent --enrol FILE with the bundle from the "
                  "controller (jetwise hosts add HOST there)", file=sys.stderr)
            return ExitCode.INVALID
        membership = kept
        identity = membership.identity(keys)
        print(f"Agent {membership.host}: connecting to {membership.controller} (certificate "
              f"{fingerprint(membership.cert_pem)}; key in {keys.where})", flush=True)
        quiet_dask(agent_folder() / AGENT_LOG)
        while True:
            wait_for_controller(membership, identity, on_waiting=lambda words: print(
                f"Waiting for the controller: {words}", flush=True))
            try:
                asyncio.run(serve(membership, identity, agent_folder() / RUNS_FOLDER, listen=args.listen,
                                  port=args.port,
                                  on_connected=lambda address: print(f"Connected; listening at {address}", flush=True),
                                  on_refused=lambda words: print(f"Refused: {words}", flush=True)))
            except Exception as exc:
                if address_in_use(exc):  # another program holds --port: no controller will ever reach it there
                    raise PortInUseError(args.port) from exc
                if args.once or not isinstance(exc, OSError):  # an OSError: the connection lost between the handshake
                    raise  # and the worker's registration
                print(f"The connection to the controller was lost ({exc}): waiting for it again.", flush=True)
                time.sleep(1.0)
                continue
            if args.once:
                print("The controller closed the test or was lost: the agent stops (--once).")
                return ExitCode.PASS
            print("The controller closed the test or was lost: waiting for the next.", flush=True)
    except (EnrolmentError, KeyStoreError, AgentRefusedError, PortInUseError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
