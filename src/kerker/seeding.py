"""One seed convention for every generator (zones, heists; dungeons adopt it too).

The rule: **the seed written into a document is the seed that reproduces it.** A generator
that is given a seed in its parameters draws everything from :func:`seed_rng` of that seed
(the ``rng`` argument is then not used); only without a seed does it draw from the ``rng``
it is given, and then it writes no seed. Stages that must not shift when another stage
changes draw from sub-seeds: :func:`sub_seed` (blake2b of the base number and the stage
name; never ``hash()``, which changes between processes).
"""

from __future__ import annotations

import hashlib
import random


def sub_seed(base: int, *parts: object) -> int:
    """A 64-bit seed from ``base`` and ``parts``: blake2b of ``"base:part:part..."``.

    Stable across processes, platforms and Python versions (unlike ``hash()``).
    """
    text = ":".join(str(p) for p in (base, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def sub_rng(base: int, *parts: object) -> random.Random:
    """A ``random.Random`` of its own for one stage: seeded with :func:`sub_seed`."""
    return random.Random(sub_seed(base, *parts))


def seed_rng(seed: int | None, rng: random.Random) -> random.Random:
    """The generator a document with ``seed`` is rolled from: ``Random(seed)`` when a seed
    is written into the document (so that seed reproduces it), else the ``rng`` given."""
    return rng if seed is None else random.Random(seed)
