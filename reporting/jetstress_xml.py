"""The XML result file in Jetstress's shape: `output/<section>/element` and `output/<table>/object/instance/counter`.

Names and values are attributes (`<element name="Overall Test Result" value="Pass"/>`,
`<counter name="I/O Database Reads/sec" average="291.684"/>`): Jetstress's documentation does not say
whether they are attributes or child elements; attributes read the same way in PowerShell's `[xml]`
(`$e.name`, `$e.value`) as child elements would. A comment after the declaration names the run,
which is how Jetwise knows the file is its own.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from reporting.jetstress_model import INSTANCES_OBJECT, JetstressReport, Table


def _table(parent: ET.Element, table: Table) -> None:
    block = ET.SubElement(parent, table.tag, title=table.title)
    group = ET.SubElement(block, "object", name=INSTANCES_OBJECT)
    for name, values in [*table.rows, *table.footer]:
        instance = ET.SubElement(group, "instance", name=name)
        for column, value in zip(table.columns, values, strict=True):
            if value:
                ET.SubElement(instance, "counter", name=column, average=value)


def jetstress_xml(report: JetstressReport) -> str:
    root = ET.Element("output", type=report.kind, title=report.title)
    for section in report.sections:  # test-issues too when empty: a script may look for it
        block = ET.SubElement(root, section.tag)
        for row in section.rows:
            ET.SubElement(block, "element", name=row.key, value=row.value)
    for table in report.tables:
        _table(root, table)
    log = ET.SubElement(root, "test-log")
    for line in report.log:
        ET.SubElement(log, "line").text = line
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {report.mark} -->\n{body}\n'
