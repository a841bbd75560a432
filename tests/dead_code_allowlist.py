"""Names the dead-code check (vulture, run by tests/test_tooling.py over what ships) cannot see used, and why.

Each line names a definition that is used where vulture does not look: by Qt, by SQLite, by
Windows through ctypes, by a configuration file, or by PyInstaller's spec.
"""

# ruff: noqa: B018 (each line is an expression naming a definition, as vulture's allowlists are)
from engine.hosts.keys import KernelKeyring
from engine.io.platform import lifetime
from engine.model.config import MaximumLatency
from engine.model.profile import ExchangeVersion, ThreadWeight
from engine.results.base import UtcTime
from engine.results.counters import from_figures
from reporting.document import ReportModel
from reporting.recovery import RecoveryRow, ReplayFigures
from reporting.scan import DamagedRow, DiskRow, ScanFigures, ScanModel, ScanRow, ScanSum
from reporting.sweep import SweepModel
from ui.shell import MainWindow
from ui.widgets.fitting import WrappingRadioButton

MaximumLatency.SINGLE_IO  # a configuration names it (--maximum-latency single-io); the schema reads older results as it
from_figures  # the schema reads an older version's samples with it (schema modules are not searched)
UtcTime  # the schema's moments (schema modules are not searched)
# the report's templates read these fields by name (reporting.names)
ReportModel.failed_on, ReportModel.cache_held, ReportModel.unmeasured_runs, ReportModel.host_rows, ReportModel.stream_titles
ReportModel.devices_marked, ReportModel.session_sweeps, ReportModel.tuning_run, ReportModel.test_title, ReportModel.report_heading
ReportModel.sweep_part, ReportModel.scan_part, ReportModel.recovery_part
RecoveryRow.log_mbytes_per_s, RecoveryRow.generated_short, RecoveryRow.replayed_short
ReplayFigures.recovery_rows, ReplayFigures.recovery_stage, ReplayFigures.files_total, ReplayFigures.files_generated
ReplayFigures.files_replayed, ReplayFigures.replaying_instances, ReplayFigures.replay_within_limit
ScanRow.file_mbytes, ScanRow.read_mbytes, ScanSum.file_mbytes, ScanSum.read_mbytes, ScanSum.log_damaged_in
DamagedRow.ese, DiskRow.max_latency, ScanModel.scan_title, ScanModel.correctable_note, ScanModel.scan_notes, ScanModel.read_kib
ScanFigures.scan_rows, ScanFigures.scan_volumes, ScanFigures.damaged_more, ScanFigures.incomplete, ScanFigures.per_database_mbytes_per_s
SweepModel.sweep_rows, SweepModel.sweep_key, SweepModel.chosen_words
MainWindow.dragEnterEvent  # Qt calls its overrides
MainWindow.closeEvent
MainWindow.dropEvent
WrappingRadioButton.minimumSizeHint
WrappingRadioButton.hasHeightForWidth
WrappingRadioButton.hitButton
WrappingRadioButton.paintEvent
ThreadWeight.READS_ONLY  # a configuration names it (--thread-weight reads-only)
ExchangeVersion._missing_  # Enum calls it for a value not its own: a configuration's "2016", "2019" or "SE"
lifetime.CTRL_C_EVENT  # the console events Windows sends the handler that it leaves to Python (the Win32 contract)
lifetime.CTRL_BREAK_EVENT
_.LimitFlags  # noqa: F821 (ctypes structures' fields that Windows reads: a job's limits, an OVERLAPPED's offset)
_.Offset  # noqa: F821
_.OffsetHigh  # noqa: F821
_.row_factory  # noqa: F821 (sqlite3 reads the connection's attribute)
_.usage  # noqa: F821 (argparse reads a parser's usage and formatter_class when it prints help: jetwise cmd)
_.formatter_class  # noqa: F821
customer  # noqa: F821 (the report's first page reads the report details: resources/templates/_summary.html.j2)
storage_model  # noqa: F821
engineer  # noqa: F821
KernelKeyring.priority  # keyring reads a backend's priority to choose among them
