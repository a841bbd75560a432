"""Page 2, Mailbox profile: what the mailbox design asks of this server's storage, and what it means; in the disk
throughput scenario, how much of the disks the databases take and how mailboxes are planned on what passes."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QVBoxLayout

from engine.model.config import ExchangeVersion, Scenario, TestConfig
from engine.model.exchange import GENERATIONS, MESSAGES_ROWS, MESSAGES_STEP, Generation, generation
from engine.model.options import option
from engine.model.units import format_bytes
from engine.model.validation import Severity
from ui.widgets.fields import ChoiceField, OptionField
from ui.widgets.style import WARNING_STYLE, laid_out, tipped
from ui.wizard.base import PageContext, WizardPage

THROUGHPUT_TITLE = "Disk subsystem throughput"
CAPACITY_LABEL = "Share of each volume's free space:"
THROUGHPUT_SUBTITLE = "How much of the disks the databases take, and how mailboxes are planned on the most that passes."

# How the Exchange version's choices read on the page
EXCHANGE_WORDS = {version.value: f"{GENERATIONS[version].name}: {GENERATIONS[version].jetstress}"
                  for version in ExchangeVersion}


def message_profiles(drives: Generation) -> list[tuple[str, float, float]]:
    """The IOPS per mailbox the version's sizing gives for messages sent and received per day, as (label, stand-alone,
    with database copies), with the database cache per mailbox beside (docs/workload.md gives the sources)."""
    rows = []
    for messages in range(MESSAGES_STEP, MESSAGES_STEP * (MESSAGES_ROWS + 1), MESSAGES_STEP):
        alone, copies = drives.iops_per_mailbox(messages, copies=False), drives.iops_per_mailbox(messages, copies=True)
        iops = f"{alone:.3f} IOPS" if alone == copies else f"{alone:.3f} IOPS (stand-alone), {copies:.3f} (with copies)"
        rows.append((f"{messages} messages/day: {iops}, {drives.cache_mb_per_mailbox(messages):g} MB of database cache",
                     alone, copies))
    return rows


class ProfilePage(WizardPage):
    NAME = "profile"
    TITLE = "Mailbox profile"
    SUBTITLE = "What the mailbox design asks of this server's storage."
    OPTIONS = ("profile.exchange", "profile.mailboxes", "profile.iops_per_mailbox", "profile.mailbox_size_mb", "profile.headroom_percent",
               "capacity_percent", "throughput_percent")
    PROFILE_ONLY = ("profile.mailboxes", "profile.mailbox_size_mb")

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        form = QFormLayout()
        exchange = self.add_field(form, "profile.exchange")
        if isinstance(exchange, ChoiceField):
            exchange.label(EXCHANGE_WORDS)
        self.add_field(form, "profile.mailboxes")
        iops = self.add_field(form, "profile.iops_per_mailbox")
        self.messages = tipped(QComboBox(), "Exchange 2010: Microsoft's sizing, 0.06 IOPS per mailbox (stand-alone) or "
                               "0.05 (with database copies) and 3 MB of database cache for each 50 messages a day. "
                               "Exchange 2013 or later: 0.0335 IOPS and 3 MB for each 50, unsupported (Microsoft's 2013 "
                               "table could not be read): type the IOPS per mailbox your own sizing gives")
        self._messages_of: Generation | None = None  # the version whose table the picker shows
        self.messages.activated.connect(lambda _i: self._profile_picked(iops))
        form.addRow("", self.messages)
        for path in ("profile.mailbox_size_mb", "profile.headroom_percent", "capacity_percent", "throughput_percent"):
            self.add_field(form, path)
        self.form = form
        self.readout = QLabel(textFormat=Qt.TextFormat.RichText, wordWrap=True)
        box = QGroupBox("What this means")
        QVBoxLayout(box).addWidget(self.readout)
        laid_out(QVBoxLayout(self), form, box, 1)

    def _profile_picked(self, iops: OptionField) -> None:
        values = self.messages.currentData()
        if values:
            copies = self.state.data.get("copies_per_database", 1) > 1
            iops.set_value(round(values[1] if copies else values[0], 3))

    def _show_messages_of(self, drives: Generation) -> None:
        """The picker's rows: the chosen Exchange version's table."""
        if drives == self._messages_of:
            return
        self._messages_of = drives
        self.messages.clear()
        unsupported = " — unsupported figures" if drives.sizing_basis.startswith("unsupported") else ""
        self.messages.addItem(f"Pick from messages sent and received per day ({drives.name}{unsupported})…", None)
        for label, standalone, copies in message_profiles(drives):
            self.messages.addItem(label, (standalone, copies))

    def refresh(self) -> None:
        super().refresh()
        try:
            self._show_messages_of(generation(ExchangeVersion(self.state.get("profile.exchange"))))
        except ValueError:  # not a version: the field says so
            pass
        picked = self.messages.currentData()
        if picked and self.state.get("profile.iops_per_mailbox") not in picked:  # edited since: the pick is gone
            self.messages.setCurrentIndex(0)
        throughput = self.state.get("scenario") == Scenario.DISK_THROUGHPUT.value
        self.setTitle(THROUGHPUT_TITLE if throughput else self.TITLE)
        self.setSubTitle(THROUGHPUT_SUBTITLE if throughput else self.SUBTITLE)
        for path in self.PROFILE_ONLY:
            self.form.setRowVisible(self.fields[path], not throughput)
        self.form.setRowVisible(self.messages, not throughput)
        self.form.setRowVisible(self.fields["throughput_percent"], throughput)
        capacity = self.form.labelForField(self.fields["capacity_percent"])
        if isinstance(capacity, QLabel):
            capacity.setText(CAPACITY_LABEL if throughput else f"{option('capacity_percent').label}:")
        config = self.state.config()
        if config is None:
            self.readout.setText("<i>Correct the fields above to see the target and sizes.</i>")
            return
        databases = config.database_count
        if config.seeks_maximum:
            p = config.profile
            sized = html.escape(self.state.sizing) or (
                f"each database is {format_bytes(config.database_size_bytes)}, as the configuration keeps it"
                if config.database_size_mb is not None
                else "sized from the free space of their volumes once their folders are chosen")
            self.readout.setText(
                f"Workload: {html.escape(config.generation.words, quote=False)}<br>"
                "Target: <b>none</b>: tuning finds the most transactional IOPS the storage passes within the thresholds<br>"
                f"Databases: {sized}<br>Mailboxes are planned at {config.throughput_percent:g} % of the most that passes, "
                f"{p.iops_per_mailbox:g} IOPS each" + (f" with {p.headroom_percent:g} % headroom" if p.headroom_percent else ""))
            return
        self.readout.setText(
            f"Workload: {html.escape(config.generation.words, quote=False)}<br>"
            f"Target: <b>{config.target_transactional_iops:,.1f} transactional IOPS</b> "
            f"({config.profile.mailboxes:,} × {config.profile.iops_per_mailbox:g} + {config.profile.headroom_percent:g} %)<br>"
            f"Per-mailbox figures of the picker: {html.escape(config.generation.sizing_basis, quote=False)}<br>"
            f"Database size: <b>{format_bytes(config.database_size_bytes)}</b> each, "
            f"{format_bytes(config.database_size_bytes * databases)} in total over {databases} database(s)<br>"
            f"Log space: {format_bytes(config.log_space_bytes_per_database)} per database (16 × 1 MB circular){_recycled(config)}"
            + "".join(f"<br><span style='{WARNING_STYLE}'>Warning: {html.escape(problem.message)}.</span>"
                      for problem in self.state.problems()
                      if problem.severity == Severity.WARNING and problem.field in self.fields)
        )


def _recycled(config: TestConfig) -> str:
    """Why a circular log smaller than the checkpoint depth is what the test needs: its writes are the same."""
    depth = config.checkpoint_depth_bytes
    if config.recovers or depth <= config.log_space_bytes_per_database:
        return ""
    return (f", recycled past the {format_bytes(depth)} checkpoint depth: Exchange would keep about that much log on "
            "disk; the log's writes, which the test measures, are the same")
