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
from ui.shell import MainWindow
from ui.widgets.fitting import WrappingRadioButton

MaximumLatency.SINGLE_IO  # a configuration names it (--maximum-latency single-io); the schema reads older results as it
from_figures  # the schema reads an older version's samples with it (schema modules are not searched)
UtcTime  # the schema's moments (schema modules are not searched)
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
