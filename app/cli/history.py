"""`jetwise history`: the tuning sessions in the run store and the runs of each."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC
from typing import Any, TextIO

from app.cli.options import session_type
from app.context import AppContext, UsageError
from engine.model.derive import target_words
from engine.protocol import ExitCode
from engine.results.reasons import grouped_reasons
from engine.store.rows import RunRow, SessionRow, marks_devices
from engine.store.sqlite import Store
from reporting.bundle import measured_runs


def history_document(store: Store, session: str | None) -> dict[str, Any]:
    sessions = store.sessions()
    if session is not None:
        chosen = [s for s in sessions if s.name == session]
        if not chosen:
            known = ", ".join(f"'{s.name}'" for s in sessions) or "none yet"
            raise UsageError(f"no tuning session '{session}' in {store.path} (sessions: {known})")
        sessions = chosen
    return {
        "store": str(store.path),
        "sessions": [
            {
                "name": s.name,
                "created_utc": s.created_utc.isoformat(),
                "target_transactional_iops": s.target_iops,
                "runs": [r.to_dict() for r in measured_runs(store, s.name)],
            }
            for s in sessions
        ],
    }


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def print_sessions(sessions: list[SessionRow], runs: dict[str, list[RunRow]], out: TextIO) -> None:
    if not sessions:
        print("No tuning sessions yet: every `jetwise run` and `jetwise tune` starts or continues one.", file=out)
        return
    print(f"{'Session':<28} {'Created (UTC)':<20} {'Target IOPS':>12} {'Runs':>5}  {'Last verdict':<12} Last setting", file=out)
    for s in sessions:
        mine = runs[s.name]
        last = mine[-1] if mine else None
        setting = f"{last.threads} threads, SluggishSessions {last.sluggish_sessions}" if last else "-"
        print(
            f"{s.name[:28]:<28} {s.created_utc.astimezone(UTC):%Y-%m-%d %H:%M:%S}  {_num(s.target_iops or None, 1):>12} {len(mine):>5}  "
            f"{(last.status if last else '-'):<12} {setting}",
            file=out,
        )


SHOWN_REASONS = 3  # a run's reasons under its row; the report has them all


def print_runs(session: SessionRow, runs: list[RunRow], out: TextIO, store: Store | None = None) -> None:
    print(f"Tuning session '{session.name}': {target_words(session.target_iops)}", file=out)
    if not runs:
        print("  no runs yet", file=out)
        return
    print(
        f"  {'Run':<24} {'Started (UTC)':<20} {'Threads':>7} {'Sluggish':>8} {'Achieved IOPS':>14} "
        f"{'DB read ms':>10} {'Log write ms':>12}  Verdict",
        file=out,
    )
    marked = marks_devices(runs)  # runs of more than one device: each simulated one says which
    for r in runs:
        print(
            f"  {r.run_id:<24} {r.started_utc.astimezone(UTC):%Y-%m-%d %H:%M:%S}  {r.threads:>7} {r.sluggish_sessions:>8} "
            f"{_num(r.achieved_iops):>14} {_num(r.db_read_avg_latency_ms, 2):>10} {_num(r.log_write_avg_latency_ms, 2):>12}  "
            f"{r.status}" + (f" ({r.simulated_on})" if marked and r.simulated_on else ""),
            file=out,
        )
        result = store.result(r.run_id) if store is not None and len(r.reasons) > SHOWN_REASONS else None
        reasons = grouped_reasons(result) if result is not None else r.reasons  # 48 instances' one failing: a line
        for reason in reasons[:SHOWN_REASONS]:
            print(f"      {reason}", file=out)
        if len(reasons) > SHOWN_REASONS:
            print(f"      and {len(reasons) - SHOWN_REASONS} more: jetwise report {r.run_id}", file=out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", type=session_type, default=None, help="list this session's runs")
    parser.add_argument("--json", action="store_true", help="print the sessions and runs as JSON")


def run(args: argparse.Namespace, context: AppContext) -> int:
    store = context.store
    document = history_document(store, args.session)
    if args.json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif args.session is None:
        print_sessions(store.sessions(), {s.name: store.runs(s.name) for s in store.sessions()}, sys.stdout)
    else:
        session = store.session(args.session)
        assert session is not None
        print_runs(session, measured_runs(store, session.name), sys.stdout, store)
    return ExitCode.PASS
