"""The N-version library's figures: size, structural similarity, common-mode reach.

    python tests/perf/nversion_library_stats.py

Prints the tasks, versions and tasks with five versions per family; the mean and maximum
pairwise structural similarity (normalised-AST difflib ratio, ``nversion.normalised_ast_similarity``);
and, per common-mode failure kind, the (task, version) pairs it applies to and the tasks. Offline,
no sandbox: behaviour changes are proven by ``tests/nversion/test_common_mode.py``.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from statistics import fmean

from pytest_req2rank.nversion import load_common_modes, load_library, normalised_ast_similarity


def main() -> None:
    library = load_library()
    versions = sum(len(t.implementations) for t in library)
    print(f"tasks {len(library)}, versions {versions}, "
          f"tasks with 5+ versions {sum(len(t.implementations) >= 5 for t in library)}")
    for family, count in sorted(Counter(t.family for t in library).items()):
        print(f"  {family:18} {count}")
    scores = [normalised_ast_similarity(a.code, b.code) for t in library
              for a, b in combinations(t.implementations, 2)]
    print(f"pairwise structural similarity: mean {fmean(scores):.3f}, max {max(scores):.3f}, "
          f"{len(scores)} pairs")
    print(f"{'kind':24}{'versions':>9}{'tasks':>7}")
    for failure in load_common_modes():
        hits = [(t.task_id, i.name) for t in library for i in t.implementations
                if failure.applies(i.code)]
        print(f"{failure.kind:24}{len(hits):>9}{len({task for task, _ in hits}):>7}")


if __name__ == "__main__":
    main()
