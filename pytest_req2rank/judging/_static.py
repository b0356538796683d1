"""``r2r/static``: a deterministic judge over analyser findings and the execution evidence.

Each dimension is 0-100. ``ratio`` is the case's priority-weighted pass ratio;
without one (no test applied), the execution-based parts take
``NO_EVIDENCE_SCORE``. ``parsed`` is the share of the Python source lines that
parse; analysis-based dimensions are multiplied by it, so code that does not
parse earns nothing there (and code without any Python file earns 0).

- functionality = 100 · ratio.
- logic = Σ LOGIC_WEIGHTS · part: ``pass_ratio`` (100 · ratio),
  ``edge_cases`` (100 · the weighted pass ratio of the should/nice tests, the
  robustness probes; ratio when there are none), ``no_crash`` (100 · (1 −
  share of tests that crashed or timed out)), ``complexity`` (mean over
  functions of ``CC_RANK_SCORES`` of radon's cyclomatic-complexity rank, 100
  without functions, times parsed).
- quality = parsed · (QUALITY_LINT_SHARE · lint + (1 − QUALITY_LINT_SHARE) · mi),
  lint = 100 / (1 + d / LINT_HALF_DENSITY) with d = ruff quality findings per
  100 source lines (at least LINT_MIN_SLOC lines counted), mi = SLOC-weighted
  mean of min(100, 100 · MI / MI_RANK_A) with radon's maintainability index MI.
- security = parsed · max(0, 100 − Σ SEVERITY_PENALTY[severity] ·
  CONFIDENCE_FACTOR[confidence]) over bandit's findings.
- engineering = Σ ENGINEERING_WEIGHTS · part, each part 100 · parsed · x:
  ``docstrings`` and ``type_hints`` x = max(0, 1 − ruff D10x resp. ANN
  findings / the places that want one), ``error_handling`` x = max(0, 1 −
  ERROR_HANDLING_PENALTY · n) with n the bare/blind excepts, swallowed errors,
  vanilla raises and raises without ``from``, ``structure`` x = max(0, 1 −
  STRUCTURE_PENALTY · n) with n ruff's too-many returns/branches/arguments/
  statements findings.

Scores are rounded to one decimal. An analyser that cannot run drops the verdict.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Mapping

from radon.complexity import cc_rank

from ..models import STATIC_JUDGE, JudgeVerdict
from ..scoring import round_half_up
from ._analysis import (
    DOCSTRING_RULES,
    ERROR_HANDLING_RULES,
    STRUCTURE_RULES,
    TYPE_HINT_RULES,
    Analysis,
    AnalysisError,
    Finding,
    analyse,
)
from ._case import Judge, JudgeCase, weighted_overall
from ._evidence import crash_share, robustness_ratio

NO_EVIDENCE_SCORE = 50.0
"""Execution-based parts when no test applied: neither credit nor blame."""
LOGIC_WEIGHTS: Mapping[str, float] = {
    "pass_ratio": 0.40,
    "edge_cases": 0.30,
    "no_crash": 0.15,
    "complexity": 0.15,
}
CC_RANK_SCORES: Mapping[str, float] = {"A": 100, "B": 90, "C": 70, "D": 45, "E": 20, "F": 0}
"""Per radon rank: A 1-5, B 6-10, C 11-20, D 21-30, E 31-40, F 41+ cyclomatic complexity."""
QUALITY_LINT_SHARE = 0.75
LINT_HALF_DENSITY = 5.0
"""Ruff findings per 100 source lines that halve the lint score."""
LINT_MIN_SLOC = 20
"""A tiny file is not punished as if one finding were a high density."""
MI_RANK_A = 20.0
"""radon's lowest maintainability index of rank A (very maintainable)."""
SEVERITY_PENALTY: Mapping[str, float] = {"HIGH": 50, "MEDIUM": 25, "LOW": 10, "UNDEFINED": 10}
CONFIDENCE_FACTOR: Mapping[str, float] = {"HIGH": 1.0, "MEDIUM": 0.7, "LOW": 0.4, "UNDEFINED": 0.4}
ENGINEERING_WEIGHTS: Mapping[str, float] = {
    "docstrings": 0.25,
    "type_hints": 0.25,
    "error_handling": 0.30,
    "structure": 0.20,
}
ERROR_HANDLING_PENALTY = 0.25
STRUCTURE_PENALTY = 0.20
TOP_MESSAGES = 10
PERCENT = 100.0


class StaticJudge(Judge):
    """The built-in judge ``r2r/static``: ruff, bandit and radon plus the test outcomes."""

    name = STATIC_JUDGE

    def judge(self, case: JudgeCase) -> JudgeVerdict:
        started = time.perf_counter()
        try:
            analysis = analyse(case.files)
        except AnalysisError as exc:
            return JudgeVerdict(
                judge=self.name,
                error=f"analysis_error: {exc}",
                latency_s=time.perf_counter() - started,
            )
        parts = _parts(case, analysis)
        scores = {
            "functionality": parts["pass_ratio"],
            "quality": parts["quality"],
            "logic": math.fsum(LOGIC_WEIGHTS[k] * parts[k] for k in LOGIC_WEIGHTS),
            "security": parts["security"],
            "engineering": math.fsum(
                ENGINEERING_WEIGHTS[k] * parts[k] for k in ENGINEERING_WEIGHTS
            ),
        }
        scores = {d: round_half_up(s) for d, s in scores.items()}
        return JudgeVerdict(
            judge=self.name,
            scores=scores,
            overall=weighted_overall(scores),
            rationale=_rationale(case, analysis, parts),
            raw=json.dumps(_findings(analysis, parts), sort_keys=True),
            latency_s=time.perf_counter() - started,
        )


def _parts(case: JudgeCase, analysis: Analysis) -> dict[str, float]:
    """Every component of the formulas (see the module docstring), each 0-100 but ``parsed`` 0-1."""
    parsed = analysis.parsed_sloc / analysis.sloc if analysis.sloc else 0.0
    parts = {"parsed": parsed, **_execution_parts(case)}
    complexities = [c for s in analysis.parsed for c in s.complexities]
    parts["complexity"] = parsed * (
        _mean([CC_RANK_SCORES[cc_rank(c)] for c in complexities]) if complexities else PERCENT
    )
    parts["quality"] = parsed * (
        QUALITY_LINT_SHARE * _lint(analysis) + (1 - QUALITY_LINT_SHARE) * _maintainability(analysis)
    )
    penalty = math.fsum(
        SEVERITY_PENALTY.get(f.severity, SEVERITY_PENALTY["UNDEFINED"])
        * CONFIDENCE_FACTOR.get(f.confidence, CONFIDENCE_FACTOR["UNDEFINED"])
        for f in analysis.bandit
    )
    parts["security"] = parsed * max(0.0, PERCENT - penalty)
    docstring_slots = sum(s.docstring_slots for s in analysis.parsed)
    annotation_slots = sum(s.annotation_slots for s in analysis.parsed)
    engineering = {
        "docstrings": _coverage(len(analysis.ruff_codes(DOCSTRING_RULES)), docstring_slots),
        "type_hints": _coverage(len(analysis.ruff_codes(TYPE_HINT_RULES)), annotation_slots),
        "error_handling": max(
            0.0, 1 - ERROR_HANDLING_PENALTY * len(analysis.ruff_codes(ERROR_HANDLING_RULES))
        ),
        "structure": max(0.0, 1 - STRUCTURE_PENALTY * len(analysis.ruff_codes(STRUCTURE_RULES))),
    }
    parts.update({k: PERCENT * parsed * v for k, v in engineering.items()})
    return parts


def _execution_parts(case: JudgeCase) -> dict[str, float]:
    ratio, execution = case.execution_ratio, case.execution
    if ratio is None:
        return dict.fromkeys(("pass_ratio", "edge_cases", "no_crash"), NO_EVIDENCE_SCORE)
    edge = robustness_ratio(execution, case.priorities) if execution is not None else None
    no_crash = (
        PERCENT * (1 - crash_share(execution)) if execution is not None else NO_EVIDENCE_SCORE
    )
    return {
        "pass_ratio": PERCENT * ratio,
        "edge_cases": PERCENT * (ratio if edge is None else edge),
        "no_crash": no_crash,
    }


def _quality_findings(analysis: Analysis) -> list[Finding]:
    engineering = DOCSTRING_RULES | TYPE_HINT_RULES | ERROR_HANDLING_RULES | STRUCTURE_RULES
    return [f for f in analysis.ruff if f.code not in engineering]


def _lint(analysis: Analysis) -> float:
    density = PERCENT * len(_quality_findings(analysis)) / max(analysis.parsed_sloc, LINT_MIN_SLOC)
    return PERCENT / (1 + density / LINT_HALF_DENSITY)


def _maintainability(analysis: Analysis) -> float:
    weighted = [
        (min(PERCENT, PERCENT * (s.maintainability or 0.0) / MI_RANK_A), s.sloc)
        for s in analysis.parsed
    ]
    total = sum(sloc for _, sloc in weighted)
    if not total:
        return PERCENT if weighted else 0.0
    return math.fsum(score * sloc for score, sloc in weighted) / total


def _coverage(missing: int, slots: int) -> float:
    return max(0.0, 1 - missing / slots) if slots else 1.0


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def _rationale(case: JudgeCase, analysis: Analysis, parts: Mapping[str, float]) -> str:
    if not analysis.sources:
        code = "no Python code to analyse"
    else:
        broken = [s.path for s in analysis.sources if s.syntax_error]
        code = f"{analysis.sloc} source lines in {len(analysis.sources)} Python file(s)" + (
            f", {len(broken)} not parsing ({', '.join(broken)})" if broken else ""
        )
    tests = (
        "no test applied"
        if case.execution_ratio is None
        else f"weighted pass ratio {case.execution_ratio:.2f}"
    )
    severities = Counter(f.severity.lower() for f in analysis.bandit)
    security = ", ".join(f"{n} {sev}" for sev, n in sorted(severities.items())) or "none"
    return (
        f"{code}; {tests}; {len(_quality_findings(analysis))} ruff quality finding(s); "
        f"bandit: {security}; docstrings {parts['docstrings']:.0f}%, "
        f"type hints {parts['type_hints']:.0f}%."
    )


def _findings(analysis: Analysis, parts: Mapping[str, float]) -> dict[str, object]:
    """The static judge's evidence, as stored in the verdict's ``raw``."""

    def top(findings: tuple[Finding, ...]) -> list[str]:
        return [
            f"{f.path}:{f.line}: {f.code} {f.message}"
            + (f" [{f.severity}/{f.confidence}]" if f.severity else "")
            for f in findings[:TOP_MESSAGES]
        ]

    maintainability = {s.path: round_half_up(s.maintainability or 0.0) for s in analysis.parsed}
    complexities = [c for s in analysis.parsed for c in s.complexities]
    return {
        "files": [s.path for s in analysis.sources],
        "skipped": list(analysis.skipped),
        "sloc": analysis.sloc,
        "syntax_errors": {s.path: s.syntax_error for s in analysis.sources if s.syntax_error},
        "ruff": {
            "count": len(analysis.ruff),
            "by_code": dict(Counter(f.code for f in analysis.ruff)),
            "top": top(analysis.ruff),
        },
        "bandit": {
            "count": len(analysis.bandit),
            "by_severity": dict(Counter(f.severity for f in analysis.bandit)),
            "top": top(analysis.bandit),
        },
        "radon": {
            "maintainability": maintainability,
            "max_complexity": max(complexities, default=0),
            "functions": len(complexities),
        },
        "components": {k: round_half_up(v, 3 if k == "parsed" else 1) for k, v in parts.items()},
    }
