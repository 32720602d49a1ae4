"""Recognise a definition (a workflow, blueprint, Zapfile or flow) given where runs belong.

A definition says what an automation *can* do; a run export says what it *did*. Each platform's
importer reads the definition beside the runs (``cutover import --definition FILE``) to turn the
statuses of steps into a path and decisions, but a definition alone holds no run: given as the
export it is named for what it is, with the export that holds the runs.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.errors import DefinitionGivenError, ExportFormatError
from harness.importer._run import load_json_document
from harness.recording import Platform


class DefinitionKind(StrEnum):
    """A kind of definition file, named after the export that produces it."""

    ZAPFILE = "Zapier Zap export (Zapfile.json)"
    ZAPIER_ZAPS = "Zapier Zaps list (GET /v2/zaps)"
    MAKE_BLUEPRINT = "Make scenario blueprint"
    POWER_AUTOMATE_FLOW = "Power Automate / Logic Apps flow definition"
    N8N_WORKFLOW = "n8n workflow"


PLATFORM_OF = {
    DefinitionKind.ZAPFILE: Platform.ZAPIER,
    DefinitionKind.ZAPIER_ZAPS: Platform.ZAPIER,
    DefinitionKind.MAKE_BLUEPRINT: Platform.MAKE,
    DefinitionKind.POWER_AUTOMATE_FLOW: Platform.POWER_AUTOMATE,
    DefinitionKind.N8N_WORKFLOW: Platform.N8N,
}

RUNS_ARE_IN = {
    Platform.ZAPIER: "Zap runs are in the zap-runs API (GET /v2/zap-runs) or the Zap history download",
    Platform.MAKE: "Make runs are in the scenario logs API (GET /scenarios/{id}/logs)",
    Platform.POWER_AUTOMATE: "runs are in the run history (Logic Apps GET .../runs, or `m365 flow run list`)",
    Platform.N8N: "n8n runs are executions: the public API's GET /api/v1/executions?includeData=true "
                  "(what the editor's Download gives is the workflow)",
}


def unwrap(document: Any) -> Any:
    """Strip the wrappers that API examples and CLIs add around a body.

    ``{parameters, responses: {"200": body}}`` (an OpenAPI example file), ``{"body": ...}`` inside
    it, and a one-element top-level array around an API page (as documentation pages show them).
    """
    if isinstance(document, dict) and isinstance(document.get("responses"), dict) and "parameters" in document:
        ok = document["responses"].get("200") or document["responses"].get("201")
        if isinstance(ok, dict) and set(ok) <= {"body", "headers"} and "body" in ok:
            return ok["body"]
        return ok
    if isinstance(document, list) and len(document) == 1 and isinstance(document[0], dict):
        page = document[0]
        if isinstance(page.get("data"), list) and ("links" in page or "meta" in page):
            return page
    return document


def recognise(document: Any) -> DefinitionKind | None:
    """Return the kind of definition a document is, or ``None`` when it is not one."""
    document = unwrap(document)
    if isinstance(document, list):
        kinds = {recognise(item) for item in document[:5]} if document else {None}
        return kinds.pop() if len(kinds) == 1 and DefinitionKind.N8N_WORKFLOW in kinds else None
    if not isinstance(document, dict):
        return None
    for kind, test in _TESTS:
        if test(document):
            return kind
    return None


def _is_zapfile(doc: dict[str, Any]) -> bool:
    zaps = doc.get("zaps")
    return isinstance(zaps, list) and any(isinstance(z, dict) and "nodes" in z for z in zaps)


def _is_zaps_list(doc: dict[str, Any]) -> bool:
    data = doc.get("data")
    return isinstance(data, list) and bool(data) and all(
        isinstance(z, dict) and z.get("type") == "zap" and "steps" in z for z in data)


def _is_blueprint(doc: dict[str, Any]) -> bool:
    response = doc.get("response")
    if isinstance(response, dict) and isinstance(response.get("blueprint"), dict):
        return True
    if isinstance(doc.get("blueprint"), dict) and "scenarioLogs" not in doc:
        return _is_blueprint(doc["blueprint"])
    return isinstance(doc.get("flow"), list) and ("metadata" in doc or "name" in doc)


def flow_definition(doc: Any) -> dict[str, Any] | None:
    """Return the WDL ``definition`` (``triggers``/``actions``) inside a flow document, if any."""
    if not isinstance(doc, dict):
        return None
    for candidate in ((doc.get("properties") or {}).get("definition") if isinstance(doc.get("properties"), dict) else None,
                      doc.get("definition"), doc):
        if isinstance(candidate, dict) and isinstance(candidate.get("actions"), dict) and isinstance(candidate.get("triggers"), dict):
            return candidate
    return None


def _is_flow(doc: dict[str, Any]) -> bool:
    return flow_definition(doc) is not None


def _is_n8n_workflow(doc: dict[str, Any]) -> bool:
    return isinstance(doc.get("nodes"), list) and isinstance(doc.get("connections"), dict) and "resultData" not in doc


_TESTS = (
    (DefinitionKind.ZAPFILE, _is_zapfile),
    (DefinitionKind.ZAPIER_ZAPS, _is_zaps_list),
    (DefinitionKind.POWER_AUTOMATE_FLOW, _is_flow),
    (DefinitionKind.MAKE_BLUEPRINT, _is_blueprint),
    (DefinitionKind.N8N_WORKFLOW, _is_n8n_workflow),
)


def looks_like_json(path: Path) -> bool:
    """Return whether a file's first non-blank character opens a JSON document."""
    try:
        with path.open("rb") as handle:
            head = handle.read(512).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    return head[:1] in (b"{", b"[")


def refuse_definition(path: Path, platform: Platform) -> None:
    """Raise DefinitionGivenError when the export given to ``import`` is a definition, not runs."""
    if path.suffix.lower() == ".jsonl" or not looks_like_json(path):
        return
    kind = recognise(load_json_document(path))
    if kind is None:
        return
    owner = PLATFORM_OF[kind]
    runs = RUNS_ARE_IN[owner if owner is platform or platform not in RUNS_ARE_IN else platform]
    raise DefinitionGivenError(
        str(path), kind.name.lower(),
        f"this is {_article(kind)} {kind.value}, which defines the automation but holds no run; {runs}. "
        f"Import the runs and pass this file beside them: cutover import {owner} RUNS --definition {path.name}",
    )


def _article(kind: DefinitionKind) -> str:
    return "an" if kind.value[0].lower() in "aeiou" or kind.value.startswith("n8n") else "a"


def load_definition(path: Path, platform: Platform) -> Any:
    """Load a ``--definition`` file; raise ExportFormatError unless it is a definition for ``platform``."""
    document = unwrap(load_json_document(path))
    kind = recognise(document)
    if kind is None or PLATFORM_OF[kind] is not platform:
        seen = f"a {kind.value}" if kind else "not a definition this tool recognises"
        raise ExportFormatError(str(path), None, None, f"--definition: expected a {platform} definition, got {seen}")
    return document
