"""Make's polling Watch triggers: a live schedule tick runs them as pollers (``queue_core/compat/_make_poll.py``).

The first module of a scheduled scenario is translated by ``_start`` (``translate/__init__.py``):
a replay starts from its recorded bundle; a live tick runs the module's translation, which is
one of these. Each reads the poller's cursor, fetches what is new since, and starts one job of
the scenario per new item (``ctx.start_new``: Make's dedupe, exactly once per item id), so the
tick itself has no bundle; each job's trigger is one item's bundle, as ``cutover import make``
splits a recorded poll. Registered through ``apps/google.py``'s TRANSLATORS.

Make's instant app webhooks (a module whose parameters hold ``__IMTHOOK__``: Tally's Watch new
responses, Google Sheets' Watch changes) are not polled: their scenario is a webhook, which
``_start`` decides (``INSTANT``: the runtime function that turns the delivery into Make's bundle).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps.google_common import app_provider
from harness.platforms.make.translate.base import Gen, ModuleCode, todo, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, name, stmts

__all__ = ["INSTANT", "TRIGGER_TRANSLATORS"]

# instant app webhook module -> the runtime function of its bundle from the delivery (``trigger``)
INSTANT: dict[str, str] = {"tally:watchNewResponse": "make.poll.tally_bundle",
                           "google-sheets:watchUpdatedCells": "make.webhook_bundle",
                           "telegram:WatchUpdates": "make.webhook_bundle"}  # the bundle: the Update Telegram posts
_POLL_NOTE = "a poller: new items since the cursor, one job each (ctx.start_new); OAuth token configured on the provider"


def _param(module: Module, field: str) -> object:
    value = module.parameters.get(field, module.mapper.get(field))
    if value in (None, ""):
        raise Untranslatable(f"the trigger's {field} is not set")
    return value


def _poll(module: Module, gen: Gen, function: str, base: str, **fields: object) -> ModuleCode:
    provider = app_provider(module, gen, base)
    kwargs = {k: template(v) for k, v in fields.items()}
    lines = stmts("$var = await $call", var=var(module),
                  call=call(function, name("ctx"), provider, step=gen.steps[module.id], **kwargs))
    return ModuleCode(lines, bundles=var(module), note=_POLL_NOTE)


def watch_rows(module: Module, gen: Gen) -> ModuleCode:
    """Watch rows: the rows added below the last row seen, at most ``limit`` per poll."""
    p = module.parameters
    return _poll(module, gen, "make.poll.watch_rows", "https://sheets.googleapis.com",
                 spreadsheet=_param(module, "spreadsheetId"), sheet=_param(module, "sheetId"),
                 first_row=p.get("tableFirstRow") or "A1:Z1", headers=p.get("includesHeaders") not in (False, "false"),
                 limit=p.get("limit"), render=p.get("valueRenderOption"), dates=p.get("dateTimeRenderOption"))


def watch_emails(module: Module, gen: Gen) -> ModuleCode:
    """Gmail Watch emails: the messages the search finds that are newer than the last poll."""
    p = module.parameters
    if p.get("filterType") not in ("simpleSearch", "gmailSearch"):
        raise Untranslatable(f"the filter type {p.get('filterType')!r} is not translated")
    criteria = str(p.get("criteria") or "")
    if p.get("filterType") == "simpleSearch" and criteria not in ("", "all") and not criteria.startswith("is:"):
        raise Untranslatable(f"the criteria {criteria!r} is not translated (a Gmail is: term is)")
    found_size = p.get("size")
    size: dict[str, object] = found_size if isinstance(found_size, dict) else {}
    if size.get("amount") not in (None, "") and size.get("criteria") not in ("larger", "smaller"):
        raise Untranslatable(f"the size criteria {size.get('criteria')!r} is not translated")
    search = {k: p.get(k) for k in ("q", "folder", "criteria", "from", "subject", "includeWords", "excludeWords",
                                    "hasAttachment", "labelIds")}
    search["size"] = size
    return _poll(module, gen, "make.googlemail.watch_emails", "https://gmail.googleapis.com",
                 filter_type=p["filterType"], search=search, limit=p.get("limit"), mark_seen=bool(p.get("markSeen")))


def watch_files(module: Module, gen: Gen) -> ModuleCode:
    """Drive Watch files in a folder: files created (or modified) in the folder since the last poll."""
    p = module.parameters
    if p.get("select") not in ("create", "modify"):
        raise Untranslatable(f"watching {p.get('select')!r} is not translated (created or modified files are)")
    return _poll(module, gen, "make.googledrive.watch_files", "https://www.googleapis.com",
                 folder=_param(module, "folderId"), watch=p["select"], mime=p.get("mimeType"), limit=p.get("limit"))


def instant(module: Module, gen: Gen) -> ModuleCode:
    """An instant app webhook: ``_start`` makes it the scenario's trigger (``INSTANT``) when it is the first
    module; until ``_start`` does (make-core) and anywhere else, it is a TODO naming that."""
    return todo(module, f"{module.app} is an instant app webhook (__IMTHOOK__): the scenario starts on its "
                        f"delivery, {INSTANT[module.app]}(trigger), when translate._start reads triggers.INSTANT")


TRIGGER_TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "google-sheets:watchRows": watch_rows, "google-email:triggerWatchNewEmails": watch_emails,
    "google-drive:watchFilesInAFolder": watch_files, **{app: instant for app in INSTANT},
}
