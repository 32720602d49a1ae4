"""Make's pinned conformance cases: each module type the translator claims, against Make's documented behaviour."""
