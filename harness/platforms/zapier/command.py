"""``cutover scaffold zapier``'s row: its help, hints and the module of its translator.

Kept apart from ``translate`` so that the registry, ``cutover scaffold --help`` and the
importers can name the command without importing the translator (esprima, tomlkit).
"""

from __future__ import annotations

from harness.platforms.adapter import Translator

HELP = """Translate the Zaps of a ZAPFILE (or a directory of them) into automations.

    ZAPFILE is the Zapfile.json of Zapier's account data export (metadata.version gdpr_v1)
    or an older Zap export (version 2). Each Zap becomes one automation: its trigger (Webhooks
    catch hook, Schedule, an app's new items), then every step in order with Zapier's
    semantics (Filter, Paths, Code by Zapier, Delay, Looping, Storage, Formatter, Webhooks
    requests, app steps through the app catalogue); what cannot be translated is a marked TODO
    that fails the run naming the step. The printed maps line the generated step and decision
    names up with `cutover import zapier --definition ZAPFILE` of the same Zap.

    \b
    Example:
      cutover scaffold zapier Zapfile.json --set recordings/2024-06
      cutover import zapier zap-runs.json --definition Zapfile.json --automation lead-intake --into recordings/2024-06
      pytest --shadow recordings/2024-06 -k lead-intake
    """
IMPORT_HINT = ("curl -H 'Authorization: Bearer …' 'https://api.zapier.com/v2/zap-runs?zap_id={id}' > {name}.json"
               " && cutover import zapier {name}.json --definition {definition} --automation {name} --into recordings/<set>")

TRANSLATOR = Translator.of_tool("zapier", argument="zapfile", named="Zap", maps="steps/decisions/providers",
                                help=HELP, import_hint=IMPORT_HINT)
