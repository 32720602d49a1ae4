"""``cutover scaffold make``'s row: its help, hints and the module of its translator.

Kept apart from ``translate`` so that the registry, ``cutover scaffold --help`` and the
importers can name the command without importing the translator (esprima, tomlkit).
"""

from __future__ import annotations

from harness.platforms.adapter import Translator

HELP = """Translate a Make scenario BLUEPRINT (or a directory of them) into automations.

    BLUEPRINT is what the scenario editor's "Export blueprint" writes, or the body of
    GET /scenarios/{id}/blueprint (which carries the schedule beside it). A directory is
    scaffolded as an estate; JSON files in it that are not blueprints are skipped and named.
    Each module becomes a few lines of Python with Make's semantics (routers, filters,
    iterators, aggregators, HTTP modules); what cannot be translated is a marked TODO that fails
    the run naming the module. The printed maps line the generated step and decision names up
    with `cutover import make --definition BLUEPRINT` of the same scenario.

    \b
    Example:
      cutover scaffold make scenarios/lead-router.json --automation lead-router --set recordings/2024-06
      cutover import make logs.json --definition scenarios/lead-router.json --automation lead-router --into recordings/2024-06
      pytest --shadow recordings/2024-06 -k lead-router
    """
IMPORT_HINT = ("curl -H 'Authorization: Token …' 'https://<zone>.make.com/api/v2/scenarios/{id}/logs' > {name}.json"
               " && cutover import make {name}.json --definition {definition} --automation {name} --into recordings/<set>")

TRANSLATOR = Translator.of_tool("make", argument="blueprint", named="scenario", maps="steps/decisions/providers",
                                help=HELP, import_hint=IMPORT_HINT)
