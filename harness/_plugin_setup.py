"""What the pytest plugin does at the start and the end of a shadow run, kept out of its hooks.

``load_project`` finds the project from the working directory and checks its whole
``[tool.cutover]`` table when the run is configured, before any replay; ``make_run`` turns it
(the automations module, providers) and the plugin's options into a
:class:`~harness.shadow._session.ShadowRun`. ``finish``
aggregates every process's results into the reports, judges the gate and, with ``--gate``,
records each verdict in the queue's database (``gate_verdicts``) where ``cutover worker``
looks before it claims live jobs; it returns the exit status ``--gate`` imposes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness.shadow._session import DISAGREEMENTS_PREFIX, RESULTS_PREFIX, ShadowSettings, ShadowRun, process_id, read_rows
from harness.errors import HarnessError


_PROJECT_KEY = pytest.StashKey["tuple[Any, Any]"]()  # (queue_core.config.Settings, harness.shadow.gate.GateConfig)


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


def load_project(config: pytest.Config) -> tuple[Any, Any]:
    """Find the project from the working directory and check its whole ``[tool.cutover]``.

    The project is the nearest directory at or above where pytest was started whose
    pyproject.toml has a ``[tool.cutover]`` table (pytest's rootdir when there is none), wherever
    the recording set lives. Returns (settings, gate config); raises UsageError naming the file
    and the key of the first fault, before anything is replayed.
    """
    if _PROJECT_KEY in config.stash:
        return config.stash[_PROJECT_KEY]
    from harness.shadow import gate as _gate
    from queue_core import config as qc_config
    from queue_core.errors import ConfigError

    try:
        pyproject = qc_config.find_project(config.invocation_params.dir)
        settings = qc_config.load(pyproject) if pyproject else qc_config.Settings(root=config.rootpath)
        gate = _gate.parse_gate(settings.raw.get("gate", {}), qc_config.shown(pyproject) if pyproject else "pyproject.toml")
    except (ConfigError, HarnessError) as exc:
        raise pytest.UsageError(f"cutover: {exc}") from None
    config.stash[_PROJECT_KEY] = (settings, gate)
    return settings, gate


def make_run(config: pytest.Config, set_dir: Path, results: Path, *, worker: bool) -> ShadowRun:
    """Build this process's ShadowRun from the options and the project (UsageError if invalid)."""
    from queue_core.errors import ConfigError
    from queue_core.provider import parse_providers

    settings, _gate = load_project(config)
    try:
        providers = parse_providers(settings.raw.get("providers", {}), source=str(settings.pyproject or "pyproject.toml"))
    except ConfigError as exc:
        raise pytest.UsageError(f"cutover: {exc}") from None
    batch = config.getoption("shadow_batch") or (200 if worker else 1000)
    replayers = config.getoption("shadow_replayers")
    if replayers is None:
        replayers = 0 if worker else 2
    if replayers < 0:
        raise pytest.UsageError(f"--shadow-replayers {replayers}: expected 0 or more")
    accepted = config.getoption("shadow_accepted")
    return ShadowRun(ShadowSettings(
        set_dir=set_dir, project_root=settings.root, automations_module=settings.automations,
        results_dir=results, process_id=process_id(),
        mode="dry_run" if config.getoption("dry_run") else "shadow", seed=config.getoption("shadow_seed"),
        noise=config.getoption("shadow_noise"), accepted_file=Path(accepted).resolve() if accepted else None,
        batch_size=max(1, batch), providers=providers, replayers=replayers,
    ))


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def build(config: pytest.Config, run: ShadowRun) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """Aggregate every process's result rows into the summary; return it with the rows."""
    from harness.shadow import report

    index = run.build_index()
    rows = read_rows(run.settings.results_dir, RESULTS_PREFIX)
    dis = read_rows(run.settings.results_dir, DISAGREEMENTS_PREFIX)
    ran = {r["automation"] for r in rows}
    spans = {name: (a.first_received, a.last_received) for name, a in index.automations.items() if name in ran}
    registry = run.registry
    root = run.settings.project_root
    info = report.RunInfo(
        set_path=_relative(run.settings.set_dir, root), mode=run.settings.mode, seed=run.settings.seed,
        noise=run.settings.noise,
        accepted_file=_relative(run.accepted_path, root) if run.accepted_path else None,
        code_versions={n: registry.get(n).source_hash for n in spans if n in registry},
        platforms={n: str(e.platform) for n, e in index.manifest.automations.items()},
        coercions={n: str(e.coercion) for n, e in index.manifest.automations.items()},
    )
    expired = {e.index for e in run.entries if e.expired(run.settings.today)}
    _settings, gate = load_project(config)
    summary = report.build_summary(info, index.manifest, spans, rows, dis, run.entries, expired, gate)
    return summary, rows, dis


def finish(config: pytest.Config, run: ShadowRun, exitstatus: int, *, gate: bool) -> tuple[dict[str, Any] | None, int | None]:
    """Write the reports and judge the gate; return (summary, exit status to impose or None)."""
    from harness.shadow import report

    try:
        summary, rows, dis = build(config, run)
        out = Path(config.getoption("shadow_report") or run.settings.project_root / "reports" / summary["recording"]["name"])
        if summary["automations"]:
            report.write_reports(out, summary, dis, report.exemplar_traces(rows, summary))
    except HarnessError as exc:
        config.stash[_ERROR_KEY] = f"cutover: the reports could not be written: {exc}"
        return None, int(pytest.ExitCode.TESTS_FAILED) if gate else None
    summary["_report_dir"] = str(out)
    if not summary["automations"]:  # -k/-m deselected every trigger: keep the last full report
        summary["_not_written"] = True
    if not gate or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        return summary, None
    try:
        recorded = _record_verdicts(summary)
        summary["_recorded"] = recorded
    except Exception as exc:  # the verdict must not silently go unrecorded
        summary["_record_error"] = f"{type(exc).__name__}: {exc}"
        return summary, int(pytest.ExitCode.TESTS_FAILED)
    ready = bool(summary["automations"]) and not summary["gate"]["not_ready"]
    return summary, int(pytest.ExitCode.OK if ready else pytest.ExitCode.TESTS_FAILED)


_ERROR_KEY = pytest.StashKey[str]()


def _record_verdicts(summary: dict[str, Any]) -> str:
    """Record every automation's verdict in the queue database; return where."""
    from psycopg.conninfo import conninfo_to_dict

    from harness.shadow.report import verdicts
    from queue_core import Queue, db
    from queue_core.config import database_url

    url = database_url()
    by_name = {a["name"]: a for a in summary["automations"]}

    async def write() -> None:
        async with db.pool(url, max_size=2) as pool:
            queue = Queue(pool)
            for v in verdicts(summary):
                await queue.record_verdict(v.automation, v.code_version, ready=v.ready, reasons=v.reasons,
                                           recording=summary["recording"]["name"], summary=by_name[v.automation])

    asyncio.run(write())
    params = conninfo_to_dict(url)
    return f"database {params.get('dbname')} on {params.get('host') or 'local socket'}"


def summary_lines(config: pytest.Config, summary: dict[str, Any] | None) -> list[str]:
    """Return the terminal summary lines for the run."""
    from harness.shadow.report import terminal_lines

    error = config.stash.get(_ERROR_KEY, None)
    if summary is None:
        return [error or "cutover: no summary"]
    lines = terminal_lines(summary)
    if summary.get("_not_written"):
        lines.append(f"no recorded trigger was replayed (every one deselected, or the set is empty): "
                     f"the reports in {summary['_report_dir']} were left as they were")
    else:
        lines.append(f"reports: {summary['_report_dir']}/index.html (summary.json, disagreements.csv)")
    if "_recorded" in summary:
        lines.append(f"gate verdicts recorded in {summary['_recorded']}: "
                     f"READY {', '.join(summary['gate']['ready']) or 'none'}; "
                     f"NOT READY {', '.join(summary['gate']['not_ready']) or 'none'}")
    if "_record_error" in summary:
        lines.append(f"cutover: the gate verdicts could not be recorded: {summary['_record_error']}")
    return lines
