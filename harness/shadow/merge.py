"""A shard's results on disk, and their merge into the report and verdict one run would give.

``pytest --shadow SET --shadow-shard K/N`` writes, instead of the reports, its result rows
(``results-*.jsonl``, ``disagreements-*.jsonl``) and ``shard.json``: which shard it is, a
fingerprint of the set's files, and the summary context of the run (options, code versions,
arrival spans). :func:`merge` checks that the directories hold every shard 1..N of one run
exactly once, then summarises the rows of all of them with the same code a single run ends in
(:func:`harness.shadow.summary.conclude`); :func:`merge_shards` does it, so the merged ``summary.json`` equals a single run's.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import date, datetime
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.manifest import MANIFEST_FILE
from harness.recording import LEGACY_FILE, TRIGGERS_FILE
from harness.shadow import accepted as _accepted
from harness.shadow.index import SetIndex
from harness.shadow.results import DISAGREEMENTS_PREFIX, RESULTS_PREFIX, read_rows
from harness.shadow.shard import Shard
from harness.shadow.accepted import Entry
from harness.shadow.gate import GateConfig
from harness.shadow.summary import SummaryContext, Summary, conclude, failed_triggers, summarise

SHARD_FILE = "shard.json"
FORMAT = 1
_SAME = ("set", "fingerprint", "n", "context")  # what every shard of one run shares


def fingerprint(index: SetIndex, accepted: Path | None) -> str:
    """Return a digest of the set's manifest, triggers, legacy traces and accepted differences."""
    digest = hashlib.sha256()
    files = [index.directory / MANIFEST_FILE] + [a.directory / name for a in index.automations.values()
                                                 for name in (TRIGGERS_FILE, LEGACY_FILE)]
    for path in [*files, *([accepted] if accepted else [])]:
        label = path.relative_to(index.directory) if path.is_relative_to(index.directory) else path.name
        digest.update(f"{label}\0".encode())
        if path.is_file():
            with path.open("rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
    return digest.hexdigest()


def write_shard(out: Path, shard: Shard, index: SetIndex, accepted: Path | None, ctx: SummaryContext,
                results_dir: Path) -> Path:
    """Write shard ``shard``'s rows from ``results_dir`` and its ``shard.json`` into ``out``; return it."""
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob(f"{RESULTS_PREFIX}*.jsonl"), *out.glob(f"{DISAGREEMENTS_PREFIX}*.jsonl")]:
        old.unlink()  # a previous run's rows must not be merged with this one's
    for path in [*results_dir.glob(f"{RESULTS_PREFIX}*.jsonl"), *results_dir.glob(f"{DISAGREEMENTS_PREFIX}*.jsonl")]:
        shutil.copyfile(path, out / path.name)
    meta = {"format": FORMAT, "set": index.name, "fingerprint": fingerprint(index, accepted), "k": shard.k, "n": shard.n,
            "context": asdict(ctx)}
    (out / SHARD_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", "utf-8")
    return out


def conclude_shard(ctx: SummaryContext, index: SetIndex, accepted: Path | None, rows: Sequence[Mapping[str, Any]],
                   dis: Sequence[Mapping[str, Any]], entries: Sequence[Entry], today: date, gate: GateConfig,
                   shard: Shard, results_dir: Path, out: Path) -> Summary:
    """Keep a shard's results in ``out`` for ``cutover report merge``; return the shard's own summary."""
    write_shard(out, shard, index, accepted, ctx, results_dir)
    data = summarise(ctx, index, rows, dis, entries, today, gate)
    return Summary(data, out, written=False, failed=failed_triggers(rows), shard=shard)


def _read(directory: Path) -> dict[str, Any]:
    path = directory / SHARD_FILE
    try:
        meta: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise HarnessError(f"{directory}: not a shard's results (no {SHARD_FILE}; "
                           f"written by pytest --shadow SET --shadow-shard K/N)") from None
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{path}: cannot be read ({exc})") from None
    if meta.get("format") != FORMAT:
        raise HarnessError(f"{path}: format {meta.get('format')!r}, expected {FORMAT} (written by another cutover)")
    return meta


def _differs(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Name the first thing two shards of what should be one run disagree on, or None."""
    if a["set"] != b["set"] or a["fingerprint"] != b["fingerprint"]:
        return f"a different recording set ({b['set']}, fingerprint {b['fingerprint'][:12]}) " \
               f"than {a['set']} (fingerprint {a['fingerprint'][:12]})"
    if a["n"] != b["n"]:
        return f"{b['n']} shards, not {a['n']}"
    for key, value in a["context"].items():
        if b["context"].get(key) != value:
            return f"a different {key.replace('_', ' ')} ({b['context'].get(key)!r}, not {value!r})"
    return None


def check(dirs: Sequence[Path]) -> list[dict[str, Any]]:
    """Read every directory's ``shard.json``; raise HarnessError unless they are shards 1..N of one run."""
    if not dirs:
        raise HarnessError("no shard directories given")
    metas = [_read(d) for d in dirs]
    first = metas[0]
    seen: dict[int, Path] = {}
    for directory, meta in zip(dirs, metas, strict=True):
        why = _differs(first, meta)
        if why is not None:
            raise HarnessError(f"{directory}: shard {meta['k']}/{meta['n']} is of another run than {dirs[0]}: {why}")
        if meta["k"] in seen:
            raise HarnessError(f"{directory}: shard {meta['k']}/{meta['n']} was given twice "
                               f"(also {seen[meta['k']]})")
        seen[meta["k"]] = directory
    missing = [k for k in range(1, first["n"] + 1) if k not in seen]
    if missing:
        given = ", ".join(f"{k}/{first['n']} in {d}" for k, d in sorted(seen.items()))
        absent = ", ".join(f"{k}/{first['n']}" for k in missing)
        raise HarnessError(f"shard(s) {absent} missing "
                           f"(given: {given}): merge every shard of the run")
    return metas


def merge_shards(dirs: Sequence[Path], *, report_dir: Path | None = None, start: Path | None = None,
          today: date | None = None) -> Summary:
    """Merge the results of every shard in ``dirs`` into the reports a single run writes.

    The set and the accepted differences are read again from the project found from ``start``
    (default: the working directory), and must be the ones the shards replayed. Raises
    HarnessError naming the directory of a shard that does not fit, and ConfigError for a bad
    ``[tool.cutover]``. Recording the verdicts is :func:`harness.shadow.summary.record`'s.
    """
    from harness.shadow.project import load_project

    dirs = [Path(d) for d in dirs]
    metas = check(dirs)
    project = load_project(start or Path.cwd())
    raw = metas[0]["context"]
    ctx = SummaryContext(**{**raw, "spans": {k: tuple(v) for k, v in raw["spans"].items()}})
    index = SetIndex.build(project.root / ctx.set_path)
    accepted = project.root / ctx.accepted_file if ctx.accepted_file else None
    if fingerprint(index, accepted) != metas[0]["fingerprint"]:
        raise HarnessError(f"{dirs[0]}: the shards replayed other files than {project.root / ctx.set_path} "
                           f"holds now (fingerprints differ): merge where the shards ran, at the same commit")
    entries = _accepted.load(accepted) if accepted else []
    rows = [r for d in dirs for r in read_rows(d, RESULTS_PREFIX)]
    dis = [r for d in dirs for r in read_rows(d, DISAGREEMENTS_PREFIX)]
    today = today or datetime.now().astimezone().date()
    return conclude(ctx, index, rows, dis, entries, today, project.gate, report_dir, project.root)
