"""The verdict first, then every criterion, then the advisor's next step."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.advisor import Advice

VERDICT_COLOURS = {"pass": "#2e7d32", "fail": "#b00020", "aborted": "#8a6d00"}


class ResultsView(QWidget):
    apply_requested = Signal()
    new_test_requested = Signal()
    session_requested = Signal()
    open_folder_requested = Signal()
    open_report_requested = Signal()
    export_pdf_requested = Signal()
    print_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.verdict = QLabel()
        font = QFont()
        font.setPointSize(font.pointSize() * 3)
        font.setBold(True)
        self.verdict.setFont(font)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.reasons = QLabel()
        self.reasons.setWordWrap(True)
        self.reasons.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Criterion", "Instance", "Value", "Limit", "Result"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.advice_box = QGroupBox("Advisor")
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextFormat(Qt.TextFormat.RichText)
        self.apply = QPushButton("Apply and run again")
        self.apply.setToolTip("Start the next run of this tuning session with the suggested setting")
        self.apply.clicked.connect(self.apply_requested)
        advice_layout = QVBoxLayout(self.advice_box)
        advice_layout.addWidget(self.advice)
        advice_layout.addWidget(self.apply, 0, Qt.AlignmentFlag.AlignLeft)
        buttons = QHBoxLayout()
        for text, signal, tip in (
            ("Open report", self.open_report_requested, "The full report of this run in the browser (HTML)"),
            ("Export PDF…", self.export_pdf_requested, "Save the report as a PDF (A4 or Letter)"),
            ("Print…", self.print_requested, "Print the report on a printer of this system"),
            ("Session view", self.session_requested, "Every run of this tuning session, as a table and as curves"),
            ("Open run folder", self.open_folder_requested, "The result document, samples and test log of this run"),
            ("New test", self.new_test_requested, "Back to the wizard; nothing is lost"),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(signal)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(self.headline)
        layout.addWidget(self.reasons)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.advice_box)
        layout.addLayout(buttons)
        self.suggestion: Advice | None = None

    def show_result(self, result: dict[str, Any], advice: Advice | None, tuning_note: str = "") -> None:
        summary = result["summary"]
        verdict = summary["verdict"]
        colour = VERDICT_COLOURS.get(verdict, "#333")
        simulated = " (simulated device)" if result.get("simulated") else ""
        self.verdict.setText(f"<span style='color:{colour}'>{verdict.upper()}</span>{simulated}")
        self.headline.setText(
            f"Achieved {summary['achieved_transactional_iops']:,.1f} of {summary['target_transactional_iops']:,.1f} target "
            f"transactional IOPS over {summary['measured_s']:,.0f} s — {summary['threads']} threads, SluggishSessions "
            f"{summary['sluggish_sessions']}, {summary['threshold_set']} thresholds. {tuning_note}"
        )
        reasons = summary["reasons"]
        failing = sorted({c["instance"] for c in result["criteria"] if c["instance"] and not c["passed"]})
        parts = []
        if reasons:
            parts.append("<ul>" + "".join(f"<li>{r}</li>" for r in reasons) + "</ul>")
        if failing:
            parts.append(f"<b>Failing instances:</b> {', '.join(failing)}")
        self.reasons.setText("".join(parts))
        self.table.setRowCount(len(result["criteria"]))
        for row, criterion in enumerate(result["criteria"]):
            unit = f" {criterion['unit']}" if criterion["unit"] else ""
            sign = {"<=": "≤", ">=": "≥"}.get(criterion["comparison"], criterion["comparison"])
            cells = [
                criterion["name"][:1].upper() + criterion["name"][1:], criterion["instance"] or "Server",
                f"{criterion['value']:,.2f}{unit}", f"{sign} {criterion['limit']:,.2f}{unit}",
                "Pass" if criterion["passed"] else "Fail",
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 4:
                    item.setForeground(QColor(VERDICT_COLOURS["pass" if criterion["passed"] else "fail"]))
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.suggestion = advice
        self.show_advice(advice)

    def show_advice(self, advice: Advice | None) -> None:
        if advice is None:
            self.advice_box.hide()
            return
        self.advice_box.show()
        predicted = ""
        if advice.predicted_iops is not None and advice.predicted_read_ms is not None:
            predicted = (f"<br>Predicted: about {advice.predicted_iops:,.0f} transactional IOPS, database reads at "
                         f"{advice.predicted_read_ms:.1f} ms, log writes at {advice.predicted_log_ms or 0:.2f} ms.")
        if advice.status == "next":
            self.advice.setText(f"<b>Next: {advice.threads} threads, SluggishSessions {advice.sluggish_sessions}.</b>"
                                f"{predicted}<br>Why: {advice.rationale}.")
            self.apply.setEnabled(True)
        elif advice.status == "converged":
            self.advice.setText(f"<b>This setting passes: {advice.threads} threads, SluggishSessions "
                                f"{advice.sluggish_sessions}.</b><br>{advice.rationale}. Run the full-length test with it "
                                "to confirm.")
            self.apply.setEnabled(False)
        else:
            self.advice.setText(f"<b>The target is out of reach on this storage.</b><br>{advice.rationale}.<br>"
                                f"It carries {advice.capacity}.")
            self.apply.setEnabled(False)
