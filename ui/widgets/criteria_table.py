"""The criteria of a run, a row each: what failed first and shaded, the numbers right-aligned and as wide as they
need, IOPS with its unit and the target its limit comes from."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from engine.model.config import TestConfig
from engine.model.units import sentence
from engine.results.criterion_schema import Criterion, unit_after
from engine.results.schema import RunResult
from engine.results.verdict import IOPS_CRITERION, UnmeasuredCriterion, is_count, judged_criteria, unmeasured_criteria
from ui.widgets.style import verdict_qcolor

NOT_REACHED = "Not reached"


class CriteriaTable(QTableWidget):
    def __init__(self) -> None:
        super().__init__(0, 5)
        self.setHorizontalHeaderLabels(["Criterion", "Instance", "Value", "Limit", "Result"])
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)

    def show_criteria(self, result: RunResult, unreached: set[str]) -> None:
        """`result`'s criteria, judged and not measured; `unreached`: what a stop left short (no failure)."""
        rows: list[Criterion | UnmeasuredCriterion] = [*judged_criteria(result), *unmeasured_criteria(result)]
        # what failed first, shaded, then the rest in the order the report has them
        rows.sort(key=lambda c: isinstance(c, UnmeasuredCriterion) or c.passed or c.name in unreached)
        self.setRowCount(len(rows))
        for row, criterion in enumerate(rows):
            failed = isinstance(criterion, Criterion) and not criterion.passed and criterion.name not in unreached
            for column, text in enumerate(_cells(criterion, unreached, result.configuration)):
                item = QTableWidgetItem(text)
                if column in (2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 3 and criterion.name == IOPS_CRITERION:
                    item.setToolTip(_floor_words(result.configuration))
                if column == 4:
                    item.setForeground(verdict_qcolor("aborted" if text == NOT_REACHED else text.lower()))
                if failed:
                    item.setBackground(FAILED_ROW)
                self.setItem(row, column, item)
        self.resizeColumnsToContents()  # the numbers as wide as they need; the criterion's words no wider
        # at least as tall as its first rows (the failed ones first): a small window scrolls the page, not a table
        # squeezed to two rows inside it
        shown = sum(self.rowHeight(row) for row in range(min(len(rows), VISIBLE_ROWS)))
        self.setMinimumHeight(self.horizontalHeader().sizeHint().height() + shown + 2 * self.frameWidth())


VISIBLE_ROWS = 8  # criteria the results page shows without scrolling the table
FAILED_ROW = QColor(253, 236, 236)  # a failed criterion's row, behind its words


def _floor_words(config: TestConfig) -> str:
    """Why the IOPS limit is below the target: the margin Jetstress allows."""
    return (f"The target of {config.test_target_iops:,.1f} transactional IOPS less the "
            f"{config.target_margin_percent:g} % margin a run may fall short by and still pass")


def _cells(criterion: Criterion | UnmeasuredCriterion, unreached: set[str], config: TestConfig) -> list[str]:
    """A criterion's row: counts as whole numbers, IOPS with one decimal and its unit (its limit with the target it
    comes from), rates and times with two; "not measured" for what a run with no measured time was not judged on,
    "not reached" for what a stop left short (`unreached`)."""
    sign = "≤" if criterion.comparison == "<=" else "≥"
    iops = criterion.name == IOPS_CRITERION
    unit = " IOPS" if iops else unit_after(criterion.unit)
    name = sentence(criterion.name)
    digits = 1 if iops else 0 if isinstance(criterion, Criterion) and is_count(criterion) else 2
    limit = f"{sign} {criterion.limit:,.{digits}f}{unit}"
    if iops and config.target_margin_percent:
        limit += f" (target {config.test_target_iops:,.0f} − {config.target_margin_percent:g} %)"
    if isinstance(criterion, UnmeasuredCriterion):
        return [name, criterion.instance, "not measured", limit, "Not measured"]
    outcome = "Pass" if criterion.passed else NOT_REACHED if criterion.name in unreached else "Fail"
    return [name, criterion.instance or "Server", f"{criterion.value:,.{digits}f}{unit}", limit, outcome]
