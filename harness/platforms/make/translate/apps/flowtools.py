"""Make's flow tools whose behaviour a scaffolded run cannot yet match: each is a TODO naming why.

- Tools > Increment function (``util:FunctionIncrement``, output ``i``; parameter ``reset``:
  ``run`` = after one cycle, ``execution`` = after one scenario run, ``scenario`` = never;
  https://help.make.com/incremental-variables). "Never" keeps counting across runs: that needs a
  durable counter of the automation the runtime does not offer (``ctx`` has poll cursors only). "After
  one cycle / one run" counts every bundle the cycle carries: a polling trigger's bundles are one
  cycle in Make but separate jobs here, so the count would restart at 1 for each.
- JSON > Aggregate to JSON (``json:AggregateToJSON``, an aggregator over its source module):
  https://apps.make.com/json says it "converts the multiple output bundles to a single bundle" but
  documents neither the output field's name nor how the bundles' JSON is joined (an array or
  comma-separated objects): not guessed.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen, ModuleCode

__all__ = ["TRANSLATORS"]

_RESETS = {"run": "after one cycle", "execution": "after one scenario run", "scenario": "never"}


def increment(module: Module, gen: Gen) -> ModuleCode:
    """Increment function: a TODO naming what the reset needs."""
    reset = str(module.parameters.get("reset") or "scenario")
    if reset == "scenario":
        why = ("reset 'never': the value keeps counting across runs, which needs a durable counter of the "
               "automation (not in the runtime: keep one in a table and map its value as {{%s.i}})" % module.id)
    elif reset in _RESETS:
        why = (f"reset '{_RESETS[reset]}': Make counts every bundle of the cycle, and a polling trigger's bundles "
               f"are one cycle in Make but one job each here (the count would restart at 1): write {{{{{module.id}.i}}}} "
               "as a counter over this run's bundles if the trigger is a webhook")
    else:
        why = f"reset {reset!r} is not one of Make's (run, execution, scenario)"
    raise Untranslatable(f"Increment function: {why}")


def aggregate_to_json(module: Module, gen: Gen) -> ModuleCode:
    """Aggregate to JSON: a TODO (its output is not documented)."""
    raise Untranslatable(f"Aggregate to JSON (source module {module.parameters.get('feeder')}): Make documents neither "
                         "its output field nor how the bundles' JSON is joined (an array or comma-separated objects)")


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "util:FunctionIncrement": increment, "json:AggregateToJSON": aggregate_to_json,
}
