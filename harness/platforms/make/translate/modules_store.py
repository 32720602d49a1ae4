"""Make's data store modules (``datastore:*``): calls to the ``make-datastore`` provider, Make's own
API for data stores (``queue_core/compat/_make_store.py``), so a shadow replay answers them from
the legacy run and a live run reaches the same store. "Get a record", "Update a record", "Delete
a record", "Add/replace a record" and the others stay TODOs: their output bundles are not confirmed here.
"""

from __future__ import annotations

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import conditions, template
from harness.scaffold._code import lit, stmts

__all__ = ["PROVIDER", "TRANSLATORS"]

PROVIDER = "make-datastore"
BASE = "https://eu1.make.com/api/v2"  # the zone the scenario's organisation is in: set it on the provider


def _store(module: Module, gen: Gen) -> int | str:
    store = module.parameters.get("datastore")
    if store in (None, ""):
        raise Untranslatable("the module names no data store")
    gen.hosts["datastore"] = PROVIDER  # the importer names the call's provider after its app
    gen.proposals.setdefault(PROVIDER, BASE)
    return store  # type: ignore[no-any-return]


def search(module: Module, gen: Gen) -> ModuleCode:
    """Search records: the records whose fields pass the filter, sorted, ``limit`` of them; one bundle each."""
    store = _store(module, gen)
    sort = [lit((template(s.get("key")), template(s.get("order", 1))))
            for s in module.mapper.get("sort") or [] if isinstance(s, dict)]
    filters = module.mapper.get("filter") or []
    call = stmts("$var = await make.store.search_records(ctx, $provider, $store, step=$step, conditions=$conditions, "
                 "sort=$sort, limit=$limit, continue_when_none=$cont)", var=var(module), provider=PROVIDER,
                 store=store, step=gen.steps[module.id], conditions=conditions(filters), sort=sort,
                 limit=template(module.parameters.get("limit")),
                 cont=bool(module.parameters.get("continueWhenNoRes", False)))
    return ModuleCode(call, bundles=var(module), note=f"data store {store} on the {PROVIDER} provider (Make's API)")


_UNSURE = {
    "datastore:GetRecord": "Get a record: the API has no read of one key (GET /data-stores/{id}/data lists them) and "
                           "Make's output for a key that is not there (an empty bundle or an error) is not confirmed",
    "datastore:AddRecord": "Add/replace a record: POST /data-stores/{id}/data (PUT …/data/{key} to overwrite); "
                           "Make's output bundle of it is not confirmed",
    "datastore:UpdateRecord": "Update a record: PATCH /data-stores/{id}/data/{key}; Make's output bundle and its "
                              "insert-when-missing option are not confirmed",
    "datastore:DeleteRecord": "Delete a record: DELETE /data-stores/{id}/data {keys: [key]}; Make's output bundle "
                              "is not confirmed",
}


def unsure(module: Module, gen: Gen) -> ModuleCode:
    """A data store module whose call is known but whose output is not: a TODO naming both."""
    raise Untranslatable(f"{_UNSURE[module.app]} (on the {PROVIDER} provider, Make's API)")


TRANSLATORS = {"datastore:SearchRecord": search, **{app: unsure for app in _UNSURE}}
