"""Pinned conformance cases of the hosted tools (Make, Zapier, Power Automate): no oracle can run them here.

Each tool's folder holds cases of its documented behaviour — a module (step, action) in the tool's
own export format, its input, the requests it makes with their canned replies, and the output the
tool documents or records for it, each with its public source — and a runner that scaffolds the
case with the tool's translator and runs the generated code offline. ``proved.py`` of a folder
writes the module types whose cases pass into ``harness/platforms/<tool>/proved.json``, which the
estate table reads (column ``proved``).
"""
