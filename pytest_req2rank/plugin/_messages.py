"""The one-line failure message of an unsolved item."""

from __future__ import annotations

from ..models import ItemResult


def failure_message(result: ItemResult) -> str:
    """One line saying why an item is not solved."""
    if result.status in ("api_error", "sandbox_error"):
        return f"{result.status} (infrastructure, not counted against the model): {result.reason}"
    head = f"{result.status}: {result.tests_passed}/{result.tests_total} tests passed"
    failed = next((t for t in result.tests if t.status != "success"), None)
    if failed is None:
        return f"{head}; {result.reason}" if result.reason else head
    parts = [failed.detail] if failed.detail else []
    if failed.status == "wrong_answer" and failed.expected is not None:
        parts.append(f"expected {_short(failed.expected)}, got {_short(failed.actual)}")
    detail = "; ".join(parts)
    return f"{head}; first failure {failed.name} ({failed.status})" + (f": {detail}" if detail else "")


def _short(text: str | None, limit: int = 80) -> str:
    if text is None:
        return "nothing"
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
