"""Write a run's Jetstress-layout result files: `<Type>_<yyyy>_<M>_<d>_<H>_<m>_<s>.html` and `.xml`.

Front ends write them when a run ends with a result (`app.context`), `jetwise cmd` into its /output
folder, and `jetwise report RUN --jetstress DIR` again for any run, a killed one included (its result
rebuilt from its samples). A file of that name is replaced only when it is this run's own (its mark
names the run); any other file is left as it is and the write refused.
"""

from __future__ import annotations

from pathlib import Path

from engine.io.safety import UnsafePathError, write_text
from engine.results.schema import RunResult
from reporting.jetstress_html import jetstress_html
from reporting.jetstress_model import jetstress_report
from reporting.jetstress_xml import jetstress_xml

HEAD_BYTES = 512  # the mark is within the file's first lines


class JetstressFileError(Exception):
    """A result file cannot be written: the message says which and why."""


def _is_this_runs(path: Path, mark: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return f"<!-- {mark} -->".encode() in handle.read(HEAD_BYTES)
    except OSError:
        return False


def _write(path: Path, text: str, mark: str) -> None:
    if path.exists() and not _is_this_runs(path, mark):
        raise JetstressFileError(f"{path} exists and is not this run's; it was left as it is")
    try:
        write_text(path, text)
    except UnsafePathError as exc:
        raise JetstressFileError(str(exc)) from exc
    except OSError as exc:
        raise JetstressFileError(f"{path} cannot be written: {exc.strerror or exc}") from exc


def write_jetstress_files(result: RunResult, log: list[str], into: Path, run_folder: Path | None = None) -> list[Path]:
    """The HTML and XML result files of `result` (whose samples are in `run_folder`) in the folder `into`; the
    paths written."""
    report = jetstress_report(result, log, run_folder)
    html = into / f"{report.stem}.html"
    xml = into / f"{report.stem}.xml"
    _write(html, jetstress_html(report), report.mark)
    _write(xml, jetstress_xml(report), report.mark)
    return [html, xml]
