"""Aggregate a shadow run's per-trigger rows and write ``reports/<set>/``.

``summary.json`` is the machine-readable result; its schema (``"schema": 1``) is documented in
``docs/harness.md`` and changes only by adding keys. It holds no timestamps, durations or
database names, so replaying the same set against the same code gives byte-identical files.
``disagreements.csv`` has one row per disagreement; ``index.html`` is self-contained (inline CSS
and SVG, no scripts, no network) and reads top-down: verdicts, agreement, branches, clusters
with exemplars side by side, accepted differences, and how much real traffic the set stands for.

Aggregation is pandas'; rendering is :mod:`harness.shadow._html`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.shadow import _error_class, _evidence as _compared, _html
from harness.shadow.accepted import Entry, Usage, usage
from harness.shadow.cluster import Cluster, clusters, frame
from harness.shadow.gate import FULL_EVIDENCE, AutomationStats, GateConfig, Verdict, compared_phrase, evidence_depth, judge
from harness.manifest import Manifest

SCHEMA_VERSION = 1
CSV_COLUMNS = ["automation", "trigger_id", "signature", "path", "kind", "legacy", "new", "side_effect",
               "accepted_by", "expired_by", "noisy"]


@dataclass(frozen=True)
class RunInfo:
    """What the summary says about the run itself."""

    set_path: str
    mode: str
    seed: int
    noise: bool
    accepted_file: str | None
    code_versions: Mapping[str, str]
    platforms: Mapping[str, str]
    coercions: Mapping[str, str]


def _share(x: int, n: int) -> float:
    return round(x / n, 6) if n else 0.0


def _triggers_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    cols = ["automation", "trigger_id", "seq", "verdict", "legacy_status", "new_status", "legacy_branches",
            "new_branches", "error", "exception", "noisy"]
    df = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols, dtype=object)
    if not df.empty:
        df = df.sort_values(["automation", "seq"], kind="stable").drop_duplicates(["automation", "trigger_id"])
    return df.reset_index(drop=True)


def _branch_table(df: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """Per automation: each legacy branch, how often legacy and new took it, its agreement."""
    compared = df[df["verdict"].isin(list(_compared.COMPARED_VERDICTS))]
    out: dict[str, list[dict[str, Any]]] = {}
    if compared.empty:
        return out
    ok = compared["verdict"].isin(["agreed", "accepted"])
    legacy = compared.assign(ok=ok, branch=compared["legacy_branches"]).explode("branch").dropna(subset=["branch"])
    new = compared.assign(branch=compared["new_branches"]).explode("branch").dropna(subset=["branch"])
    new_counts = new.groupby(["automation", "branch"]).size()
    stats = legacy.groupby(["automation", "branch"]).agg(legacy=("trigger_id", "size"), agreed=("ok", "sum"))
    for (automation, branch), row in stats.sort_index().iterrows():
        n = int(row["legacy"])
        out.setdefault(str(automation), []).append({
            "branch": str(branch), "legacy": n, "new": int(new_counts.get((automation, branch), 0)),
            "agreed": int(row["agreed"]), "agreement": _share(int(row["agreed"]), n),
        })
    return out


def _evidence(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Per automation: the fields every compared legacy trace holds (a row without ``evidence``
    holds all five); an automation with no compared trace is absent."""
    held: dict[str, set[str]] = {}
    for row in rows:
        if row.get("verdict") in _compared.COMPARED_VERDICTS:
            fields = set(row.get("evidence") or FULL_EVIDENCE)
            name = str(row["automation"])
            held[name] = held[name] & fields if name in held else fields
    return {name: tuple(f for f in FULL_EVIDENCE if f in fields) for name, fields in held.items()}


def _items(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per automation: legacy items compared with child jobs and how many agree, and the child
    jobs started for triggers whose legacy trace has no items (not compared). Only automations
    with either appear."""
    out: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        key = (str(row["automation"]), str(row["trigger_id"]))
        if key in seen or not (row.get("items") or row.get("children")):
            continue
        seen.add(key)
        entry = out.setdefault(key[0], {"triggers": 0, "compared": 0, "agreed": 0, "extra": 0,
                                        "children_not_compared": 0})
        if row.get("items"):
            entry["triggers"] += 1
            for name in ("compared", "agreed", "extra"):
                entry[name] += int(row["items"][name])
        entry["children_not_compared"] += int(row.get("children") or 0)
    for entry in out.values():
        entry["agreement"] = _share(entry["agreed"], entry["compared"])
    return out


def _evidence_entry(fields: tuple[str, ...], required: str, nodes: Mapping[str, Any] | None,
                    classes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    depth = evidence_depth(fields)
    phrase = compared_phrase(fields)
    extra = [p for p in (_compared.outputs_phrase(nodes), _error_class.class_phrase(dict(classes or {}))) if p]
    return {"held": list(fields), "missing": [f for f in FULL_EVIDENCE if f not in fields],
            "depth": None if depth is None else str(depth), "required": required,
            "compared": "; ".join([phrase, *extra]),
            **({"nodes": dict(nodes)} if nodes else {}), **({"error_class": dict(classes)} if classes else {})}


def _traffic(manifest: Manifest, automation: str, index_span: tuple[str | None, str | None]) -> dict[str, Any]:
    """Estimate what share of the automation's real traffic in the window the set holds."""
    source = next((s for s in manifest.sources if s.automation == automation), None)
    window_days = None
    if manifest.window is not None:
        window_days = round((manifest.window.end - manifest.window.start).total_seconds() / 86400, 2)
    retention = source.retention_days if source else None
    sampling = source.sampling if source else 1.0
    covered = min(retention, window_days) if retention and window_days else window_days
    share = round(min(1.0, covered / window_days) * sampling, 4) if covered and window_days else None
    notes = []
    if retention and window_days and retention < window_days:
        notes.append(f"{source.platform if source else 'the legacy tool'} keeps {retention} days of runs: "
                     f"the set covers about {retention} of the window's {window_days:g} days")
    if sampling < 1.0:
        notes.append(f"the tool kept {sampling:.0%} of runs")
    if source is not None and source.saves_successful_runs is False:
        notes.append("successful runs were not saved")
    if source is not None and source.skipped_records:
        notes.append(f"{source.skipped_records} malformed records were skipped on import: the set is incomplete")
    if source is not None and source.note:
        notes.append(source.note)
    return {
        "platform": str(source.platform) if source else None, "window_days": window_days,
        "received_from": index_span[0], "received_to": index_span[1], "retention_days": retention,
        "sampling": sampling, "skipped_records": source.skipped_records if source else 0,
        "estimated_share": share, "notes": notes,
    }


def _entry_usage(entries: Sequence[Entry], dis_rows: Sequence[Mapping[str, Any]],
                 today_expired: set[int]) -> list[dict[str, Any]]:
    """Each entry with what it matched, in triggers (the verdict's unit; see accepted.Usage)."""
    counted = usage(dis_rows)
    out = []
    for entry in entries:
        u = counted.get(entry.index, Usage())
        status = "expired" if entry.index in today_expired else ("active" if u.triggers or u.still_disagreeing else "unused")
        out.append({**entry.as_dict(), "matched": u.triggers, "matched_differences": u.differences,
                    "still_disagreeing": u.still_disagreeing, "expired_matches": u.expired_triggers, "status": status})
    return out


def _definition_branches(manifest: Manifest, set_path: str | None, name: str,
                         compared: Mapping[str, Mapping[str, Any]]) -> Any:
    """Every branch of the automation's legacy definition with the compared triggers whose legacy
    trace took it (a harness.coverage.DefinitionCoverage; None when the manifest names no definition).

    ``compared`` maps each compared trigger's id to its result row. Rows written by a replay carry
    the positions of the branches their legacy trace took (``definition_taken``), counted here
    without reading the traces; only when some row lacks them are the legacy traces read again."""
    entry = manifest.automations.get(name)
    if entry is None or not entry.definition:
        return None
    from harness.coverage import definition_rows
    from harness.recording import LEGACY_FILE, iter_traces

    definition = Path(set_path or ".") / entry.definition
    if compared and all("definition_taken" in row for row in compared.values()):
        return definition_rows(definition, entry, taken=[
            (row["definition_taken"], row.get("evidence") or FULL_EVIDENCE) for row in compared.values()])
    legacy = Path(set_path or ".") / name / LEGACY_FILE
    traces = [t for t in iter_traces(legacy, outline=True) if t.trigger_id in compared] if legacy.is_file() and compared else []
    return definition_rows(definition, entry, traces)


def _compared_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """Per automation, the row of each trigger compared to the end (agreed, accepted, disagreed), by id."""
    first: dict[str, dict[str, Mapping[str, Any]]] = {}  # a trigger's first row counts, as in the triggers' frame
    for row in sorted(rows, key=lambda r: (str(r["automation"]), r.get("seq") or 0)):
        first.setdefault(str(row["automation"]), {}).setdefault(str(row["trigger_id"]), row)
    return {name: {tid: row for tid, row in by_id.items() if row.get("verdict") in ("agreed", "accepted", "disagreed")}
            for name, by_id in first.items()}


def build_summary(info: RunInfo, manifest: Manifest, spans: Mapping[str, tuple[str | None, str | None]],
                  result_rows: Sequence[Mapping[str, Any]], dis_rows: Sequence[Mapping[str, Any]],
                  entries: Sequence[Entry], expired: set[int], gate: GateConfig) -> dict[str, Any]:
    """Aggregate the rows of every process into the summary dict (see docs/harness.md)."""
    df = _triggers_frame(result_rows)
    dis = frame(dis_rows)
    found = clusters(dis)
    branch_rows = _branch_table(df)
    side = (dis[(dis["side_effect"] == True) & dis["accepted_by"].isna()]  # noqa: E712 (object column)
            .groupby("automation")["trigger_id"].nunique() if not dis.empty else pd.Series(dtype=int))
    counts = (df.groupby(["automation", "verdict"]).size().unstack(fill_value=0)
              if not df.empty else pd.DataFrame())
    autos: list[dict[str, Any]] = []
    used = _entry_usage(entries, dis_rows, expired)
    evidence = _evidence(result_rows)
    items = _items(result_rows)
    todo = _compared.unfinished_counts(result_rows)
    node_cov = _compared.node_coverage(result_rows, manifest)
    classes = _error_class.class_counts(result_rows)
    compared_rows = _compared_rows(result_rows)
    for name in sorted(set(spans) | set(df["automation"]) if not df.empty else spans):
        c = {v: int(counts.loc[name].get(v, 0)) if name in counts.index else 0
             for v in ("agreed", "accepted", "disagreed", "unfinished", "unpaired", "error")}
        compared = c["agreed"] + c["accepted"] + c["disagreed"] + c["unfinished"]
        legacy_branches = {b["branch"]: b["new"] for b in branch_rows.get(name, [])}
        expired_labels = tuple(f"#{u['index'] + 1} {u['path'] or u['signature']} (owner {u['owner']}, expired {u['expires']})"
                               for u in used if u["automation"] == name and u["status"] == "expired")
        read = _definition_branches(manifest, info.set_path, name, compared_rows.get(name, {}))
        definition = None if read is None else read.rows
        countable = "decisions" in evidence.get(name, ()) or not compared
        if definition is not None and not countable:  # no decision recorded: "taken" would be a guess
            definition = [{**r, "taken": None} for r in definition]
        untaken = None if read is None or read.problem else tuple(r["branch"] for r in definition or [] if r["taken"] == 0)
        stats = AutomationStats(name, compared, c["agreed"] + c["accepted"], int(side.get(name, 0)),
                                legacy_branches, expired_labels, evidence.get(name, ()), untaken,
                                branches_countable=countable, definition_problem=read.problem if read else None,
                                unreadable=read.unreadable if read and countable else (),
                                definition_total=None if read is None or read.problem else len(read.rows),
                                unfinished=todo.get(name, {}),
                                accepted_entries=sum(e.automation == name for e in entries))
        verdict = judge(stats, gate.rules_for(name), info.code_versions.get(name, "unregistered"))
        if name not in info.code_versions:
            verdict = Verdict(name, (f"automation {name!r} is not registered in the automations module",
                                     *verdict.failed), verdict.met, "unregistered", verdict.evidence, verdict.neutral)
        missing = sorted(b for b, n in legacy_branches.items() if n == 0)
        autos.append({
            "name": name, "platform": info.platforms.get(name), "coercion": info.coercions.get(name),
            "code_version": info.code_versions.get(name), "triggers": compared + c["unpaired"] + c["error"],
            "compared": compared, **c, "agreement": _share(c["agreed"] + c["accepted"], compared),
            "raw_agreement": _share(c["agreed"], compared), "side_effect_mismatches": int(side.get(name, 0)),
            "branches": branch_rows.get(name, []),
            "coverage": {"legacy_branches": len(legacy_branches),
                         "exercised": len(legacy_branches) - len(missing), "missing": missing},
            "definition_branches": definition,
            **({"definition_problem": read.problem} if read is not None and read.problem else {}),
            "traffic": _traffic(manifest, name, spans.get(name, (None, None))),
            "evidence": _evidence_entry(evidence.get(name, ()), str(gate.rules_for(name).evidence), node_cov.get(name),
                                        classes.get(name)),
            **({"unfinished_nodes": todo[name]} if name in todo else {}),
            "verdict": verdict.as_dict(),
            **({"items": items[name]} if name in items else {}),
        })
    totals: dict[str, float] = {k: sum(int(a[k]) for a in autos) for k in (
        "triggers", "compared", "agreed", "accepted", "disagreed", "unfinished", "unpaired", "error")}
    totals["agreement"] = _share(int(totals["agreed"] + totals["accepted"]), int(totals["compared"]))
    noisy = _noise(dis) if info.noise else []
    return {
        "schema": SCHEMA_VERSION,
        "recording": {"name": manifest.name, "path": info.set_path, "description": manifest.description,
                      "window": None if manifest.window is None else {
                          "start": manifest.window.start.isoformat(), "end": manifest.window.end.isoformat()}},
        "mode": info.mode, "seed": info.seed, "noise_check": info.noise,
        "totals": totals, "automations": autos,
        "clusters": [c.as_dict() for c in found],
        "accepted_file": info.accepted_file, "accepted": used,
        "noise": noisy,
        "errors": _errors(df),
        "gate": {"ready": [a["name"] for a in autos if a["verdict"]["ready"]],
                 "not_ready": [a["name"] for a in autos if not a["verdict"]["ready"]]},
    }


def _noise(dis: pd.DataFrame) -> list[dict[str, Any]]:
    if dis.empty or "noisy" not in dis:
        return []
    noisy = dis[dis["noisy"] == True]  # noqa: E712 (object column)
    grouped = noisy.groupby(["automation", "pattern"])["trigger_id"].nunique()
    return [{"automation": a, "path": p, "triggers": int(n)} for (a, p), n in grouped.sort_index().items()]


def _errors(df: pd.DataFrame, limit: int = 20) -> list[dict[str, Any]]:
    if df.empty:
        return []
    bad = df[(df["verdict"] == "error") | df["exception"].notna()]
    return [{"automation": r.automation, "trigger_id": r.trigger_id, "verdict": r.verdict,
             "error": r.error, "exception": r.exception} for r in bad.head(limit).itertuples(index=False)]


def exemplar_traces(result_rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the normalised legacy and new traces of each cluster's first exemplar, by trigger."""
    wanted = {(c["automation"], c["exemplars"][0]["trigger_id"]) for c in summary["clusters"] if c["exemplars"]}
    return {f"{r['automation']}/{r['trigger_id']}": {"legacy": r.get("legacy"), "new": r.get("new")}
            for r in result_rows if (r["automation"], r["trigger_id"]) in wanted}


def write_reports(out_dir: Path, summary: Mapping[str, Any], dis_rows: Sequence[Mapping[str, Any]],
                  traces: Mapping[str, Mapping[str, Any]]) -> list[Path]:
    """Write summary.json, disagreements.csv and index.html into ``out_dir``; return their paths.

    The ``cutover shadow mutate`` measurements under ``out_dir`` (``mutation/<NAME>/``, where the
    command writes them for ``reports/<set name>``) get a section of index.html, linking their
    pages; summary.json never holds them, so it stays byte-identical for the same set and code.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    summary_path = out_dir / "summary.json"
    summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    dis = frame(dis_rows)
    csv_path = out_dir / "disagreements.csv"
    if dis.empty:
        pd.DataFrame(columns=CSV_COLUMNS).to_csv(csv_path, index=False)
    else:
        table = dis.assign(
            signature=dis["automation"] + " " + dis["pattern"] + " " + dis["kind"],
            legacy=dis["legacy"].map(_json), new=dis["new"].map(_json),
            noisy=[bool(r.get("noisy")) for r in sorted(dis_rows, key=lambda r: (r["automation"], r["seq"], r["path"], r["kind"]))],
        )
        table[CSV_COLUMNS].to_csv(csv_path, index=False, lineterminator="\n")
    html_path = out_dir / "index.html"
    html_path.write_text(_html.render(summary, traces, _mutation(out_dir)), "utf-8")
    return [html_path, summary_path, csv_path]


def _mutation(out_dir: Path) -> list[dict[str, Any]]:
    """The measurements written under ``out_dir``, each with ``href``: its page, relative to ``out_dir``."""
    from harness.mutate.store import MUTATION_DIR, MUTATION_PAGE, measurements

    found = []
    for data in measurements(out_dir):
        page = Path(MUTATION_DIR, str(data["automation"]), MUTATION_PAGE)
        found.append({**data, "href": page.as_posix() if (out_dir / page).is_file() else None})
    return found


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def terminal_lines(summary: Mapping[str, Any], *, clusters_shown: int = 3) -> list[str]:
    """Return the terminal summary: per automation agreement, top clusters, and the verdict."""
    lines = []
    by_auto: dict[str, list[Mapping[str, Any]]] = {}
    for c in summary["clusters"]:
        by_auto.setdefault(c["automation"], []).append(c)
    label_width = max([10, *(len(a["verdict"]["label"]) for a in summary["automations"])])
    for a in summary["automations"]:
        v = a["verdict"]
        lines.append(f"{a['name']:<20} {v['label']:<{label_width}} {a['compared']:>6} compared  agreement "
                     f"{100 * a['agreement']:6.2f}%  ({a['disagreed']} disagree, "
                     f"{str(a['unfinished']) + ' unfinished (TODO), ' if a.get('unfinished') else ''}{a['accepted']} accepted"
                     f"{', ' + str(a['error']) + ' errors' if a['error'] else ''})  code {a['code_version']}")
        lines.append(f"    {a['evidence']['compared']}")
        lines.extend(_item_lines(a.get("items")))
        lines.extend(f"    ✗ {reason}" for reason in v["failed"])
        rows = a.get("definition_branches") or []
        untaken = [r["branch"] for r in rows if r["taken"] == 0]
        if rows and all(r["taken"] is None for r in rows):
            lines.append(f"    ! branches not counted: the export holds no decisions, so none of the definition's "
                         f"{len(rows)} branch(es) can be shown taken")
        elif any(r["taken"] is None for r in rows):
            lines.append("    ! not readable from the recording: " + ", ".join(r["branch"] for r in rows if r["taken"] is None))
        if a.get("definition_problem"):
            lines.append(f"    ! branches not counted: the definition's branches cannot be read: {a['definition_problem']}")
        if untaken:
            lines.append(f"    ! untested: {len(untaken)} branch(es) of the definition no recorded trigger took: "
                         + ", ".join(untaken[:6]) + (" …" if len(untaken) > 6 else ""))
        for c in by_auto.get(a["name"], [])[:clusters_shown]:
            ex = c["exemplars"][0]
            flag = " [side effect]" if c["side_effect"] else ""
            acc = f", {c['accepted']} accepted" if c["accepted"] else ""
            lines.append(f"    cluster {c['path']} {c['kind']}: {c['count']}× in {c['triggers']} triggers{acc}{flag}"
                         f" — e.g. {ex['trigger_id']}: legacy {_short(ex['legacy'])} → new {_short(ex['new'])}")
        more = len(by_auto.get(a["name"], [])) - clusters_shown
        if more > 0:
            lines.append(f"    … {more} more cluster(s) in the report")
    for u in summary["accepted"]:
        if u["status"] != "active":
            lines.append(f"accepted difference #{u['index'] + 1} ({u['automation']} {u['path'] or u['signature']}, "
                         f"owner {u['owner']}) is {u['status']}"
                         + (f" since {u['expires']}" if u["status"] == "expired" else ": it matched nothing"))
    return lines


def _item_lines(items: Mapping[str, Any] | None) -> list[str]:
    """The terminal lines on an automation's item-by-item comparison (none without items)."""
    if not items:
        return []
    lines = []
    if items["compared"] or items["extra"]:
        extra = f", {items['extra']} child job(s) with no legacy item" if items["extra"] else ""
        lines.append(f"    items: {items['compared']} compared item by item in {items['triggers']} triggers, "
                     f"{items['agreed']} agree ({100 * items['agreement']:.2f}%){extra}")
    if items["children_not_compared"]:
        lines.append(f"    {items['children_not_compared']} child job(s) started by the new code not compared "
                     "(their legacy traces have no items)")
    return lines


def _short(value: Any, width: int = 40) -> str:
    text = "—" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"


def verdicts(summary: Mapping[str, Any]) -> list[Verdict]:
    """Return the gate verdicts of a summary."""
    return [Verdict(a["name"], tuple(a["verdict"]["failed"]), tuple(a["verdict"]["met"]), a["verdict"]["code_version"],
                    tuple(a["verdict"].get("evidence", FULL_EVIDENCE))) for a in summary["automations"]]


__all__ = ["Cluster", "RunInfo", "build_summary", "exemplar_traces", "terminal_lines", "verdicts", "write_reports"]
