"""Names the dead-code check (vulture, run by tests/test_tooling.py) cannot see used, and why.

Each line names a definition that is used where vulture does not look: by Qt, by SQLite,
by pydantic, or by pytest.
"""

# ruff: noqa: B018 (each line is an expression naming a definition, as vulture's allowlists are)
from engine.model.config import MaximumLatency, TestType
from ui.shell import MainWindow
from ui.widgets.plots import ElapsedAxis

TestType.DATABASE_BACKUP  # test types a configuration may name: validation refuses them with a reason
TestType.SOFT_RECOVERY
TestType.DATABASE_CHECKSUM
MaximumLatency.SINGLE_IO  # a configuration names it (--maximum-latency single-io); the schema reads older results as it
MainWindow.dragEnterEvent  # Qt calls its overrides
MainWindow.closeEvent
ElapsedAxis.tickStrings  # pyqtgraph calls it for every tick
_.row_factory  # noqa: F821 (sqlite3 reads the connection's attribute)
pytestmark  # noqa: F821 (pytest reads a module's marks)
_.usage  # noqa: F821 (argparse reads a parser's usage and formatter_class when it prints help: jetwise cmd)
_.formatter_class  # noqa: F821
_.datas  # noqa: F821 (packaging/jetwise.spec reads them from the Analysis tests/test_packaging.py records)
_.pure  # noqa: F821
_.scripts  # noqa: F821
includes  # noqa: F821 (a keyword the spec passes PyInstaller's collect_data_files, recorded by the test)
customer  # noqa: F821 (the report's first page reads the report details: resources/templates/_summary.html.j2)
storage_model  # noqa: F821
engineer  # noqa: F821
