"""Retry maths: pure functions of the attempt number and an injected random source.

Written here rather than taken from tenacity: tenacity's wait strategies draw jitter from the
global ``random`` module and need a RetryCallState; the queue needs a delay it can compute for
any attempt number from a seeded ``random.Random``, so replays are deterministic.
"""

from __future__ import annotations

import random as _random

BASE_S = 1.0
CAP_S = 3600.0


def backoff_delay(attempt: int, rng: _random.Random, *, base_s: float = BASE_S, cap_s: float = CAP_S) -> float:
    """Return the delay before retry number ``attempt`` (1-based): exponential with full jitter.

    The delay is drawn uniformly from [ceiling/2, ceiling] where ceiling = min(cap, base * 2**(attempt-1)):
    half of it grows predictably, half spreads retries of jobs that failed together.
    """
    if attempt < 1:
        raise ValueError(f"attempt must be >= 1, got {attempt}")
    ceiling = min(cap_s, base_s * 2.0 ** min(attempt - 1, 62))
    return ceiling / 2 + rng.random() * ceiling / 2

