"""``cutover scaffold n8n``'s row: its help, hints and the module of its translator.

Kept apart from ``translate`` so that the registry, ``cutover scaffold --help`` and the
importers can name the command without importing the translator (esprima, tomlkit).
"""

from __future__ import annotations

from harness.platforms.adapter import Translator

HELP = """Translate an n8n WORKFLOW file (or a directory of them) into automations.

    WORKFLOW is what the editor's Download or `n8n export:workflow --id ID` writes; a directory is
    what `n8n export:workflow --all --separate --output DIR` writes, scaffolded as an estate.
    Each node becomes a few lines of Python with n8n's semantics; what cannot be translated is a
    marked TODO that fails the run naming the node, never a silent pass. The printed maps line
    the generated step and decision names up with `cutover import n8n` of the same workflow.

    \b
    Example:
      cutover scaffold n8n workflows/triage.json --automation github-triage --set recordings/2024-06
      pytest --shadow recordings/2024-06 -k github-triage
    """
IMPORT_HINT = ("curl -H 'X-N8N-API-KEY: …' '<n8n>/api/v1/executions?workflowId={id}&includeData=true' > {name}.json"
               " && cutover import n8n {name}.json --automation {name} --into recordings/<set>")

TRANSLATOR = Translator.of_tool("n8n", argument="workflow", named="workflow", maps="steps/decisions", help=HELP,
                                import_hint=IMPORT_HINT)
