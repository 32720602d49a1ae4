"""Where mutation measurements live, how the gate finds one, and the report's section showing them.

``cutover shadow mutate SET --automation NAME`` writes
``<project>/reports/<set name>/mutation/<NAME>/mutation.json`` (and ``mutation.html``, the
section below as a page of its own). Each names the code version it measured (the hash of the
automation module's source, ``Automation.source_hash``): the gate's ``min_mutation_score``
reads the newest measurement of the automation's current code version from any set's reports,
and a measurement of other code counts as none. Imports nothing from the shadow run, so the
gate can read a measurement without the replay's machinery.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

MUTATION_FILE = "mutation.json"
MUTATION_PAGE = "mutation.html"
MUTATION_DIR = "mutation"


def measurement_dir(root: Path, set_name: str, automation: str) -> Path:
    """Return where the measurement of ``automation`` on set ``set_name`` is written."""
    return root / "reports" / set_name / MUTATION_DIR / automation


def write(data: Mapping[str, Any], out: Path) -> Path:
    """Write ``mutation.json`` and ``mutation.html`` into ``out``; return the JSON file's path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / MUTATION_FILE
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
    (out / MUTATION_PAGE).write_text(page([data]), "utf-8")
    return path


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def measurements(report_dir: Path) -> list[dict[str, Any]]:
    """Return the measurements written under one set's report directory, by automation name."""
    found = (_read(p) for p in sorted((report_dir / MUTATION_DIR).glob(f"*/{MUTATION_FILE}")))
    return [d for d in found if d is not None]


def latest(root: Path, automation: str, code_version: str) -> dict[str, Any] | None:
    """Return the newest measurement of ``automation`` at ``code_version`` in any set's reports under ``root``."""
    found = [d for p in (root / "reports").glob(f"*/{MUTATION_DIR}/{automation}/{MUTATION_FILE}")
             if (d := _read(p)) is not None and d.get("automation") == automation
             and d.get("code_version") == code_version]
    return max(found, key=lambda d: str(d.get("measured_at", ""))) if found else None


def survivors(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Return the mutants that survived: the changes the recordings do not pin down."""
    return [r for r in data.get("results", []) if r.get("status") == "survived"]


def summary_line(data: Mapping[str, Any]) -> str:
    """One line: ``github-triage: 73 of 95 mutants killed (76.8%), 22 not pinned down …``."""
    score = data.get("score")
    shown = "no mutants" if score is None else f"{data['killed']} of {data['mutants']} mutants killed ({100 * score:.1f}%)"
    if data.get("killed_by_timeout"):
        shown += f", {data['killed_by_timeout']} of them by timeout (an endless loop)"
    return (f"{data['automation']}: {shown}, {data['survived']} not pinned down by the recordings "
            f"(code version {data['code_version']}, {data['agreeing']} of {data['triggers']} triggers agreeing "
            f"at baseline, {data['seconds']:.0f} s)")


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def html_section(items: Sequence[Mapping[str, Any]]) -> str:
    """Return the report's "Mutation analysis" section (an HTML fragment; every value escaped).

    ``items`` are measurements (``mutation.json`` contents, e.g. :func:`measurements` of the set's
    report directory); an empty sequence gives an empty string, so a report without any shows nothing.
    """
    if not items:
        return ""
    parts = ['<section id="mutation"><h2>Mutation analysis</h2>',
             "<p>Each mutant is one small change to the automation's code. It is <em>killed</em> when a recorded "
             "trigger whose run reaches the changed line disagrees with the legacy run against it; a surviving "
             "mutant is a change the recordings cannot tell from the real code: <strong>not pinned down by the "
             "recordings</strong>.</p>",
             "<p>A mutant whose run never ends (an endless loop) is stopped at a deadline and counted "
             "<em>killed by timeout</em>.</p>"
             "<table><thead><tr><th>automation</th><th>code version</th><th>mutants</th><th>killed</th>"
             "<th>of them by timeout</th><th>survived</th><th>score</th><th>measured</th></tr></thead><tbody>"]
    for d in items:
        score = "—" if d.get("score") is None else f"{100 * d['score']:.1f}%"
        parts.append(f"<tr><td>{_e(d['automation'])}</td><td><code>{_e(d['code_version'])}</code></td>"
                     f"<td>{_e(d['mutants'])}</td><td>{_e(d['killed'])}</td><td>{_e(d.get('killed_by_timeout', 0))}</td>"
                     f"<td>{_e(d['survived'])}</td><td>{score}</td><td>{_e(d.get('measured_at', ''))}</td></tr>")
    parts.append("</tbody></table>")
    for d in items:
        timed = [r for r in d.get("results", []) if r.get("timeout")]
        if timed:
            parts.append(f"<h3>{_e(d['automation'])}: {len(timed)} mutant(s) killed by timeout</h3><ul>"
                         + "".join(f"<li>line {_e(r['line'])} ({_e(r['kind'])}): <code>{_e(r['before'])}</code> → "
                                   f"<code>{_e(r['after'])}</code> — {_e(r.get('reason', ''))} "
                                   f"(trigger <code>{_e(r.get('killed_by'))}</code>)</li>" for r in timed) + "</ul>")
    for d in items:
        left = survivors(d)
        if not left:
            continue
        parts.append(f"<h3>{_e(d['automation'])}: {len(left)} mutant(s) not pinned down by the recordings "
                     f"({_e(d.get('module', ''))})</h3><table><thead><tr><th>line</th><th>kind</th><th>before</th>"
                     "<th>after</th><th>why it survived</th></tr></thead><tbody>")
        parts += [f"<tr><td>{_e(r['line'])}</td><td>{_e(r['kind'])}</td><td><code>{_e(r['before'])}</code></td>"
                  f"<td><code>{_e(r['after'])}</code></td><td>{_e(r.get('reason', ''))}</td></tr>" for r in left]
        parts.append("</tbody></table>")
    parts.append("</section>")
    return "\n".join(parts)


def page(items: Sequence[Mapping[str, Any]]) -> str:
    """Return :func:`html_section` as a page of its own (``mutation.html``)."""
    title = ", ".join(str(d["automation"]) for d in items)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mutation analysis: {_e(title)}'
            "</title><style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}"
            "td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}</style>"
            f"</head><body>{html_section(items)}</body></html>\n")
