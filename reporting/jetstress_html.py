"""The HTML result file in Jetstress's markup, line for line where scripts read it.

Each key/value row is a `<td class="grid_row_header">KEY</td>` line with its value cell on the
next line: `<td class="success">Pass</td>` or `<td class="failure">Fail</td>` for the Overall Test
Result, `<td class="grid_data">VALUE</td>` for every other. Sections are `<fieldset>` blocks with a
`<legend>`. Jetwise's own report (`reporting.document`) is the one to read; this file is for automation
written for Jetstress, and says so at its top.
"""

from __future__ import annotations

from markupsafe import escape

from reporting.jetstress_model import JetstressReport, Row, Table

STYLE = """body { font-family: Tahoma, Arial, sans-serif; font-size: 10pt; }
fieldset { margin: 10px 0; border: 1px solid #999; }
legend { font-weight: bold; }
table.grid { border-collapse: collapse; }
table.grid td, table.grid th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
td.grid_row_header, th.grid_col_header { background: #eee; font-weight: bold; }
td.success { color: #060; font-weight: bold; }
td.failure { color: #b00; font-weight: bold; }
pre { font-size: 9pt; }"""


def _value_cell(row: Row) -> str:
    css = "grid_data" if row.verdict is None else ("success" if row.verdict else "failure")
    return f'<td class="{css}">{escape(row.value)}</td></tr>'


def _section(title: str, rows: list[Row]) -> list[str]:
    lines = [f"<fieldset><legend>{escape(title)}</legend>", '<table class="grid">']
    for row in rows:
        lines += [f'<tr><td class="grid_row_header">{escape(row.key)}</td>', _value_cell(row)]
    return [*lines, "</table>", "</fieldset>"]


def _table(table: Table) -> list[str]:
    head = "".join(f'<th class="grid_col_header">{escape(c)}</th>' for c in table.columns)
    lines = [f"<fieldset><legend>{escape(table.title)}</legend>", '<table class="grid">',
             f'<tr><th class="grid_col_header">Instance</th>{head}</tr>']
    for name, values in [*table.rows, *table.footer]:
        cells = "".join(f'<td class="grid_data">{escape(v)}</td>' for v in values)
        lines.append(f'<tr><td class="grid_row_header">{escape(name)}</td>{cells}</tr>')
    return [*lines, "</table>", "</fieldset>"]


def jetstress_html(report: JetstressReport) -> str:
    lines = [
        "<!DOCTYPE html>", f"<!-- {report.mark} -->", "<html>", "<head>", '<meta charset="utf-8">',
        f"<title>{escape(report.title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
        f"<h1>{escape(report.title)}</h1>",
        "<p>Written by Jetwise in the layout of Jetstress's result file, for scripts that read it. "
        "Jetwise's own report of this run (its charts, criteria and advice) is made with "
        f"<code>jetwise report {escape(report.run_id)}</code>.</p>",
    ]
    for section in report.sections:
        if section.rows:  # Test Issues only when there are some
            lines += _section(section.title, section.rows)
    for table in report.tables:
        lines += _table(table)
    lines += ["<fieldset><legend>Test Log</legend>", "<pre>", *(str(escape(line)) for line in report.log), "</pre>",
              "</fieldset>", "</body>", "</html>"]
    return "\r\n".join(lines) + "\r\n"
