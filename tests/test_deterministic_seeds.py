"""Tests draw from seeds that are the same in every process: a seed made with ``hash()``
of a string (or a tuple holding one) changes per process under Python's hash
randomization, so such a test's samples cannot be reproduced. Two tests did that; this
source check keeps the pattern out."""

import pathlib
import re

# an RNG constructor or seeding call whose argument starts with hash(...)
_HASH_SEED = re.compile(r"(default_rng|RandomState|\.seed|PRNGKey|random\.key)\(\s*hash\(")


def test_no_test_seeds_from_hash():
    root = pathlib.Path(__file__).parent
    found = [f"{path.relative_to(root)}:{n}"
             for path in sorted(root.rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if _HASH_SEED.search(line)]
    assert not found, ("seeded from hash(), which differs per process (use zlib.crc32 of "
                       f"the case's text): {found}")
