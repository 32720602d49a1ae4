"""The cutover pytest plugin: ``pytest --shadow recordings/<set>``.

Thin by design: options, a few short hooks, state in ``config.stash``. The replay, diff,
clustering, report and gate are plain library code (:mod:`harness.shadow`, which runs without
pytest too),
imported only when ``--shadow`` is given, so a plain ``pytest`` run pays nothing for them.

Under ``--shadow`` the set is the only thing collected unless test paths are named on the
command line: one item per recorded trigger, ``<set>/<automation>::<trigger-id>``. With xdist
the controller hands every worker a shared results directory and writes the reports at the end.

The terminal leads with the verdict (``cutover shadow verdict``: the table, the reasons, the top
clusters), then one line per failing trigger; a failing trigger's full text (every differing
field, the exception) is printed with ``-v`` and is always in the report.

An item whose result is ready and passes is reported without pytest's per-phase machinery (see
:meth:`ShadowItem.report_passed`): the same reports reach every plugin's
``pytest_runtest_logreport`` (terminal, ``--junitxml``, ``--lf``, ``-x``, xdist), in a quarter of
the CPU. Every other item runs pytest's own protocol.
"""

from __future__ import annotations

import atexit
import gc
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from harness.errors import ShadowMismatch

if TYPE_CHECKING:
    from harness.shadow._session import ShadowRun
    from harness.shadow.index import TriggerRef
    from harness.shadow.outcome import ItemResult
    from harness.shadow.summary import Summary

RUN_KEY = pytest.StashKey["ShadowRun"]()
SUMMARY_KEY = pytest.StashKey["Summary"]()
RESULTS_KEY = pytest.StashKey[Path]()
WORKER_INPUT = "cutover_results_dir"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cutover", "cutover shadow verification")
    group.addoption("--shadow", metavar="RECORDING_SET", default=None,
                    help="Replay the recording set (e.g. recordings/2024-06) through the migrated automations "
                         "in shadow mode and diff their decisions against the legacy runs.")
    group.addoption("--dry-run", action="store_true", default=False,
                    help="With --shadow: replay in dry_run mode instead of shadow mode.")
    group.addoption("--gate", action="store_true", default=False,
                    help="With --shadow: the exit status is the go-live verdict ([tool.cutover.gate]); "
                         "verdicts are recorded for `cutover worker`.")
    group.addoption("--shadow-noise", action="store_true", default=False,
                    help="Replay every trigger twice and mark fields that disagree with themselves.")
    group.addoption("--shadow-report", metavar="DIR", default=None,
                    help="Where to write the reports (default: reports/<set name>).")
    group.addoption("--shadow-accepted", metavar="FILE", default=None,
                    help="Accepted-differences file (default: <set>/accepted.toml, else cutover-accepted.toml).")
    group.addoption("--shadow-seed", metavar="N", type=int, default=0, help="Seed of the replay's randomness.")
    group.addoption("--shadow-batch", metavar="N", type=int, default=None,
                    help="Triggers replayed per batch (default 1000; 200 per xdist worker).")
    group.addoption("--shadow-replayers", metavar="N", type=int, default=None,
                    help="Child processes that replay batches ahead of the items, so pytest and the replay "
                         "use different cores (default 2; 0 under xdist, or to replay inside pytest's process).")
    group.addoption("--shadow-shard", metavar="K/N", default=None,
                    help="Replay only shard K of N (a stable share of the triggers, by the hash of their ids) and "
                         "write its results for `cutover report merge` instead of the reports.")


def _shadow_on(config: pytest.Config) -> bool:
    return bool(config.getoption("shadow", None))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Give pytest the rootdir and ini file of the project, not of the set (see settle_rootdir)."""
    if getattr(early_config.known_args_namespace, "shadow", None):
        from harness import _plugin_setup

        _plugin_setup.settle_rootdir(early_config, args)


def pytest_configure(config: pytest.Config) -> None:
    if not _shadow_on(config):
        return
    from harness import _plugin_setup

    _plugin_setup.load_project(config)  # the whole [tool.cutover] is checked before any work
    set_dir = Path(config.getoption("shadow")).resolve()
    if not (set_dir / "manifest.toml").is_file():
        raise pytest.UsageError(f"--shadow {config.getoption('shadow')}: not a recording set "
                                f"(no manifest.toml in {set_dir})")
    _select_args(config, set_dir)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        results = Path(workerinput[WORKER_INPUT])
    else:
        results = Path(tempfile.mkdtemp(prefix="cutover-shadow-"))
    config.stash[RESULTS_KEY] = results
    config.stash[RUN_KEY] = _plugin_setup.make_run(config, set_dir, results, worker=workerinput is not None)


def _select_args(config: pytest.Config, set_dir: Path) -> None:
    """Collect the set; the project's own tests only when paths were named on the command line."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(set_dir)]
    elif not any(Path(a.split("::")[0]).resolve().is_relative_to(set_dir) for a in config.args):
        config.args.append(str(set_dir))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: give each worker the shared results directory."""
    config = node.config
    if _shadow_on(config):
        node.workerinput[WORKER_INPUT] = str(config.stash[RESULTS_KEY])


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    if not _shadow_on(config):
        return None
    run = config.stash[RUN_KEY]
    reports = config.getoption("shadow_report") or str(_default_reports(run))
    shard = f", shard {run.settings.shard}" if run.settings.shard else ""
    return [f"cutover: {run.settings.mode} replay of {run.settings.set_dir} (seed {run.settings.seed}{shard}); "
            f"reports in {reports}"]


def _default_reports(run: ShadowRun) -> Path:
    """Where the reports go without --shadow-report: <project>/reports/<the manifest's set name>."""
    from harness.errors import HarnessError
    from harness.manifest import load_manifest

    try:
        name = load_manifest(run.settings.set_dir / "manifest.toml").name
    except HarnessError:  # reported, with its line, when the set is collected
        name = run.settings.set_dir.name
    shard = run.settings.shard
    return run.settings.project_root / "reports" / (shard.report_name(name) if shard else name)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if _shadow_on(config) and path.resolve() == config.stash[RUN_KEY].settings.set_dir:
        return ShadowSet.from_parent(parent, path=path)
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _shadow_on(session.config):
        return
    shadow = [item for item in session.items if isinstance(item, ShadowItem)]
    session.config.stash[RUN_KEY].queue = [item.ref for item in shadow]
    for position, item in enumerate(shadow):
        item.position = position
    config = session.config
    if shadow and len(shadow) == len(session.items) and config.option.tbstyle == "auto" and config.option.verbose <= 0:
        config.option.tbstyle = "no"  # one line per failing trigger, in the short summary; the text: -v
    # The collected items live until the process ends: moved out of the garbage collector's
    # sight, its full collections stop walking them (about a million objects for 100,000
    # triggers), and so does the interpreter's final collection at exit, which took seconds.
    gc.freeze()
    atexit.register(gc.freeze)  # runs after pytest is done, before the interpreter's teardown


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Report a ready, passing shadow item in one step; any other item runs pytest's protocol."""
    if isinstance(item, ShadowItem) and item.report_passed(nextitem):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not _shadow_on(config):
        return
    run = config.stash[RUN_KEY]
    run.close()
    if hasattr(config, "workerinput"):
        return  # the controller writes the reports
    _one_line_failures_when_many(config)
    from harness import _plugin_setup

    summary, status = _plugin_setup.finish(config, run, int(exitstatus), gate=config.getoption("gate"))
    if summary is not None:
        config.stash[SUMMARY_KEY] = summary
    if status is not None:
        session.exitstatus = status


MANY_FAILURES = 300


def _one_line_failures_when_many(config: pytest.Config) -> None:
    """Print failures without their headline separators past MANY_FAILURES (unless --tb was given).

    pytest's default failure summary looks up each failure's teardown sections by scanning every
    report, which is quadratic: 3,000 failing triggers in a 100,000-trigger set take minutes.
    The ``line`` style prints the same failure text, linearly; the report clusters them anyway.
    """
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.option.tbstyle != "auto":
        return
    if len(reporter.stats.get("failed", ())) > MANY_FAILURES:
        config.option.tbstyle = "line"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> Any:
    """Print the verdict before pytest's own summary (failures, warnings, the short summary)."""
    summary = config.stash.get(SUMMARY_KEY, None)
    if not (summary is None and not _shadow_on(config) or hasattr(config, "workerinput")):
        from harness import _plugin_setup

        terminalreporter.section("cutover shadow verdict")
        for line in _plugin_setup.summary_lines(config, summary):
            terminalreporter.write_line(line)
        failing = len(terminalreporter.stats.get("failed", ()))
        if failing and config.option.tbstyle == "no":
            terminalreporter.write_line(f"{failing} failing trigger(s), one line each below; -v prints every "
                                        "differing field of each (the report has them all)")
    return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _shadow_on(config) and not hasattr(config, "workerinput") and RESULTS_KEY in config.stash:
        shutil.rmtree(config.stash[RESULTS_KEY], ignore_errors=True)
    if _shadow_on(config):
        _collect_then_freeze()


def _collect_then_freeze(passes: int = 5) -> None:
    """Collect the garbage until a pass finds none, then move what lives out of the collector's sight.

    After this hook, pytest looks for unraisable exceptions by collecting five times over: over
    every report of a 100,000-trigger run, seconds each. The passes here find the same garbage
    (the finalizers run while pytest's hook still listens, and a pass that finds nothing is the
    last that could find anything); what is left alive lives until the process ends, so pytest's
    passes then walk only what they create.
    """
    for _ in range(passes):
        if not gc.collect():
            break
    gc.freeze()


class ShadowSet(pytest.Directory):
    """A recording set: one child per automation directory."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        from harness.errors import HarnessError

        run = self.config.stash[RUN_KEY]
        try:
            index = run.build_index()
        except HarnessError as exc:
            raise self.CollectError(str(exc)) from None
        if not self.config.option.collectonly:
            run.prestart()  # replay processes start up while this process collects the items
        return [ShadowAutomation.from_parent(self, path=auto.directory) for auto in index.automations.values()]


class ShadowAutomation(pytest.Directory):
    """One automation of a set: one item per recorded trigger (of the shard), in arrival order."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        run = self.config.stash[RUN_KEY]
        return [ShadowItem.from_parent(self, name=ref.trigger_id, ref=ref)
                for ref in run.build_index().automations[self.path.name].refs if run.selected(ref)]


class ShadowItem(pytest.Item):
    """One recorded trigger: passes when the new code decides as the legacy run did."""

    def __init__(self, *, ref: TriggerRef, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ref = ref
        self.position = -1
        self._taken: ItemResult | Exception | None = None  # taken by report_passed for runtest

    def _take(self) -> ItemResult:
        run = self.config.stash[RUN_KEY]
        result = run.outcome(self.ref, self.position)
        run.record(result)
        return result

    def report_passed(self, nextitem: pytest.Item | None) -> bool:
        """Report this item as pytest's runner would if its result is ready and passes; tell whether it did.

        pytest's protocol runs setup, call and teardown each under capture, log capture and the
        ``makereport`` hook, about 0.4 ms of CPU an item: most of a large set's run in this
        process. An item that passes, whose result needs no replay here (a replay process has
        it, or its batch was replayed by an earlier item) and whose next item is in the same
        automation, so nothing is set up or torn down, gets the same three passed reports and
        the ``logstart``/``logfinish`` hooks straight away. Not taken: the last item of an
        automation, the first of a batch replayed in this process (automation code runs under
        pytest's capture, as in any test), a failing or skipped trigger, an item with markers,
        and ``--setup-show``/``--setup-only``/``--setup-plan``; those run pytest's protocol,
        and ``runtest`` uses the result taken here.
        """
        config = self.config
        option = config.option
        if (not isinstance(nextitem, ShadowItem) or nextitem.parent is not self.parent
                or getattr(option, "setupshow", False) or getattr(option, "setuponly", False)
                or getattr(option, "setupplan", False) or next(self.iter_markers(), None) is not None
                or not config.stash[RUN_KEY].ready(self.ref)):
            return False
        start, began = time.time(), time.perf_counter()
        try:
            result = self._take()
        except Exception as exc:  # noqa: BLE001 - raised again by runtest, under pytest's protocol
            self._taken = exc
            return False
        if result.failure is not None or result.kind == "unpaired":
            self._taken = result
            return False
        duration, stop = time.perf_counter() - began, time.time()
        ihook, nodeid, location = self.ihook, self.nodeid, self.location
        keywords = dict.fromkeys(self.keywords, 1)
        ihook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        for when, took in (("setup", 0.0), ("call", duration), ("teardown", 0.0)):
            ihook.pytest_runtest_logreport(report=pytest.TestReport(
                nodeid, location, keywords, "passed", None, when, (), took, start, stop, self.user_properties))
        ihook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
        return True

    def runtest(self) -> None:
        taken, self._taken = self._taken, None
        if isinstance(taken, Exception):
            raise taken
        result = taken if taken is not None else self._take()
        if result.kind == "unpaired":
            pytest.skip("no legacy trace was recorded for this trigger: nothing to compare")
        if result.failure is not None:
            raise ShadowMismatch(result.failure)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ShadowMismatch):
            text = str(excinfo.value)
            short = self.config.option.verbose <= 0 and self.config.option.tbstyle in ("auto", "no", "line")
            return text.split("\n", 1)[0] if short else text
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.ref.line - 1, f"{self.path.parent.name}/{self.ref.automation}::{self.ref.trigger_id}"
