"""Mutation analysis of a migrated automation: how much of its code the recordings pin down.

:mod:`~harness.mutate.mutator` makes the mutants (small single changes, in a fixed order),
:mod:`~harness.mutate.load` loads one as a module object under a registry of its own,
:mod:`~harness.mutate.lines` records which lines each trigger's baseline run executed,
:mod:`~harness.mutate.measure` replays the triggers reaching each mutant's line and judges it,
and :mod:`~harness.mutate.store` writes ``mutation.json``, finds the measurement the gate's
``min_mutation_score`` reads, and renders the report's section. ``cutover shadow mutate`` is
the command (:mod:`harness._cli_shadow`).
"""
