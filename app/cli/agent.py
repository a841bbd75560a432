"""`jetwise agent --enrol FILE` once, then `jetwise agent`: this server as an agent of a test across servers.

Enrolling imports the bundle the controller wrote (the code typed, or given with --code), keeps the private key in the
operating system's credential store and deletes the bundle. Then `jetwise agent` connects to the controller over
mutual TLS (waiting for it to listen; at the first contact it redeems the bundle with a key made here) and runs what
each test asks of this server, test after test (--once: one). It listens on nothing. The link's own log goes to
agent/agent.log in the data folder."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
import time

from app.cli.options import path_type, port_type
from app.context import AppContext
from engine.hosts.agent import AgentRefusedError, ControllerAbsentError, serve
from engine.hosts.enrolment import EnrolmentError
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import AGENT_LOG, log_link_to
from engine.hosts.membership import enrol, membership_in
from engine.hosts.part import RUNS_FOLDER
from engine.hosts.port import PortInUseError, address_in_use
from engine.hosts.trust import fingerprint
from engine.protocol import ExitCode
from engine.store.paths import agent_folder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--enrol", type=path_type, metavar="FILE", help="import the bundle the controller wrote")
    parser.add_argument("--code", metavar="CODE", help="the bundle's one-time code (asked for when not given)")
    parser.add_argument("--listen", metavar="ADDRESS", help="the address the agent connects from (default: the one "
                                                            "that reaches the controller); it listens on none")
    parser.add_argument("--port", type=port_type, default=0, metavar="PORT",
                        help="the port it connects from (default: any)")
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
        print(f"Agent {membership.host}: connecting to {membership.controller} (certificate "
              f"{fingerprint(membership.cert_pem)}; key in {keys.where})", flush=True)
        log_link_to(agent_folder() / AGENT_LOG)
        waiting: set[str] = set()  # the reasons said while waiting
        while True:
            identity = membership.identity(keys)

            def redeemed(cert_pem: str, key_pem: str) -> None:
                nonlocal membership
                membership = membership.redeem(cert_pem, key_pem, agent_folder(), keys)
                print(f"Redeemed the bundle: this agent's own key, made here, is certified ({fingerprint(cert_pem)})",
                      flush=True)

            try:
                ended = asyncio.run(serve(
                    membership, identity, agent_folder() / RUNS_FOLDER, on_redeemed=redeemed, listen=args.listen,
                    port=args.port, on_connected=lambda address: print(f"Connected from {address}", flush=True),
                    said=lambda words: print(words, flush=True)))
            except ControllerAbsentError as exc:
                if str(exc) not in waiting:  # each reason said once while it waits: an impostor's included
                    print(f"Waiting for the controller: {exc}", flush=True)
                    waiting.add(str(exc))
                time.sleep(1.0)
                continue
            except OSError as exc:
                if address_in_use(exc):  # another program holds --port: the agent cannot connect from it
                    raise PortInUseError(args.port) from exc
                raise
            waiting.clear()
            if args.once:
                print(f"The test is over ({ended}): the agent stops (--once).")
                return ExitCode.PASS
            print(f"The test is over ({ended}): waiting for the next.", flush=True)
    except (EnrolmentError, KeyStoreError, AgentRefusedError, PortInUseError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
