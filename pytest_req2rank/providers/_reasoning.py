"""A reasoning model's answer split into its reasoning and its final answer.

Served without a reasoning parser (Ollama, llama.cpp, many gateways), a reasoning model's
reasoning arrives inline in the answer text, often with drafts in code fences. These are
the markers the serving stacks' own parsers (vLLM, SGLang) know:

- paired tags: ``<think>`` (DeepSeek-R1, Qwen3, QwQ, GLM, MiniMax, Hunyuan, Olmo 3, ...),
  ``<thinking>``, ``<reasoning>``, ``<thought>``, ``<seed:think>`` (Seed-OSS),
  ``◁think▷`` (Kimi), ``[THINK]`` (Magistral), ``<|START_THINKING|>`` (Command A),
  ``<|begin_of_thought|>`` (Sky-T1, OpenThinker), ``<|channel>thought`` (Gemma 4);
- a closing tag with no opening one: the opening tag was in the chat template
  (DeepSeek-R1 served that way), so everything before it is reasoning;
- an opening tag never closed: the token limit cut the reasoning, there is no final answer;
- gpt-oss's harmony channels rendered raw (``<|channel|>analysis<|message|>…<|end|>…
  <|channel|>final<|message|>…``), or with their special tokens dropped
  (``analysis…assistantfinal…``, seen from SGLang and vLLM);
- Granite 3.2's ``Here is my thought process:`` … ``Here is my response:``.

The final answer is then unwrapped from an answer tag the model put around it
(``<answer>``, ``<response>``, ``<output>``, ``<|begin_of_solution|>``,
``<|START_RESPONSE|>``) and rid of a trailing end-of-turn token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SplitAnswer:
    """``answer``: the final answer; ``reasoning``: what was taken out of the text (blocks
    joined by blank lines); ``unfinished``: the text ended inside its reasoning."""

    answer: str
    reasoning: str = ""
    unfinished: bool = False


_PAIRS: tuple[tuple[str, str], ...] = (
    (r"<think>", r"</think>"),
    (r"<thinking>", r"</thinking>"),
    (r"<reasoning>", r"</reasoning>"),
    (r"<thought>", r"</thought>"),
    (r"<seed:think>", r"</seed:think>"),
    (r"◁think▷", r"◁/think▷"),
    (r"\[THINK\]", r"\[/THINK\]"),
    (r"<\|START_THINKING\|>", r"<\|END_THINKING\|>"),
    (r"<\|begin_of_thought\|>", r"<\|end_of_thought\|>"),
    (r"<\|channel>(?:thought\b)?", r"<channel\|>"),
)
# A tag inside a string literal of the answer's code is not a marker.
_QUOTES = "\"'"
_MARKERS = [
    (re.compile(opening, re.IGNORECASE), re.compile(closing, re.IGNORECASE))
    for opening, closing in _PAIRS
]
_WRAPPERS: tuple[tuple[str, str], ...] = (
    ("<answer>", "</answer>"),
    ("<response>", "</response>"),
    ("<output>", "</output>"),
    ("<|begin_of_solution|>", "<|end_of_solution|>"),
    ("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
)
_END_OF_TURN = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "<|return|>", "<turn|>",
                "<end_of_turn>", "<eos>", "</s>")
_HARMONY = re.compile(
    r"(?:<\|start\|>[^<]*)?<\|channel\|>\s*(\w+)[^<]*?<\|message\|>(.*?)"
    r"(<\|end\|>|<\|return\|>|<\|call\|>)?(?=<\|start\|>|<\|channel\|>|\Z)",
    re.DOTALL,
)
_HARMONY_BARE = re.compile(r"\A\s*analysis(.*?)assistantfinal(.*)\Z", re.DOTALL)
_GRANITE = re.compile(
    r"\A\s*Here(?:'s| is) my thought process:(.*?)(?:Here(?:'s| is) my response:(.*))?\Z",
    re.DOTALL,
)


def split_reasoning(text: str) -> SplitAnswer:
    """The final answer of ``text`` and the reasoning taken out of it; a text without any
    reasoning marker is its own answer, unchanged (unless wrapped in an answer tag or ended
    by an end-of-turn token)."""
    for split in (_harmony, _granite, _tagged):
        found = split(text)
        if found is not None:
            return SplitAnswer(_final(found.answer), found.reasoning, found.unfinished)
    unwrapped = _unwrapped(text)
    return SplitAnswer(text if unwrapped is None else _final(unwrapped))


def _harmony(text: str) -> SplitAnswer | None:
    if "<|channel|>" in text:
        final: list[str] = []
        reasoning: list[str] = []
        unfinished = False
        for match in _HARMONY.finditer(text):
            channel, body = match.group(1).lower(), match.group(2)
            (final if channel == "final" else reasoning).append(body)
            unfinished = match.group(3) is None and match.end() == len(text)
        if not final and not reasoning:
            return None
        return SplitAnswer("\n\n".join(final), _joined(reasoning), unfinished and not final)
    bare = _HARMONY_BARE.match(text)
    return None if bare is None else SplitAnswer(bare.group(2), _joined([bare.group(1)]))


def _granite(text: str) -> SplitAnswer | None:
    found = _GRANITE.match(text)
    if found is None:
        return None
    response = found.group(2)
    return SplitAnswer((response or "").lstrip(" "), _joined([found.group(1)]),
                       unfinished=response is None)


def _tagged(text: str) -> SplitAnswer | None:
    answer: list[str] = []
    reasoning: list[str] = []
    position = 0
    lone = _lone_closing(text)
    if lone is not None:
        reasoning.append(text[:lone.start()])
        position = lone.end()
    while (opened := _earliest(text, position, opening=True)) is not None:
        kind, opening = opened
        answer.append(text[position:opening.start()])
        closing = _find(_MARKERS[kind][1], text, opening.end())
        if closing is None:
            reasoning.append(text[opening.end():])
            return SplitAnswer("".join(answer), _joined(reasoning), unfinished=True)
        reasoning.append(text[opening.end():closing.start()])
        position = closing.end()
    if lone is None and not reasoning:
        return None
    answer.append(text[position:])
    return SplitAnswer("".join(answer), _joined(reasoning))


def _find(pattern: re.Pattern[str], text: str, start: int) -> re.Match[str] | None:
    """The first match of ``pattern`` from ``start`` that is not inside a string literal."""
    for match in pattern.finditer(text, start):
        before = text[match.start() - 1:match.start()]
        after = text[match.end():match.end() + 1]
        if not (before and before in _QUOTES) and not (after and after in _QUOTES):
            return match
    return None


def _earliest(text: str, start: int, *, opening: bool) -> tuple[int, re.Match[str]] | None:
    """The first opening (or closing) tag of any kind from ``start``, with its kind."""
    found: tuple[int, re.Match[str]] | None = None
    for kind, pair in enumerate(_MARKERS):
        match = _find(pair[0] if opening else pair[1], text, start)
        if match is not None and (found is None or match.start() < found[1].start()):
            found = (kind, match)
    return found


def _lone_closing(text: str) -> re.Match[str] | None:
    """The first closing tag, when no opening tag of its kind comes before it."""
    closing = _earliest(text, 0, opening=False)
    if closing is None:
        return None
    kind, match = closing
    opening = _find(_MARKERS[kind][0], text, 0)
    return match if opening is None or opening.start() > match.start() else None


def _joined(parts: list[str]) -> str:
    return "\n\n".join(part.strip() for part in parts if part.strip())


def _unwrapped(answer: str) -> str | None:
    """The answer without its answer tag and end-of-turn token; ``None`` when it has neither."""
    text = answer
    while (ended := next((t for t in _END_OF_TURN if text.rstrip().endswith(t)), None)):
        text = text.rstrip()[:-len(ended)]
    found = text != answer
    stripped = text.strip()
    for opening, closing in _WRAPPERS:
        if stripped.lower().startswith(opening.lower()):
            inner = stripped[len(opening):]
            end = inner.lower().rfind(closing.lower())
            return inner[:end] if end >= 0 else inner
    return text if found else None


def _final(answer: str) -> str:
    """The final answer left once its reasoning is out: no leading blank lines (the first
    line keeps its indentation), no trailing whitespace, no answer tag."""
    unwrapped = _unwrapped(answer)
    answer = answer if unwrapped is None else unwrapped
    return re.sub(r"\A(?:[ \t]*\n)+", "", answer).rstrip()
