"""How strong each seed's hidden probes are: first-order mutants killed, weakest first.

Not collected by pytest. Run: ``python tests/perf/seed_strength.py [--seeds DIR] [-k TEXT]``.
Prints one line per seed (killed/total, score, wall time) and the library's counts per
complexity and skill; the seed gate in ``tests/generation`` requires a score of at least
``MIN_MUTATION_SCORE``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from pytest_req2rank.generation import (
    MIN_MUTATION_SCORE,
    default_seed_dir,
    instantiate,
    load_seeds,
    mutation_score,
    sandbox_grader,
)
from pytest_req2rank.sandbox import create_sandbox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=None, help="Seed directory (default: seeds/)")
    parser.add_argument("-k", default="", help="Only seeds whose id contains this text")
    args = parser.parse_args()
    seeds = [s for s in load_seeds(args.seeds or default_seed_dir()) if args.k in s.id]
    grader = sandbox_grader(create_sandbox("process"))
    rows = []
    for seed in seeds:
        start = time.perf_counter()
        result = mutation_score(instantiate(seed), grader)
        rows.append((result.score, seed.id, result.killed, result.total,
                     time.perf_counter() - start))
    for score, seed_id, killed, total, wall in sorted(rows):
        flag = "" if score >= MIN_MUTATION_SCORE else "  BELOW THE GATE"
        print(f"{seed_id:32} {killed:>4}/{total:<4} {score:6.1%}  {wall:5.1f} s{flag}")
    print(f"{len(seeds)} seeds; complexity "
          f"{dict(sorted(Counter(s.complexity for s in seeds).items()))}; skills "
          f"{dict(sorted(Counter(k for s in seeds for k in s.skills).items()))}")


if __name__ == "__main__":
    main()
