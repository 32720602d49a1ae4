"""Conformance suites that pin translated semantics to a platform's own documented examples."""
