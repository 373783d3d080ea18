"""Shared test set-up: fixed seeds for hypothesis, the project root on sys.path."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "companion",
    derandomize=True,  # fixed seeds: a failure reproduces on every run
    deadline=None,  # never assert wall-clock time
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "100")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("companion")
