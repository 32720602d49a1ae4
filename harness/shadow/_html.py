"""Render a shadow-run summary as one self-contained HTML page (inline CSS and SVG, no scripts).

Every value from the recording or the run is escaped. The page template and stylesheet are
``harness/shadow/templates/report.html`` and ``report.css``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from string import Template
from typing import Any

_BAR_COLOURS = (("agreed", "#1a7f37"), ("accepted", "#bf8700"), ("disagreed", "#cf222e"), ("unfinished", "#8250df"),
                ("error", "#6e7781"))


def _t(name: str) -> str:
    return resources.files("harness.shadow").joinpath("templates", name).read_text("utf-8")


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _j(value: Any) -> str:
    return "—" if value is None else _e(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _bars(rows: Sequence[tuple[str, Mapping[str, int]]], *, label_width: int = 240) -> str:
    """Return a horizontal stacked bar chart (agreed/accepted/disagreed/error) as inline SVG."""
    width, bar_w, row_h = 900, 900 - label_width - 70, 26
    height = row_h * len(rows) + 28
    parts = [f'<svg role="img" aria-label="agreement chart" viewBox="0 0 {width} {height}" width="100%" '
             f'xmlns="http://www.w3.org/2000/svg">']
    for i, (label, counts) in enumerate(rows):
        y = i * row_h + 4
        total = sum(counts.get(k, 0) for k, _ in _BAR_COLOURS) or 1
        parts.append(f'<text x="{label_width - 8}" y="{y + 15}" text-anchor="end">{_e(label)}</text>')
        x = float(label_width)
        for key, colour in _BAR_COLOURS:
            w = bar_w * counts.get(key, 0) / total
            if w > 0:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 8}" fill="{colour}">'
                             f'<title>{_e(label)}: {counts.get(key, 0)} {key}</title></rect>')
            x += w
        ok = counts.get("agreed", 0) + counts.get("accepted", 0)
        parts.append(f'<text x="{label_width + bar_w + 6}" y="{y + 15}">{_pct(ok / total)}</text>')
    legend_y = row_h * len(rows) + 20
    x = label_width
    for key, colour in _BAR_COLOURS:
        parts.append(f'<rect x="{x}" y="{legend_y - 10}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{x + 14}" y="{legend_y}">{key}</text>')
        x += 100
    parts.append("</svg>")
    return "".join(parts)


def _verdicts(summary: Mapping[str, Any]) -> str:
    cards = []
    for a in summary["automations"]:
        v = a["verdict"]
        cls = "ready" if v["ready"] else "not-ready"
        items = "".join(f'<li class="fail">{_e(r)}</li>' for r in v["failed"])
        items += "".join(f'<li class="pass">{_e(r)}</li>' for r in v["met"])
        items += "".join(f'<li class="muted">— {_e(r)}</li>' for r in v.get("neutral", []))
        cards.append(f'<div class="card" id="verdict-{_e(a["name"])}"><h3>{_e(a["name"])} '
                     f'<span class="badge {cls}">{_e(v["label"])}</span></h3>'
                     f'<p class="muted">code version <code>{_e(v["code_version"])}</code> · '
                     f'migrated from {_e(a["platform"] or "?")}</p>'
                     f'<p class="evidence">{_e(a["evidence"]["compared"])}</p><ul>{items}</ul></div>')
    return '<h2 id="gate">Go-live gate</h2><div class="verdicts">' + "".join(cards) + "</div>"


def _agreement(summary: Mapping[str, Any]) -> str:
    head = ("<tr><th>automation</th><th class=num>triggers</th><th class=num>compared</th><th class=num>agreed</th>"
            "<th class=num>accepted</th><th class=num>disagreed</th><th class=num>unfinished (TODO)</th><th class=num>errors</th>"
            "<th class=num>unpaired</th><th class=num>agreement</th><th>evidence depth</th><th>verdict</th></tr>")
    rows = "".join(
        f'<tr><td>{_e(a["name"])}</td><td class=num>{a["triggers"]}</td><td class=num>{a["compared"]}</td>'
        f'<td class=num>{a["agreed"]}</td><td class=num>{a["accepted"]}</td><td class=num>{a["disagreed"]}</td>'
        f'<td class=num>{a.get("unfinished", 0)}</td><td class=num>{a["error"]}</td><td class=num>{a["unpaired"]}</td>'
        f'<td class=num>{_pct(a["agreement"])}</td><td>{_e(a["evidence"]["depth"] or "none")}</td>'
        f'<td>{_e(a["verdict"]["label"])}</td></tr>'
        for a in summary["automations"])
    t = summary["totals"]
    chart = _bars([(a["name"], a) for a in summary["automations"]])
    return (f'<h2 id="agreement">Agreement per automation</h2><p>{t["compared"]} of {t["triggers"]} triggers '
            f'compared; {_pct(t["agreement"])} agree (accepted differences count as agreeing).</p>'
            f'{chart}<table>{head}{rows}</table>{_items(summary)}')


def _items(summary: Mapping[str, Any]) -> str:
    """The item-by-item table: legacy items against child jobs (empty when no automation has any)."""
    autos = [a for a in summary["automations"] if a.get("items")]
    if not autos:
        return ""
    rows = "".join(
        f'<tr><td>{_e(a["name"])}</td><td class=num>{i["triggers"]}</td><td class=num>{i["compared"]}</td>'
        f'<td class=num>{i["agreed"]}</td><td class=num>{i["compared"] - i["agreed"]}</td>'
        f'<td class=num>{i["extra"]}</td><td class=num>{_pct(i["agreement"])}</td>'
        f'<td class=num>{i["children_not_compared"]}</td></tr>' for a in autos for i in [a["items"]])
    return ('<h3 id="items">Runs over many items, item by item</h3><p class="muted">Each legacy item is compared '
            "with the new code's child job of the same key; a trigger agrees only when it and every item agree. "
            "Item disagreements are the clusters on <code>items[*]</code> paths.</p><table><tr><th>automation</th>"
            "<th class=num>triggers with items</th><th class=num>items compared</th><th class=num>agree</th>"
            "<th class=num>disagree</th><th class=num>extra children</th><th class=num>item agreement</th>"
            f"<th class=num>children not compared</th></tr>{rows}</table>")


def _branches(summary: Mapping[str, Any]) -> str:
    out = ['<h2 id="branches">Agreement and coverage per legacy branch</h2><p class="muted">A branch is a '
           "decision value the legacy runs took (<code>route=bug</code>) or a filtered run. <em>legacy</em>: "
           "triggers whose legacy run took it; <em>new</em>: triggers where the new code took it.</p>"]
    for a in summary["automations"]:
        rows = a["branches"]
        if not rows:  # no legacy branch recorded; the definition's branches are still listed
            if a.get("definition_branches") or a.get("definition_problem"):
                out.append(f'<h3>{_e(a["name"])}</h3>{_definition_table(a)}')
            continue
        chart = _bars([(f'{a["name"]} {b["branch"]}', {"agreed": b["agreed"], "disagreed": b["legacy"] - b["agreed"]})
                       for b in rows], label_width=300)
        body = "".join(
            f'<tr><td><code>{_e(b["branch"])}</code></td><td class=num>{b["legacy"]}</td><td class=num>{b["new"]}</td>'
            f'<td class=num>{_pct(b["agreement"])}</td></tr>' for b in rows)
        cov = a["coverage"]
        missing = (f' Not exercised: {", ".join(f"<code>{_e(m)}</code>" for m in cov["missing"])}.'
                   if cov["missing"] else "")
        out.append(f'<h3>{_e(a["name"])}</h3><p>{cov["exercised"]} of {cov["legacy_branches"]} legacy branches '
                   f'exercised by the new code.{missing}</p>{chart}<table><tr><th>branch</th><th class=num>legacy</th>'
                   f'<th class=num>new</th><th class=num>agreement</th></tr>{body}</table>')
        out.append(_definition_table(a))
    return "".join(out)


def _definition_table(a: Mapping[str, Any]) -> str:
    """Every branch of the legacy definition and how many recorded triggers took it; untaken first."""
    rows = a.get("definition_branches")
    if a.get("definition_problem"):
        return (f'<h4>Branches of the definition</h4><p class="warn">The definition\'s branches cannot be read, so '
                f'none is counted: {_e(a["definition_problem"])}</p>')
    if not rows:
        return "" if rows is None else "<h4>Branches of the definition</h4><p>No branches to check: the definition has no branching node.</p>"
    untaken = [r for r in rows if r["taken"] == 0]
    if all(r["taken"] is None for r in rows):
        return (f'<h4>Branches of the definition</h4><p class="warn">{len(rows)} branch(es); none can be counted: '
                "the export holds no decisions, so no recorded trigger can be shown to have taken one.</p>"
                "<table><tr><th>node</th><th>output</th><th>decision</th></tr>"
                + "".join(f'<tr><td>{_e(r["node"])}</td><td>{_e(r["output"])}</td><td><code>{_e(r["branch"])}</code></td></tr>'
                          for r in rows) + "</table>")
    warn = (f'<p class="warn"><strong>{len(untaken)} branch(es) of the definition no recorded trigger took</strong> '
            "— untested by this set: " + ", ".join(f"<code>{_e(r['node'])} → {_e(r['output'])}</code>" for r in untaken)
            + "</p>") if untaken else ""
    unreadable = [r for r in rows if r["taken"] is None]
    if not untaken and not unreadable:
        warn = "<p>Every branch of the definition was taken by a recorded trigger.</p>"
    if unreadable:
        warn += (f'<p class="warn"><strong>{len(unreadable)} branch(es) not readable from the recording</strong> '
                 "(never counted as taken): " + "; ".join(f"<code>{_e(r['branch'])}</code> ({_e(r.get('note', ''))})"
                                                          for r in unreadable) + "</p>")
    body = "".join(f'<tr><td>{_e(r["node"])}</td><td>{_e(r["output"])}</td><td><code>{_e(r["branch"])}</code></td>'
                   f'<td class=num>{"not readable" if r["taken"] is None else r["taken"]}</td></tr>'
                   for r in sorted(rows, key=lambda r: r["taken"] is None or r["taken"] > 0))
    return (f'<h4>Branches of the definition</h4>{warn}<table><tr><th>node</th><th>output</th><th>decision</th>'
            f'<th class=num>recorded</th></tr>{body}</table>')


def _clusters(summary: Mapping[str, Any], traces: Mapping[str, Mapping[str, Any]]) -> str:
    clusters = summary["clusters"]
    if not clusters:
        return '<h2 id="clusters">Disagreement clusters</h2><p>No disagreements.</p>'
    out = [f'<h2 id="clusters">Disagreement clusters</h2><p>{len(clusters)} clusters. A cluster groups the '
           "disagreements of one automation on one field path (list indices as <code>[*]</code>) of one kind.</p>"]
    for c in clusters:
        tags = ('<span class="tag side">side effect</span> ' if c["side_effect"] else "")
        tags += f'<span class="tag acc">{c["accepted"]} accepted</span> ' if c["accepted"] else ""
        rows = "".join(
            f'<tr><td><code>{_e(x["trigger_id"])}</code><br><code>{_e(x["path"])}</code>{_reads(x)}</td>'
            f'<td><pre>{_j(x["legacy"])}</pre></td><td><pre>{_j(x["new"])}</pre></td></tr>' for x in c["exemplars"])
        first = c["exemplars"][0]["trigger_id"] if c["exemplars"] else None
        full = traces.get(f'{c["automation"]}/{first}')
        detail = ""
        if full:
            detail = (f'<details><summary>whole decision traces of {_e(first)}, legacy and new (normalised)</summary>'
                      f'<div class="side-by-side"><div><h4>legacy</h4><pre>{_j(full["legacy"])}</pre></div>'
                      f'<div><h4>new</h4><pre>{_j(full["new"])}</pre></div></div></details>')
        out.append(f'<section class="cluster" data-signature="{_e(c["signature"])}"><h3><code>{_e(c["automation"])}</code> '
                   f'<code>{_e(c["path"])}</code> {_e(c["kind"])}</h3><p>{c["count"]} disagreements in '
                   f'{c["triggers"]} triggers · {c["unexplained"]} unexplained {tags}</p>'
                   f'<table><tr><th>trigger / field</th><th>legacy</th><th>new</th></tr>{rows}</table>{detail}</section>')
    return "".join(out)


def _reads(exemplar: Mapping[str, Any]) -> str:
    """The trigger fields the new code read before the differing decision (redacted), under the exemplar's path."""
    fields = exemplar.get("reads")
    if not isinstance(fields, Mapping):
        return ""
    if not fields:
        return '<p class="reads muted">decided before reading any trigger field</p>'
    items = "".join(f"<li><code>{_e(path)}</code> = <code>{_e(json.dumps(value, ensure_ascii=False))}</code></li>"
                    for path, value in fields.items())
    return f'<div class="reads"><span class="muted">trigger fields read before this decision:</span><ul>{items}</ul></div>'


def _accepted(summary: Mapping[str, Any]) -> str:
    entries = summary["accepted"]
    where = f' from <code>{_e(summary["accepted_file"])}</code>' if summary["accepted_file"] else ""
    if not entries:
        return f'<h2 id="accepted">Accepted differences</h2><p>None{where}.</p>'
    rows = "".join(
        f'<tr><td>#{u["index"] + 1}</td><td>{_e(u["automation"])}</td><td><code>{_e(u["path"] or u["signature"])}</code>'
        f'{" (" + _e(u["kind"]) + ")" if u["kind"] else ""}</td><td>{_e(u["owner"])}</td><td>{_e(u["reason"])}</td>'
        f'<td>{_e(u["expires"])}</td><td class="{"fail" if u["status"] == "expired" else ""}">{_e(u["status"])}</td>'
        f'<td class=num>{u["matched"]} trigger(s) ({u.get("matched_differences", u["matched"])} difference(s))'
        f'{", also in " + str(u["still_disagreeing"]) + " disagreeing" if u.get("still_disagreeing") else ""}</td></tr>'
        for u in entries)
    return (f'<h2 id="accepted">Accepted differences</h2><p>{len(entries)} entries{where}. Accepted disagreements '
            "pass; expired entries no longer accept anything; unused entries matched nothing.</p>"
            "<table><tr><th></th><th>automation</th><th>path / signature</th><th>owner</th><th>reason</th>"
            f"<th>expires</th><th>status</th><th class=num>matched</th></tr>{rows}</table>"
            '<p class="muted">An entry counts the accepted triggers it matched, the unit of the verdict\'s accepted '
            "count; a trigger it matched that still has an unexplained difference is counted apart, as the verdict "
            "counts it disagreeing.</p>")


def _traffic(summary: Mapping[str, Any]) -> str:
    rows = []
    for a in summary["automations"]:
        t = a["traffic"]
        share = "unknown" if t["estimated_share"] is None else f'about {100 * t["estimated_share"]:.0f}%'
        notes = "; ".join(_e(n) for n in t["notes"]) or "—"
        rows.append(f'<tr><td>{_e(a["name"])}</td><td>{_e(t["platform"] or "?")}</td><td>{_e(t["received_from"] or "?")} → '
                    f'{_e(t["received_to"] or "?")}</td><td>{share}</td><td>{notes}</td></tr>')
    window = summary["recording"]["window"]
    span = f'{_e(window["start"])} → {_e(window["end"])}' if window else "not stated in the manifest"
    return (f'<h2 id="traffic">How much real traffic this set represents</h2><p>Window: {span}. The estimate is '
            "the share of the window the legacy tool's retention covers, times its sampling.</p>"
            "<table><tr><th>automation</th><th>source</th><th>triggers received</th><th>share of the window's traffic"
            f"</th><th>limits</th></tr>{''.join(rows)}</table>")


def _extras(summary: Mapping[str, Any]) -> str:
    out = []
    if summary["noise_check"]:
        rows = "".join(f'<tr><td>{_e(n["automation"])}</td><td><code>{_e(n["path"])}</code></td>'
                       f'<td class=num>{n["triggers"]}</td></tr>' for n in summary["noise"])
        out.append('<h2 id="noise">Noise check</h2><p>Each trigger ran twice; these fields disagreed with '
                   "themselves, so their disagreements with legacy may be noise.</p>"
                   + (f"<table><tr><th>automation</th><th>path</th><th class=num>triggers</th></tr>{rows}</table>"
                      if rows else "<p>No field disagreed with itself.</p>"))
    if summary["errors"]:
        rows = "".join(f'<tr><td>{_e(x["automation"])}</td><td><code>{_e(x["trigger_id"])}</code></td>'
                       f'<td><pre>{_e(x["exception"] or x["error"] or "")}</pre></td></tr>' for x in summary["errors"])
        out.append('<h2 id="errors">Errors raised by the new code or the replay</h2>'
                   f"<table><tr><th>automation</th><th>trigger</th><th>error</th></tr>{rows}</table>")
    return "".join(out)


def _mutation(summary: Mapping[str, Any], measurements: Sequence[Mapping[str, Any]]) -> str:
    """The set's mutation measurements: score, survivors by line, and whether each measured the current code."""
    if not measurements:
        return ""
    from harness.mutate.store import html_section

    current = {a["name"]: a.get("code_version") for a in summary["automations"]}
    notes = []
    for d in measurements:
        name, version = str(d["automation"]), d.get("code_version")
        link = f' (<a href="{_e(d["href"])}">its page</a>)' if d.get("href") else ""
        if name not in current:
            state = "an automation this run did not replay"
        elif current[name] == version:
            state = "the code this run replayed"
        else:
            state = (f"code version <code>{_e(version)}</code>, not the code this run replayed "
                     f"(<code>{_e(current[name])}</code>): measure again with <code>cutover shadow mutate</code>")
        notes.append(f"<li>{_e(name)}: measured {_e(d.get('measured_at', '?'))} on {state}{link}</li>")
    section = html_section(measurements)
    return section.replace("</h2>", "</h2><ul class=\"muted\">" + "".join(notes) + "</ul>", 1)


def render(summary: Mapping[str, Any], traces: Mapping[str, Mapping[str, Any]],
           mutation: Sequence[Mapping[str, Any]] = ()) -> str:
    """Return the report page for ``summary`` (exemplar ``traces`` keyed ``automation/trigger``; the set's
    ``mutation`` measurements, when there are any, get a section of their own)."""
    rec = summary["recording"]
    ready, not_ready = summary["gate"]["ready"], summary["gate"]["not_ready"]
    lede = (f'{_e(rec["description"] or "")} Mode: {_e(summary["mode"])}. READY: '
            f'{_e(", ".join(ready) or "none")}. NOT READY: {_e(", ".join(not_ready) or "none")}.')
    body = "".join((_verdicts(summary), _agreement(summary), _branches(summary), _clusters(summary, traces),
                    _accepted(summary), _mutation(summary, mutation), _traffic(summary), _extras(summary)))
    page = Template(_t("report.html"))
    return page.substitute(title=_e(f'Shadow report: {rec["name"]}'), lede=lede, css=_t("report.css"), body=body)
