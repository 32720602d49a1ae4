"""``cutover scaffold power-automate``'s row: its help, hints and the module of its translator.

Kept apart from ``translate`` so that the registry, ``cutover scaffold --help`` and the
importers can name the command without importing the translator (tomlkit).
"""

from __future__ import annotations

from harness.platforms.adapter import Translator

HELP = """Translate a Power Automate flow DEFINITION (or a directory of them) into automations.

    DEFINITION is the definition.json of a flow's export package (Microsoft.Flow/flows/<id>/),
    the package .zip itself, or a Logic Apps workflow (properties.definition). A directory is
    scaffolded as an estate; JSON files in it that are not flow definitions are skipped and named.
    Each action becomes a small function run in runAfter order with Power Automate's semantics
    (conditions, switches, loops, scopes as try/catch, variables, HTTP and the connector calls
    the catalogue has); what cannot be translated is a marked TODO that fails the run naming the
    action. The printed maps line the generated step and decision names up with
    `cutover import power-automate --definition DEFINITION` of the same flow.

    \b
    Example:
      cutover scaffold power-automate flows/definition.json --automation expense-approval --set recordings/2024-06
      cutover import power-automate runs.json --definition flows/definition.json --automation expense-approval --into recordings/2024-06
      pytest --shadow recordings/2024-06 -k expense-approval
    """
IMPORT_HINT = ("m365 flow run list --environmentName <env> --flowName <flow id> --withTrigger --output json > {name}.json"
               " && cutover import power-automate {name}.json --definition {definition} --automation {name}"
               " --into recordings/<set>")

TRANSLATOR = Translator.of_tool("power_automate", argument="definition", named="flow", maps="steps/decisions/providers",
                                help=HELP, import_hint=IMPORT_HINT)
