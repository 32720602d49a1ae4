"""The example migrated automations that the demo recording set ``recordings/2024-06`` exercises.

Importing this package registers every automation with queue_core's default registry.
"""

from __future__ import annotations

from automations import github_triage, lead_router, payment_dunning

__all__ = ["github_triage", "lead_router", "payment_dunning"]
