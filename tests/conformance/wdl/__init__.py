"""Workflow Definition Language conformance: the reference's own examples, pinned.

Each ``cases_*.py`` lists ``Case``s: an action input as a flow definition holds it (``@…`` or
text with ``@{…}``), the run state it reads, and the result the reference gives for that
example ("Reference guide to workflow expression functions", learn.microsoft.com, cited by
anchor in ``source``); ``cases_observed`` adds what the reference leaves unsaid (short-circuiting,
binary content, number parsing, interpolation of constants) as a public Logic Apps test suite
records it. ``test_wdl_conformance`` translates each input with
``harness.platforms.power_automate.translate.expr.template``, runs the generated Python, and
compares; it also asserts every function the library implements has at least one case.
"""
