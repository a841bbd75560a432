"""Configuration files in and out of the window: Jetwise's JSON, and Jetstress's JetstressConfig.xml both ways.

Opening a file fills the wizard, or leaves it as it was and says why (a broken XML file with its line).
A JetstressConfig.xml is taken as the field writes it: a value Jetwise cannot use gives way to its
default, an element it does not model is ignored, and the import report lists each in a window
beside the wizard, which it never holds up. SuppressTuning picks the Thread tuning mode. A file whose
EseInstances a script adds later brings everything else, and the Databases page asks for the folders:
no folder is made up for it.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from engine.io.config_file import read_config_text, save_config
from engine.io.safety import refuse_destination, write_text
from engine.model.config import TestConfig, TestType
from engine.model.config_text import is_jetstress_xml
from engine.model.draft import Draft
from engine.model.jetstress.loading import config_from_xml
from engine.model.jetstress.reading import JetstressXmlError
from engine.model.jetstress.writing import write_xml
from engine.model.validation import Problem, Severity, check_rules, errors_only, validate_data
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice
from ui.widgets.import_report import ImportReport, said_words
from ui.wizard import PAGE_DATABASES, TestWizard

SUFFIXES = (".json", ".xml")
OPEN_FILTER = ("Configurations (*.json *.xml);;Jetwise configuration (*.json);;Jetstress configuration (*.xml);;"
               "All files (*)")
_NO_DATABASES = "ExchangeProfile/EseInstances"


class ConfigFileError(ValueError):
    """A file that cannot be read as a configuration: the reason, in words for the engineer."""


@dataclass(frozen=True)
class XmlOpened:
    """What a JetstressConfig.xml gives the wizard, and everything to tell about it."""

    config: TestConfig | None  # None: it cannot be used (its errors are in `said`)
    said: list[Problem]
    auto_tune: bool  # SuppressTuning false
    lists_databases: bool  # False: `config`'s folders stand in for those the engineer gives


def read_text(path: Path) -> str:
    """The file's text, as the command line reads it (`engine.io.config_file`); ConfigFileError with why not."""
    text = read_config_text(path)
    if isinstance(text, Problem):
        raise ConfigFileError(text.message)
    return text


def open_xml(text: str, stand_in: Path) -> XmlOpened:
    """The configuration in a JetstressConfig.xml's text; raises JetstressXmlError when it is not one.

    A file that lists no database is read again with one stand-in database under `stand_in`, so that
    everything else it says is checked and kept; the stand-in is never shown (the wizard gets no rows),
    and what the rules said about it alone is left out of what is told.
    """
    loaded = config_from_xml(text)
    if loaded.config is not None or loaded.imported.data.get("databases"):
        return XmlOpened(loaded.config, loaded.said(), loaded.auto_tune, True)
    rest = config_from_xml(text, [{"database_path": str(stand_in / "DB1"), "log_path": str(stand_in / "Log1")}])
    about_stand_in = check_rules(rest.config) if rest.config is not None else []
    missing = [w for w in loaded.warnings if w.field.startswith(_NO_DATABASES)]
    return XmlOpened(rest.config, missing + [p for p in rest.said() if p not in about_stand_in], rest.auto_tune, False)


class ConfigFiles(QObject):
    """Open, drop and save configuration files; the window shows the wizard when one is loaded (`loaded`)."""

    message = Signal(str)
    loaded = Signal()

    def __init__(self, window: QWidget, state: Draft[Advice], wizard: TestWizard, store: Store, settings: QSettings) -> None:
        super().__init__(window)
        self._window = window
        self._state = state
        self._wizard = wizard
        self._store = store
        self._settings = settings
        self.report = ImportReport(window)
        self._report: tuple[str, str, list[Problem]] | None = None  # the last import's report, to show again
        self._names: dict[str, str] = {}  # by suffix, the last file opened or saved: the name a save proposes
        wizard.welcome.report_requested.connect(self.show_report)

    def _folder(self) -> Path:
        return Path(str(self._settings.value("last_config_folder", str(Path.home()))))

    # opening -----------------------------------------------------------------------------

    def open_config(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self._window, "Open a configuration", str(self._folder()), OPEN_FILTER)
        if name:
            self.load_file(Path(name))

    def load_file(self, path: Path) -> bool:
        """Fill the wizard from the file at `path` (JSON or JetstressConfig.xml); False, the wizard untouched, when it
        cannot be used."""
        try:
            text = read_text(path)
        except ConfigFileError as exc:
            return self._refuse(str(exc))
        if is_jetstress_xml(path, text):
            return self._load_xml(path, text)
        config, problems = validate_data(text)
        if config is None:
            return self._refuse(f"{path} is not a valid Jetwise configuration:\n\n{_listed(problems)}")
        # the tuning session it was saved from, where it still tests this design; else the latest that does
        self._wizard.load_config(config, session=self._session_of(path, config))
        self._loaded(path)
        self.message.emit(f"Loaded {path}")
        return True

    def _load_xml(self, path: Path, text: str) -> bool:
        try:
            opened = open_xml(text, self._state.base)
        except JetstressXmlError as exc:
            return self._refuse(f"{path} cannot be read as a JetstressConfig.xml: {exc}")
        config = opened.config
        if config is None:
            return self._refuse(f"{path} cannot be used as it is:\n\n{_listed(errors_only(opened.said))}")
        said = list(opened.said)
        auto_tune = opened.auto_tune and config.test_type != TestType.SOFT_RECOVERY
        if opened.auto_tune and not auto_tune:
            said.append(Problem("TestDesignInfo/SuppressTuning", "is false, but a Soft recovery test runs at the thread "
                                "count set by hand: Thread tuning is Manual", Severity.NOTE))
        if opened.lists_databases:
            session = self._store.session_of_design(config) or path.stem
            self._wizard.load_config(config, session=session, auto_tune=auto_tune)
        else:
            self._wizard.load_config(config, session=path.stem, auto_tune=auto_tune, databases=[])
        tuning = ("Auto-tune (SuppressTuning is false)" if auto_tune else
                  f"Manual at {config.thread_count} threads, SluggishSessions {config.sluggish_sessions}")
        headline = f"The wizard holds the settings of {html.escape(str(path))}. Thread tuning: {tuning}."
        if said:
            headline += " Listed below: each value Jetwise could not use (its default is in its place) and what it ignores."
        if not opened.lists_databases:
            headline = ("<b>The file lists no databases (EseInstances).</b> On the Databases and logs page, enter how "
                        "many databases there are, then each one's database folder and log folder. " + headline)
        self._report = (f"Imported {path.name}", headline, said)
        self._loaded(path, said_words(said))
        if not opened.lists_databases:
            try:
                self._wizard.restart_at(PAGE_DATABASES)
            except RuntimeError:
                pass  # a page before it cannot go on: that page shows why
        if said:  # a file without databases always says so
            self.show_report()
        databases = f"{config.database_count} database(s)" if opened.lists_databases else "no databases yet"
        self.message.emit(f"Imported {path}: {databases}, Thread tuning {tuning}"
                          + (f"; {said_words(said)} in the import report" if said else ""))
        return True

    def _loaded(self, path: Path, said: str = "") -> None:
        self._settings.setValue("last_config_folder", str(path.parent))
        self._names[path.suffix.lower()] = path.name
        if not said:
            self._report = None
            self.report.close()  # an earlier file's report no longer applies
        self._wizard.welcome.show_loaded(path, said)
        self.loaded.emit()

    def show_report(self) -> None:
        if self._report is not None:
            self.report.show_report(*self._report)

    def _refuse(self, words: str) -> bool:
        QMessageBox.warning(self._window, "Cannot open the configuration", words)
        return False

    # saving ------------------------------------------------------------------------------

    def save_json(self) -> None:
        name = self._names.get(".json", "jetwise-test.json")
        saved = self._save("Save the configuration", name, "Jetwise configuration (*.json)", save_config)
        if saved is not None:
            self.message.emit(f"Saved {saved[1]}")

    def save_xml(self) -> None:
        """The configuration as a JetstressConfig.xml, SuppressTuning false when the wizard auto-tunes."""
        auto_tune = self._state.auto_tune

        def write(config: TestConfig, path: Path) -> None:
            write_text(path, write_xml(config, auto_tune=auto_tune))

        name = self._names.get(".xml", "JetstressConfig.xml")
        saved = self._save("Save as a JetstressConfig.xml", name, "Jetstress configuration (*.xml)", write)
        if saved is None:
            return
        config, path = saved
        threads = (f"SuppressTuning false (Jetstress tunes the threads), ThreadCount {config.thread_count} to start from"
                   if auto_tune else f"ThreadCount {config.thread_count}, SluggishSessions {config.sluggish_sessions}, "
                                     "SuppressTuning true")
        self.message.emit(f"Saved {path} as a JetstressConfig.xml: {config.database_count} database(s), {threads}")

    def _save(self, title: str, name: str, kinds: str,
              write: Callable[[TestConfig, Path], None]) -> tuple[TestConfig, Path] | None:
        """The wizard's configuration written where the engineer chooses; None when it is not (said why, if not by choice)."""
        config = self._valid_config()
        path = None if config is None else self._save_path(title, name, kinds)
        if config is None or path is None:
            return None
        try:
            refuse_destination(path)
            write(config, path)
        except OSError as exc:
            self._not_written(path, exc)
            return None
        if self._state.session:  # opened again, it goes on in the session it was saved from
            self._settings.setValue(f"saved_in_session/{_key(path)}", self._state.session)
        return config, path

    def _session_of(self, path: Path, config: TestConfig) -> str:
        """The tuning session a configuration file opened goes on in: the one it was saved from while that tests its
        storage design; else the latest session that does; else one named after the file."""
        saved = str(self._settings.value(f"saved_in_session/{_key(path)}") or "")
        if saved and self._store.session(saved) is not None and self._store.resolve_session(saved, config)[0] == saved:
            return saved
        return self._store.session_of_design(config) or path.stem

    def _valid_config(self) -> TestConfig | None:
        """The wizard's configuration, across the servers chosen on the Servers page (None, said, with problems)."""
        config = self._state.config()
        if config is not None:
            try:
                config = self._wizard.servers.with_servers(config)
            except ValueError:  # their own folders no longer fit the test: the Servers page says so
                config = None
        if config is None:
            QMessageBox.information(self._window, "Not saved", "The configuration has problems; the wizard shows them at each field.")
        return config

    def _save_path(self, title: str, name: str, kinds: str) -> Path | None:
        chosen, _ = QFileDialog.getSaveFileName(self._window, title, str(self._folder() / name), kinds)
        if not chosen:
            return None
        path = Path(chosen)
        if not path.suffix:  # a dialog that adds no suffix: the file still opens as what it is
            path = path.with_suffix(Path(name).suffix)
        self._settings.setValue("last_config_folder", str(path.parent))
        self._names[path.suffix.lower()] = path.name
        return path

    def _not_written(self, path: Path, exc: OSError) -> None:
        QMessageBox.warning(self._window, "Not saved", f"{path} cannot be written: {exc.strerror or exc}")


def _key(path: Path) -> str:
    """`path` as a settings key: the resolved file, its slashes (a settings group's separator) as dashes."""
    return str(path.resolve()).replace("/", "-").replace("\\", "-")


def _listed(problems: list[Problem]) -> str:
    return "\n".join(f"• {p}" for p in problems[:12])
