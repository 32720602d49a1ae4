"""What the pytest plugin does at the start and the end of a shadow run, kept out of its hooks.

``load_project`` finds the project from the working directory and checks its whole
``[tool.cutover]`` table when the run is configured, before any replay
(:mod:`harness.shadow.project`); ``make_run`` turns it and the plugin's options into a
:class:`~harness.shadow._session.ShadowRun`. ``finish`` hands every process's results to
:mod:`harness.shadow.summary` (the reports, the gate and, with ``--gate``, the verdicts recorded
for ``cutover worker``), or with ``--shadow-shard`` keeps the shard's results for
``cutover report merge``; it returns the exit status ``--gate`` imposes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.errors import HarnessError
from harness.shadow._session import ShadowRun
from harness.shadow.project import Project
from harness.shadow.results import DISAGREEMENTS_PREFIX, RESULTS_PREFIX, process_id, read_rows
from harness.shadow.settings import ShadowSettings
from harness.shadow.shard import Shard
from harness.shadow.summary import Summary


_PROJECT_KEY = pytest.StashKey[Project]()
_ERROR_KEY = pytest.StashKey[str]()


def settle_rootdir(config: pytest.Config, args: list[str]) -> None:
    """Decide the rootdir and ini file as pytest would have, had it known ``--shadow`` takes a value.

    pytest picks its rootdir and ini file before it loads plugins, so it takes the value of
    ``--shadow <set>`` for a test path: a set outside the project made the set's directory the
    rootdir, with no ini file (another asyncio mode, no filterwarnings, none of the project's
    addopts). Now that the option is known, this decides again from the real test paths and,
    when the answer differs, puts it in place and applies the right ini file's addopts. It uses
    attributes private to pytest (``_rootpath``, ``_inipath``, ``_inicfg``, ``_inicache``);
    tests/plugin/test_project_root.py fails if a pytest release renames them.
    """
    from _pytest.config.findpaths import determine_setup

    ns = config.known_args_namespace
    rootpath, inipath, inicfg, _ignored = determine_setup(
        inifile=ns.inifilename, override_ini=ns.override_ini, args=ns.file_or_dir,
        rootdir_cmd_arg=ns.rootdir or None, invocation_dir=config.invocation_params.dir)
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    was_cut = ns.confcutdir == str(config.inipath.parent if config.inipath else config.rootpath)
    config._rootpath, config._inipath, config._inicfg = rootpath, inipath, inicfg
    config._inicache.clear()
    config._parser.extra_info.update(rootdir=str(rootpath), inifile=str(inipath))
    args[:] = [*config.getini("addopts"), *args]
    config._parser.parse_known_args(args, namespace=ns)
    if was_cut:
        ns.confcutdir = str(inipath.parent if inipath else rootpath)


def load_project(config: pytest.Config) -> Project:
    """Find the project from the working directory and check its whole ``[tool.cutover]``.

    The project is the nearest directory at or above where pytest was started whose
    pyproject.toml has a ``[tool.cutover]`` table (pytest's rootdir when there is none), wherever
    the recording set lives. Raises UsageError naming the file and the key of the first fault,
    before anything is replayed.
    """
    if _PROJECT_KEY in config.stash:
        return config.stash[_PROJECT_KEY]
    from harness.shadow import project as _project
    from queue_core.errors import ConfigError

    try:
        found = _project.load_project(config.invocation_params.dir, fallback_root=config.rootpath)
    except (ConfigError, HarnessError) as exc:
        raise pytest.UsageError(f"cutover: {exc}") from None
    config.stash[_PROJECT_KEY] = found
    return found


def make_run(config: pytest.Config, set_dir: Path, results: Path, *, worker: bool) -> ShadowRun:
    """Build this process's ShadowRun from the options and the project (UsageError if invalid)."""
    project = load_project(config)
    batch = config.getoption("shadow_batch") or (200 if worker else 1000)
    replayers = config.getoption("shadow_replayers")
    if replayers is None:
        replayers = 0 if worker else 2
    if replayers < 0:
        raise pytest.UsageError(f"--shadow-replayers {replayers}: expected 0 or more")
    shard = None
    if config.getoption("shadow_shard"):
        try:
            shard = Shard.parse(config.getoption("shadow_shard"))
        except HarnessError as exc:
            raise pytest.UsageError(f"--shadow-shard: {exc}") from None
        if config.getoption("gate"):
            raise pytest.UsageError("--gate judges the whole set, not one shard: run "
                                    "`cutover report merge --gate DIR...` over every shard's results")
    accepted = config.getoption("shadow_accepted")
    return ShadowRun(ShadowSettings(
        set_dir=set_dir, project_root=project.root, automations_module=project.settings.automations,
        results_dir=results, process_id=process_id(),
        mode="dry_run" if config.getoption("dry_run") else "shadow", seed=config.getoption("shadow_seed"),
        noise=config.getoption("shadow_noise"), accepted_file=Path(accepted).resolve() if accepted else None,
        batch_size=max(1, batch), providers=project.providers, replayers=replayers, shard=shard,
    ))


def _context(run: ShadowRun) -> tuple[Any, Any]:
    from harness.shadow.summary import context

    index = run.build_index()
    s = run.settings
    return index, context(index, s.project_root, s.mode, s.seed, s.noise, run.accepted_path, run.registry)


def finish(config: pytest.Config, run: ShadowRun, exitstatus: int, *, gate: bool) -> tuple[Summary | None, int | None]:
    """Write the reports (a shard: its results) and judge the gate; return (summary, exit status or None)."""
    from harness.shadow import summary as _summary

    option = config.getoption("shadow_report")
    try:
        index, ctx = _context(run)
        rows = read_rows(run.settings.results_dir, RESULTS_PREFIX)
        dis = read_rows(run.settings.results_dir, DISAGREEMENTS_PREFIX)
        gate_config = load_project(config).gate
        if run.settings.shard is not None:
            shard = run.settings.shard
            out = Path(option) if option else run.settings.project_root / "reports" / shard.report_name(index.name)
            from harness.shadow.merge import conclude_shard

            return conclude_shard(ctx, index, run.accepted_path, rows, dis, run.entries, run.settings.today,
                                  gate_config, shard, run.settings.results_dir, out), None
        summary = _summary.conclude(ctx, index, rows, dis, run.entries, run.settings.today, gate_config,
                                    Path(option) if option else None, run.settings.project_root)
    except HarnessError as exc:
        config.stash[_ERROR_KEY] = f"cutover: the reports could not be written: {exc}"
        return None, int(pytest.ExitCode.TESTS_FAILED) if gate else None
    if not gate or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        return summary, None
    summary = _summary.record(summary)
    if summary.record_error is not None:
        return summary, int(pytest.ExitCode.TESTS_FAILED)
    return summary, int(pytest.ExitCode.OK if summary.passed else pytest.ExitCode.TESTS_FAILED)


def summary_lines(config: pytest.Config, summary: Summary | None) -> list[str]:
    """Return the terminal summary lines for the run."""
    error = config.stash.get(_ERROR_KEY, None)
    if summary is None:
        return [error or "cutover: no summary"]
    return summary.lines()
