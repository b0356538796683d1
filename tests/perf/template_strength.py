"""How strong each template's hidden probes are: first-order mutants killed, weakest first.

Not collected by pytest. Run:
``python tests/perf/template_strength.py [--templates DIR] [-k TEXT]``.
Prints one line per template (killed/total, score, wall time) and the library's counts per
complexity and skill; the template gate in ``tests/generation`` requires a score of at least
``MIN_MUTATION_SCORE``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from pytest_req2rank.generation import (
    MIN_MUTATION_SCORE,
    instantiate,
    load_templates,
    mutation_score,
    sandbox_grader,
)
from pytest_req2rank.sandbox import create_sandbox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--templates", type=Path, default=None,
                        help="Template directory (default: the library shipped in the package)")
    parser.add_argument("-k", default="", help="Only templates whose id contains this text")
    args = parser.parse_args()
    templates = [t for t in load_templates(args.templates) if args.k in t.id]
    grader = sandbox_grader(create_sandbox("process"))
    rows = []
    for template in templates:
        start = time.perf_counter()
        result = mutation_score(instantiate(template), grader)
        rows.append((result.score, template.id, result.killed, result.total,
                     time.perf_counter() - start))
    for score, template_id, killed, total, wall in sorted(rows):
        flag = "" if score >= MIN_MUTATION_SCORE else "  BELOW THE GATE"
        print(f"{template_id:32} {killed:>4}/{total:<4} {score:6.1%}  {wall:5.1f} s{flag}")
    print(f"{len(templates)} templates; complexity "
          f"{dict(sorted(Counter(s.complexity for s in templates).items()))}; skills "
          f"{dict(sorted(Counter(k for s in templates for k in s.skills).items()))}")


if __name__ == "__main__":
    main()
