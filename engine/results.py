"""The result document: data first, with schema version, tool, host and full configuration."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.config import TestConfig
from engine.figures import (
    cache_figures,
    merge_streams,
    percentile_figures,
    stream_figures,
)
from engine.files import database_file_path
from engine.metrics import StreamStats
from engine.verdict import Verdict
from engine.version import TOOL_NAME, __version__

RESULT_SCHEMA_VERSION = 1
RESULT_FILE = "result.json"
SAMPLES_FILE = "samples.jsonl"
LOG_FILE = "test.log"
CONFIG_FILE = "config.json"

PAGE_FAULT_NOTE = (
    "Database page fault stalls: a stall is counted when a transaction's page misses the "
    "model's database cache and no buffer is available until a flush write completes."
)


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"average": None, "minimum": None, "maximum": None}
    return {"average": sum(values) / len(values), "minimum": min(values), "maximum": max(values)}


def build_result(
    *,
    run_id: str,
    config: TestConfig,
    verdict: Verdict,
    instances: Mapping[str, Mapping[str, StreamStats]],
    cache: Mapping[str, Sequence[int]],
    measured_s: float,
    host: Mapping[str, Any],
    host_samples: Sequence[Mapping[str, float]],
    times: Mapping[str, str | None],
    unbuffered_io: bool,
    io_detail: str,
    backend_name: str,
    simulated: bool,
    notes: list[str],
) -> dict[str, Any]:
    """Assemble the result document from the measured window's totals and the verdict."""
    target = config.target_transactional_iops
    server = merge_streams(instances.values())
    server_cache = [sum(column) for column in zip(*cache.values())] if cache else [0, 0, 0]
    common = {
        "threads": config.thread_count,
        "sluggish_sessions": config.sluggish_sessions,
        "unbuffered_io": unbuffered_io,
    }
    summary: dict[str, Any] = {
        "verdict": verdict.outcome.value,
        "reasons": list(verdict.reasons),
        "test_type": config.test_type.value,
        "threshold_set": config.threshold_set_name,
        "target_transactional_iops": target,
        "target_margin_percent": config.target_margin_percent,
        "measured_s": measured_s,
        "database_count": config.database_count,
        "copies_per_database": config.copies_per_database,
        **common,
        **stream_figures(server, measured_s),
        **cache_figures(server_cache, measured_s),
    }
    summary["achieved_transactional_iops"] = summary["transactional_iops"]
    summary["latency_percentiles_ms"] = percentile_figures(server)

    rows = []
    per_instance_target = target / max(1, config.database_count)
    for index, (name, streams) in enumerate(instances.items()):
        spec = config.databases[index]
        figures = stream_figures(streams, measured_s)
        rows.append(
            {
                "name": name,
                "database_path": str(spec.database_path),
                "log_path": str(spec.log_path),
                "database_file": str(database_file_path(spec.database_path, index)),
                "verdict": verdict.instance_outcomes.get(name, verdict.outcome).value,
                "reasons": list(verdict.instance_reasons.get(name, [])),
                "achieved_transactional_iops": figures["transactional_iops"],
                "target_transactional_iops": per_instance_target,
                **common,
                "threads": config.threads_for_database(index),
                **figures,
                **cache_figures(cache.get(name, [0, 0, 0]), measured_s),
                "latency_percentiles_ms": percentile_figures(streams),
            }
        )

    return {
        "schema_version": RESULT_SCHEMA_VERSION,
        "tool": TOOL_NAME,
        "tool_version": __version__,
        "run_id": run_id,
        "times": dict(times),
        "host": dict(host),
        "io_backend": backend_name,
        "simulated": simulated,
        "unbuffered_io": unbuffered_io,
        "unbuffered_io_detail": io_detail,
        "configuration": config.model_dump(mode="json"),
        "summary": summary,
        "instances": rows,
        "criteria": [c.to_dict() for c in verdict.criteria],
        "host_performance": {
            "cpu_percent": _spread([s["cpu_percent"] for s in host_samples]),
            "available_memory_mb": _spread([s["available_memory_mb"] for s in host_samples]),
        },
        "notes": [PAGE_FAULT_NOTE, *notes],
        "files": {"samples": SAMPLES_FILE, "log": LOG_FILE, "configuration": CONFIG_FILE},
    }


def write_result(document: Mapping[str, Any], folder: Path) -> Path:
    """Write result.json atomically (a crash never leaves half a document)."""
    path = folder / RESULT_FILE
    scratch = folder / (RESULT_FILE + ".partial")
    scratch.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    scratch.replace(path)
    return path
