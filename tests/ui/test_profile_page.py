"""The Mailbox profile page: Microsoft's messages-per-day tables for Exchange 2013 or later and for 2010, a pick
that goes once the field is typed over, and a profile no server is planned at said at its field."""

from __future__ import annotations

from ui.wizard import PAGE_PROFILE


def test_the_messages_per_day_picker_has_both_tables_and_forgets_a_pick_the_field_no_longer_holds(qtbot, window):
    window.wizard.restart_at(PAGE_PROFILE)
    page = window.wizard.profile
    labels = [page.messages.itemText(i) for i in range(page.messages.count())]
    assert "Exchange 2013 or later, 100 messages/day: 0.067 IOPS" in labels
    assert "Exchange 2010, 100 messages/day: 0.12 IOPS (stand-alone), 0.10 (with copies)" in labels
    index = labels.index("Exchange 2013 or later, 150 messages/day: 0.101 IOPS")
    page.messages.setCurrentIndex(index)
    page.messages.activated.emit(index)
    assert window.state.data["profile"]["iops_per_mailbox"] == 0.101 and page.messages.currentIndex() == index
    page.fields["profile.iops_per_mailbox"].set_value(0.2)  # typed over: the pick no longer describes it
    assert page.messages.currentIndex() == 0


def test_a_profile_no_server_is_planned_at_is_said_on_the_page(qtbot, window):
    window.wizard.restart_at(PAGE_PROFILE)
    page = window.wizard.profile
    page.fields["profile.mailboxes"].set_value(99_999_999)
    page.fields["profile.iops_per_mailbox"].set_value(100)
    readout = page.readout.text()
    assert "Warning: 99,999,999 mailboxes × 100 IOPS ask" in readout and "far beyond any Exchange server" in readout
    page.fields["profile.mailboxes"].set_value(5000)
    page.fields["profile.iops_per_mailbox"].set_value(0.1)
    assert "Warning" not in page.readout.text()
