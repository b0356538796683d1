"""The answer-shape corpus: real programs wrapped in the shapes chat and reasoning models
answer in, each with the outcome the program the model meant gets.

A function shape turns a :class:`Program` (a HumanEval task's canonical solution, and a
wrong first draft of it that fails the task's tests) into one scripted answer of the fake
model; a files shape does the same with the files of a dynamic-suite reference solution.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pytest_req2rank.models import Task
from pytest_req2rank.mutation import mutants

Outcome = Literal["meant", "meant_cut", "truncated", "refused"]
"""``meant``: graded as the program meant (every test passes); ``meant_cut``: the same, with
the cut noted in the reason; ``truncated``: cut before the code was complete; ``refused``:
a format error whose reason says the answer refuses."""

Response = dict[str, Any]
"""One scripted response of the fake model (``text``, ``finish_reason``, ``reasoning``)."""


@dataclass(frozen=True)
class Program:
    """What the model meant: ``code``, a complete program defining ``entry_point``; and
    ``draft``, a first try at it that fails the task's tests."""

    task: Task
    code: str
    draft: str

    @property
    def entry_point(self) -> str:
        return self.task.entry_point or ""


def program_of(task: Task) -> Program:
    """The canonical solution of a HumanEval task, its first draft the mutant that returns
    ``None`` from the entry point's last ``return``."""
    entry = next(node for node in ast.parse(task.reference).body
                 if isinstance(node, ast.FunctionDef) and node.name == task.entry_point)
    draft = [m for m in mutants(task.reference, kinds=["return-none"])
             if entry.lineno <= m.line <= (entry.end_lineno or entry.lineno)][-1].source
    return Program(task=task, code=task.reference.strip() + "\n", draft=draft.strip() + "\n")


@dataclass(frozen=True)
class Shape:
    """One way of writing an answer around a program."""

    name: str
    answer: Callable[[Program], Response]
    outcome: Outcome = "meant"
    reasoned: bool = False
    """The answer's reasoning holds the draft."""


def fence(code: str, tag: str = "python") -> str:
    return f"```{tag}\n{code.rstrip()}\n```"


def _pieces(code: str) -> tuple[str, list[str]]:
    """A program's imports (one piece) and its other top-level statements, one piece each."""
    tree = ast.parse(code)
    lines = code.splitlines()
    imports: list[str] = []
    pieces: list[str] = []
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[start - 1:node.end_lineno])
        (imports if isinstance(node, ast.Import | ast.ImportFrom) else pieces).append(text)
    return "\n".join(imports), pieces


def _cut(code: str) -> str:
    """The longest prefix of ``code`` within its first two thirds that does not compile: an
    answer the token limit cut in the middle of the program."""
    for end in range(len(code) * 2 // 3, 0, -1):
        try:
            compile(code[:end], "cut", "exec", dont_inherit=True)
        except SyntaxError:
            return code[:end]
    raise AssertionError("no prefix of the program fails to compile")


def _usage(program: Program) -> str:
    """A usage example after the solution: an import of the module it is in, a call, a
    print and an assert that fails (a usage example is not part of the program)."""
    entry = program.entry_point
    return (f"from solution import {entry}\n\nresult = {entry}(*EXAMPLE_ARGS)\nprint(result)\n"
            f"assert result == 'not what {entry} returns'\n")


def _reasoning(program: Program) -> str:
    return (f"The task asks for {program.entry_point}. A first try:\n\n{fence(program.draft)}\n\n"
            "Wait, that returns None on the main path. Let me fix it and check the edge cases.")


def _helpers_apart(program: Program) -> str:
    imports, pieces = _pieces(program.code)
    blocks = ([f"The imports:\n\n{fence(imports)}"] if imports else []) + [
        f"Part {k + 1}:\n\n{fence(piece)}" for k, piece in enumerate(pieces)]
    return "\n\n".join(blocks) + f"\n\nUsage:\n\n{fence(_usage(program))}\n"


FUNCTION_SHAPES: tuple[Shape, ...] = (
    Shape("prose-and-fence", lambda p: {"text": f"Here is the solution:\n\n{fence(p.code)}\n\n"
                                                "It checks every case the docstring lists."}),
    # Reasoning shapes: the draft is the only fenced block outside the final answer, so an
    # answer read with its reasoning is graded from the draft (and fails).
    Shape("think-draft-then-bare-code", lambda p: {
        "text": f"<think>\n{_reasoning(p)}\n</think>\n\n{p.code}"}, reasoned=True),
    Shape("think-draft-then-fence", lambda p: {
        "text": f"<think>\n{_reasoning(p)}\n</think>\n\n{fence(p.code)}\n"}, reasoned=True),
    Shape("thinking-tag-draft", lambda p: {
        "text": f"<thinking>{_reasoning(p)}</thinking>\n{p.code}"}, reasoned=True),
    Shape("reasoning-tag-draft", lambda p: {
        "text": f"<reasoning>\n{_reasoning(p)}\n</reasoning>\n{p.code}"}, reasoned=True),
    Shape("opening-tag-in-the-template", lambda p: {
        "text": f"{_reasoning(p)}\n</think>\n\n{p.code}"}, reasoned=True),
    Shape("harmony-channels-raw", lambda p: {
        "text": f"<|channel|>analysis<|message|>{_reasoning(p)}<|end|><|start|>assistant"
                f"<|channel|>final<|message|>{p.code}<|return|>"}, reasoned=True),
    Shape("harmony-tokens-dropped", lambda p: {
        "text": f"analysis{_reasoning(p)}assistantfinal{p.code}"}, reasoned=True),
    Shape("kimi-think-draft", lambda p: {
        "text": f"◁think▷{_reasoning(p)}◁/think▷{p.code}"}, reasoned=True),
    Shape("reasoning-returned-apart", lambda p: {
        "text": fence(p.code), "reasoning": _reasoning(p)}, reasoned=True),
    Shape("helpers-in-separate-blocks", lambda p: {"text": _helpers_apart(p)}),
    Shape("solution-then-usage-example", lambda p: {
        "text": f"{fence(p.code)}\n\nExample:\n\n{fence(_usage(p))}\n"}),
    Shape("draft-then-fix-in-the-answer", lambda p: {
        "text": f"A first version:\n\n{fence(p.draft)}\n\nThat one returns None. Fixed:\n\n"
                f"{fence(p.code)}\n"}),
    Shape("py-fence", lambda p: {"text": fence(p.code, "py")}),
    Shape("python3-fence", lambda p: {"text": fence(p.code, "python3")}),
    Shape("untagged-fence", lambda p: {"text": fence(p.code, "")}),
    Shape("bare-code", lambda p: {"text": p.code}),
    Shape("named-file", lambda p: {"text": f"**solution.py**\n{fence(p.code)}"}),
    Shape("cut-after-the-code", lambda p: {
        "text": f"{fence(p.code)}\n\nExample:\n\n```python\nprint({p.entry_point}(",
        "finish_reason": "length"}, outcome="meant_cut"),
    Shape("cut-inside-the-code", lambda p: {
        "text": f"Here it is:\n\n```python\n{_cut(p.code)}", "finish_reason": "length"},
        outcome="truncated"),
    Shape("cut-inside-the-reasoning", lambda p: {
        "text": f"<think>\n{_reasoning(p)}\nNow the second vers", "finish_reason": "length"},
        outcome="truncated", reasoned=True),
    Shape("refusal", lambda p: {"text": "I'm sorry, but I can't help with that request."},
          outcome="refused"),
)


@dataclass(frozen=True)
class FilesShape:
    """One way of writing a multi-file answer around a reference solution's files."""

    name: str
    answer: Callable[[dict[str, str]], Response]
    outcome: Outcome = "meant"


def _under_names(files: dict[str, str], label: Callable[[str], str]) -> str:
    return "\n\n".join(f"{label(path)}\n{fence(code)}" for path, code in files.items())


def _first_line_names(files: dict[str, str]) -> str:
    return "\n\n".join(fence(f"# {path}\n{code}") for path, code in files.items())


def _cut_last(files: dict[str, str]) -> str:
    *whole, (path, code) = files.items()
    done = _under_names(dict(whole), lambda p: f"**{p}**")
    return f"{done}\n\n**{path}**\n```python\n{_cut(code)}"


def _draft_files(files: dict[str, str]) -> str:
    """A sketch of a helper module the final answer drops: read with the reasoning, it is one
    more file, and one that does not compile."""
    sketch = fence("def normalise(value:\n    return value")
    return (f"Maybe a helper module first:\n\n**helpers.py**\n{sketch}\n\n"
            "No, keep it in the files named.")


FILES_SHAPES: tuple[FilesShape, ...] = (
    FilesShape("json-files", lambda f: {"text": json.dumps(
        {"files": [{"path": p, "content": c} for p, c in f.items()]})}),
    FilesShape("bold-names", lambda f: {"text": _under_names(f, lambda p: f"**{p}**")}),
    FilesShape("file-comment-names", lambda f: {"text": _under_names(f, lambda p: f"# file: {p}")}),
    FilesShape("heading-names", lambda f: {"text": _under_names(f, lambda p: f"### {p}")}),
    FilesShape("colon-names", lambda f: {"text": _under_names(f, lambda p: f"{p}:")}),
    FilesShape("first-line-comment-names", lambda f: {"text": _first_line_names(f)}),
    FilesShape("think-draft-then-files", lambda f: {
        "text": f"<think>\n{_draft_files(f)}\n</think>\n\n" + _under_names(
            f, lambda p: f"**{p}**")}),
    FilesShape("files-cut-inside-the-last", lambda f: {
        "text": _cut_last(f), "finish_reason": "length"}, outcome="truncated"),
)


JUDGE_SCORES = {"functionality": 90, "quality": 80, "logic": 85, "security": 95, "engineering": 70}
DECOY_SCORES = dict.fromkeys(JUDGE_SCORES, 10)


def _judge_json(scores: dict[str, int], rationale: str) -> str:
    return json.dumps({"scores": scores, "rationale": rationale})


_DECOY = (f"Maybe: {_judge_json(DECOY_SCORES, 'a first impression')}\nNo: the tests pass and "
          "the code is clear; score it again.")
_REAL = _judge_json(JUDGE_SCORES, "Correct and clear.")

JUDGE_SHAPES: dict[str, Response] = {
    "think-decoy-then-json": {"text": f"<think>\n{_DECOY}\n</think>\n\n{_REAL}"},
    "think-decoy-then-fenced-json": {"text": f"<think>{_DECOY}</think>\n```json\n{_REAL}\n```"},
    "thinking-decoy-then-json": {"text": f"<thinking>{_DECOY}</thinking>{_REAL}"},
    "opening-tag-in-the-template": {"text": f"{_DECOY}\n</think>\n{_REAL}"},
    "harmony-channels-raw": {"text": f"<|channel|>analysis<|message|>{_DECOY}<|end|><|start|>"
                                     f"assistant<|channel|>final<|message|>{_REAL}"},
    "harmony-tokens-dropped": {"text": f"analysis{_DECOY}assistantfinal{_REAL}"},
    "reasoning-returned-apart": {"text": _REAL, "reasoning": _DECOY},
}
"""A judge's answers: reasoning holding a decoy JSON object (valid, with other scores),
then the real one."""
