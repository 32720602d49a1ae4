"""The example migrated automations that the demo recording set ``recordings/2024-06`` exercises.

Importing this package registers every automation with queue_core's default registry.
"""

from __future__ import annotations

from automations import bug_digest, github_triage, lead_router, payment_dunning

__all__ = ["bug_digest", "github_triage", "lead_router", "payment_dunning"]
