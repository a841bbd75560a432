"""The advisor's advice in the window's words (rich text): the next setting and why, or how tuning stands, with the
runs it could not learn from. The results view says it under a run, the view of a test across servers under the test
(the servers read as one run of their summed design)."""

from __future__ import annotations

from html import escape

from engine.model.units import counted, sentence
from engine.results.schema import Outcome, RunKind, RunResult
from engine.results.verdict import cache_hit_percent
from engine.tuning.advisor import Advice
from engine.tuning.offers import at_this_setting, repeats_the_cache


def advice_html(advice: Advice, result: RunResult | None) -> str:
    """`advice` after `result` (the run it follows, if any), in words."""
    predicted = ""
    if advice.predicted_iops is not None and advice.predicted_read_ms is not None:
        predicted = (f"<br>Predicted: about {advice.predicted_iops:,.0f} transactional IOPS, database reads at "
                     f"{advice.predicted_read_ms:.1f} ms, log writes at {advice.predicted_log_ms or 0:.2f} ms.")
    # what the storage returned is said first, above everything else
    lead = advice.returned.words if advice.returned is not None else ""
    notes = "".join(f"<br><i>{escape(note.words)}.</i>" for note in advice.notes)
    setting = f"{counted(advice.threads, 'thread')}, SluggishSessions {advice.sluggish_sessions}"
    if advice.status == "cache_held":
        text = (f"<b>Not a test of the storage: the database cache serves its reads.</b><br>"
                f"{escape(sentence(advice.rationale))}. Set the databases larger (Mailbox size on the profile page, or "
                f"Database size) or the cache smaller (Maximum database cache under More settings on the Test type page), "
                f"then run: New test keeps every other value.")
    elif repeats_the_cache(advice, result):
        share = cache_hit_percent(result) if result is not None else None
        served = ("made no database reads: the database cache held the whole database" if share is None else
                  f"was {share:.2f} % cache hits: the database cache held the database, not the storage")
        text = (f"<b>This run {served}.</b><br>"
                f"Running {setting} again would measure the cache again. Make the databases larger than the cache "
                f"(Mailbox size on the profile page) or the cache smaller (Maximum database cache under More "
                f"settings on the Test type page), then run: New test keeps every other value.")
    elif advice.status == "next":
        text = f"<b>Next: {setting}.</b>{predicted}<br>Why: {escape(advice.rationale)}."
    elif advice.status == "start":
        text = (f"<b>Nothing in this session steers the advisor yet; it would start at {setting}.</b><br>"
                f"{escape(advice.rationale)}.")
    elif advice.status == "converged":
        passed_here = at_this_setting(advice, result) and result is not None and result.verdict == Outcome.PASS
        if passed_here and result is not None and result.summary.run_kind == RunKind.QUALIFICATION:
            text = (f"<b>This qualification run passed at {setting}.</b><br>The storage carries the design's "
                    f"{result.summary.target_transactional_iops:,.0f} transactional IOPS within the "
                    f"{result.summary.threshold_set} thresholds.")
        elif result is not None and result.configuration.seeks_maximum:
            carries = f"<br>It carries {escape(advice.capacity.words)}." if advice.capacity else ""
            text = (f"<b>The most this storage passes: {setting}.</b><br>{escape(sentence(advice.rationale))}."
                    f"{carries}")
        else:
            head = "This setting passes" if passed_here else "A setting of this session passes"
            text = (f"<b>{head}: {setting}.</b><br>{escape(sentence(advice.rationale))}. Run the full-length "
                    "test with it to qualify the storage.")
    elif advice.status == "host_bound":
        known = (f"the storage carried at least {advice.max_passing_iops:,.0f} transactional IOPS within the "
                 "thresholds" if advice.max_passing_iops else "no run measured the storage within the thresholds")
        text = (f"<b>The host's CPU, not the storage, set the pace: {known}.</b><br>"
                f"{escape(sentence(advice.rationale))}.")
        if advice.capacity:
            text += f"<br>It carries {escape(advice.capacity.words)}, at {setting}."
        text += ("<br><b>To measure the storage:</b> stop other work on this server (Task Manager's Details tab shows "
                 "what takes the CPU) and run again, or run the test from a server with more cores; a test across "
                 "servers spreads the load over each server's own CPU. Until then this run's figures are the host's "
                 "limit, not the storage's.")
    elif advice.status == "io_errors":
        text = f"<b>{escape(lead or 'The storage returned I/O errors')}.</b><br>{escape(sentence(advice.rationale))}."
    else:
        carries = f"<br>It carries {escape(advice.capacity.words)}." if advice.capacity else ""
        text = f"<b>Out of reach on this storage.</b><br>{escape(sentence(advice.rationale))}.{carries}"
    return text + notes
