"""Shared test configuration.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

- ``default``: no per-example deadline (the first call of an expression compiles and caches
  it, which would make timing-based deadlines flaky); example counts are set per test.
- ``ci``: the same, derandomized, so a CI run is reproducible from the commit alone.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
