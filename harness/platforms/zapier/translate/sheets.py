"""Google Sheets steps of a Zap (``GoogleSheetsV2API`` / ``GoogleSheetsV2CLIAPI``) onto the catalogue's Sheets calls.

Lookup Spreadsheet Row (``lookup_row``), Update Spreadsheet Row (``update_row``) and Create
Spreadsheet Row (``add_row``): the runtime is ``queue_core.compat._zapier_sheets`` (through
``zapier.sheets_*``). A step names the worksheet by id (``worksheet: 0``); the Sheets API reads and
writes by title, which the node's ``meta.parammap`` holds (``ZapStep.shown``): a step without it,
a Drive other than "My Google Drive", a lookup whose miss does not stop the run (its output then
is not documented), a "find many rows" search or a step creating a row when none is found is a
TODO naming it.
"""

from __future__ import annotations

import ast
import re

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.zapier.definition import ZapStep
from harness.platforms.zapier.translate.fields import template, text_of
from harness.platforms.zapier.translate.steps import StepCode, ZapGen, unknown_params, var
from harness.scaffold._code import dict_of, lit, stmts

_COLUMN = re.compile(r"^COL\$[A-Z]{1,3}$")
_COMMON = {"spreadsheet", "worksheet", "drive", "timezone"}
_OPERATIONS = {"lookup_row": "sheet.read", "update_row": "sheet.update", "add_row": "sheet.append"}
_YES = ("yes", "true", "1")


def _sheet(step: ZapStep, known: set[str]) -> tuple[ast.expr, str]:
    spreadsheet = step.params.get("spreadsheet")
    if not spreadsheet:
        raise Untranslatable("the step names no spreadsheet")
    drive = str(step.shown.get("drive") or "")
    if step.params.get("drive") and drive not in ("", "My Google Drive"):
        raise Untranslatable(f"a spreadsheet on the shared drive {drive or step.params['drive']!r} is not translated")
    title = step.shown.get("worksheet")
    if not isinstance(title, str) or not title or "{{" in str(step.params.get("worksheet", "")):
        raise Untranslatable(f"the worksheet's title (the Sheets API's name for worksheet {step.params.get('worksheet')!r})"
                             " is not in the export's meta.parammap: name it in the call")
    return text_of(spreadsheet, known), title


def _columns(step: ZapStep, known: set[str]) -> ast.expr:
    return dict_of((k, template(v, known)) for k, v in step.params.items() if _COLUMN.match(k) and v not in (None, ""))


def sheets_step(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """A Google Sheets row step: one Sheets API call (the catalogue's), Zapier's row output for a lookup."""
    operation = _OPERATIONS.get(step.action)
    if operation is None:
        raise Untranslatable(f"Google Sheets {step.action!r} is not translated (lookup_row, update_row and add_row are); "
                             f"the call: {catalogue.skeleton('google-sheets', 'sheet.read')}")
    skeleton = catalogue.skeleton("google-sheets", operation)
    spreadsheet, title = _sheet(step, known)
    app = catalogue.app("google-sheets")
    provider = gen.providers.get(app.host, app.provider)
    if app.host not in gen.providers:
        gen.proposals[provider] = app.base_url
    gen.hosts[app.host] = provider
    gen.hosts[step.app] = provider
    common = {"var": var(step), "provider": provider, "step": gen.steps[step.id], "spreadsheet": spreadsheet,
              "worksheet": title}
    columns = {k for k in step.params if _COLUMN.match(k)}
    if step.action == "lookup_row":
        extra = unknown_params(step, _COMMON | {"lookup_key", "lookup_value", "bottom_up", "_zap_search_success_on_miss"})
        if extra:
            raise Untranslatable(f"params {', '.join(extra)} are not translated; the call: {skeleton}")
        if str(step.params.get("_zap_search_success_on_miss", "")).lower() in _YES:
            raise Untranslatable("the search goes on when it finds nothing, and what it outputs then is not "
                                 f"documented; the call: {skeleton}")
        key = str(step.params.get("lookup_key") or "")
        if not _COLUMN.match(key):
            raise Untranslatable(f"the lookup column {key!r} is not a column letter (COL$A…)")
        lines = stmts("$var = await zapier.sheets_lookup(ctx, $provider, step=$step, spreadsheet=$spreadsheet, "
                      "worksheet=$worksheet, column=$column, value=$value, bottom_up=$bottom_up)", **common,
                      column=key, value=template(step.params.get("lookup_value", ""), known),
                      bottom_up=lit(str(step.params.get("bottom_up", "")).lower() in _YES))
        return StepCode(lines, output=var(step), note=f"GET the worksheet {title!r}; the row as COL$A…, id and row")
    if step.id in gen.referenced:
        raise Untranslatable(f"a later step reads its output, whose fields in Zapier are not documented; the call: {skeleton}")
    if step.action == "update_row":
        extra = unknown_params(step, _COMMON | {"row"} | columns)
        if extra or not step.params.get("row"):
            raise Untranslatable(f"params {', '.join(extra) or 'row (none)'} are not translated; the call: {skeleton}")
        lines = stmts("$var = await zapier.sheets_update(ctx, $provider, step=$step, spreadsheet=$spreadsheet, "
                      "worksheet=$worksheet, row=$row, columns=$columns)", **common,
                      row=template(step.params["row"], known), columns=_columns(step, known))
        return StepCode(lines, output=var(step), note=f"values:batchUpdate of the mapped cells on {title!r}")
    extra = unknown_params(step, _COMMON | columns)
    if extra:
        raise Untranslatable(f"params {', '.join(extra)} are not translated; the call: {skeleton}")
    if not columns:
        raise Untranslatable(f"no column of the row is mapped (its params: {', '.join(step.params)}); the call: {skeleton}")
    lines = stmts("$var = await zapier.sheets_add(ctx, $provider, step=$step, spreadsheet=$spreadsheet, "
                  "worksheet=$worksheet, columns=$columns)", **common, columns=_columns(step, known))
    return StepCode(lines, output=var(step), note=f"values:append of one row to {title!r}")


NEW_ROW_TRIGGERS = ("new_row", "new_spreadsheet_row")
POLL_CRON = "*/15 * * * *"  # Zapier's polling interval on its Free plan ("checks for new data every 15 min")


def poll_automation(root: ZapStep, gen: ZapGen, automation: str) -> tuple[list[ast.stmt], str]:
    """Return the module-level poll automation of a New Spreadsheet Row trigger (``<automation>-poll``,
    every 15 minutes: one ``automation`` run per new row, deduped on its ``id``) and the trigger row's note.
    Raises Untranslatable when the worksheet cannot be named."""
    from harness.scaffold._code import call
    from harness.scaffold._module import registry_takes

    spreadsheet, title = _sheet(root, set())
    app = catalogue.app("google-sheets")
    provider = gen.providers.get(app.host, app.provider)
    if app.host not in gen.providers:
        gen.proposals[provider] = app.base_url
    gen.hosts[app.host] = provider
    name = f"{automation}-poll"
    decorator = call("automation", name, version=1)
    if registry_takes("schedule"):
        decorator.keywords.append(ast.keyword("schedule", lit(POLL_CRON)))
    function = re.sub(r"\W+", "_", name).strip("_")
    doc = (f"Poll the worksheet {title!r} as Zapier's New Spreadsheet Row trigger does: one {automation!r} run "
           "per new row, deduped on its id (the row number); the rows there at the first poll are seen, not started.")
    lines = stmts("@$decorator\nasync def $function(ctx: Context, trigger: Trigger) -> None:\n    $doc\n"
                  "    await zapier.sheets_poll(ctx, $provider, $target, step='poll-rows', spreadsheet=$spreadsheet, "
                  "worksheet=$worksheet)", decorator=decorator, function=ast.Name(function, ast.Load()),
                  doc=ast.Expr(ast.Constant(doc)), provider=provider, target=automation, spreadsheet=spreadsheet,
                  worksheet=title)
    note = (f"New Spreadsheet Row: the run's trigger is one row (COL$A…, id, row); {name} polls {title!r} every "
            "15 minutes (Zapier's Free-plan interval: set schedule= to your plan's) and starts one run per new row, "
            "deduped on its id")
    return lines, note
