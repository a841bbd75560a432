"""The store's schema, versioned by `PRAGMA user_version` and upgraded in place, oldest first."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: sessions, runs, samples
    """
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_utc TEXT NOT NULL,
        design_json TEXT NOT NULL,
        target_iops REAL NOT NULL
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL UNIQUE,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        started_utc TEXT NOT NULL,
        ended_utc TEXT,
        status TEXT NOT NULL,
        threads INTEGER NOT NULL,
        sluggish_sessions INTEGER NOT NULL,
        config_json TEXT NOT NULL,
        output_dir TEXT NOT NULL,
        pid INTEGER,
        host TEXT,
        result_json TEXT
    );
    CREATE TABLE samples (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        interval INTEGER NOT NULL,
        phase TEXT NOT NULL,
        sample_json TEXT NOT NULL,
        PRIMARY KEY (run_id, interval)
    );
    """,
    # 2: the test log beside the samples; the figures the history lists, as columns
    """
    CREATE TABLE log_lines (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        seq INTEGER NOT NULL,
        time_utc TEXT NOT NULL,
        level TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    ALTER TABLE runs ADD COLUMN achieved_iops REAL;
    ALTER TABLE runs ADD COLUMN db_read_avg_latency_ms REAL;
    ALTER TABLE runs ADD COLUMN log_write_avg_latency_ms REAL;
    ALTER TABLE runs ADD COLUMN reasons_json TEXT;
    UPDATE runs SET
        achieved_iops = json_extract(result_json, '$.summary.achieved_transactional_iops'),
        db_read_avg_latency_ms = json_extract(result_json, '$.summary.db_read_avg_latency_ms'),
        log_write_avg_latency_ms = json_extract(result_json, '$.summary.log_write_avg_latency_ms'),
        reasons_json = json_extract(result_json, '$.summary.reasons')
    WHERE result_json IS NOT NULL;
    """,
    # 3: the advisor's word on the session as each run ended, kept with the run (its report says what was known then)
    """
    ALTER TABLE runs ADD COLUMN advice_json TEXT;
    """,
    # 4: what each run ran on (a simulated device's profile, '' the storage at its paths; NULL until its result), as
    # its result names it; a result before schema 16 names a simulated device in its simulated note, if at all (as
    # `engine.results.schema` reads such a result: `UNNAMED_DEVICE` where it names none)
    """
    ALTER TABLE runs ADD COLUMN device TEXT;
    UPDATE runs SET device = CASE WHEN json_extract(result_json, '$.simulated') THEN COALESCE(
        (SELECT json_extract(result_json, note.fullkey || '.device') FROM json_each(result_json, '$.notes') AS note
         WHERE json_extract(result_json, note.fullkey || '.what') = 'simulated'),
        'simulated') ELSE '' END
    WHERE result_json IS NOT NULL;
    """,
]


SCHEMA_VERSION = len(MIGRATIONS)
