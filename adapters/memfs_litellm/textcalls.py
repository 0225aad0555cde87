"""Tool calls a small model writes as text instead of filling ``tool_calls``.

Observed with Qwen2.5-Coder 1.5B behind llama-cpp-python (docs/local-model.md): the reply
carries ``{"name": …, "arguments": {…}}`` in the content — bare, in a ```json fence, inside
``<tool_call>`` tags, or with doubled braces. The parser is deliberately small and explicit:
strip fences and tags, decode JSON objects in order, keep those that name a known tool.
The runner marks these calls ``source="text"`` so an evaluation can tell them apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?|```")
_TAGS = re.compile(r"</?\s*(tool_call|tool_calls|function_call|functioncall|tools?)\s*>", re.I)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input")


class TextToolCall(BaseModel):
    name: str
    arguments: dict[str, Any]
    start: int
    """Offset in the cleaned text where the call's JSON began (calls come back in text order)."""


def _as_call(obj: Any, known: set[str]) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        return _as_call(obj["function"], known)
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None or name not in known:
        return None
    args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), None)
    if args is None:
        args = {k: v for k, v in obj.items() if k not in _NAME_KEYS and k != "type"}
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return name, args


def _scan(text: str, known: set[str]) -> list[tuple[int, int, list[tuple[str, dict[str, Any]]]]]:
    """Spans ``(start, end, calls)`` of the JSON values in ``text`` that hold known tool calls."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int, list[tuple[str, dict[str, Any]]]]] = []
    i = 0
    while (i := text.find("{", i)) != -1:
        start = i - 1 if i > 0 and text[i - 1] == "[" else i
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            try:
                obj, end = decoder.raw_decode(text, i)
                start = i
            except json.JSONDecodeError:
                i += 1
                continue
        candidates = obj if isinstance(obj, list) else [obj]
        found = [c for c in (_as_call(o, known) for o in candidates) if c]
        if found:
            spans.append((start, end, found))
            i = end
        else:
            i += 1  # an unrelated object: look inside it too
    return spans


def clean(text: str) -> str:
    """The text with code fences and tool-call tags removed."""
    return _TAGS.sub("\n", _FENCE.sub("\n", text))


def _spans(text: str, names: set[str]) -> tuple[str, list[tuple[int, int, list[Any]]]]:
    cleaned = clean(text)
    spans = _scan(cleaned, names)
    if not spans and "{{" in cleaned:
        cleaned = cleaned.replace("{{", "{").replace("}}", "}")
        spans = _scan(cleaned, names)
    return cleaned, spans


def parse_text_tool_calls(text: str | None, known: Iterable[str]) -> list[TextToolCall]:
    """Every tool call naming a known tool in ``text``, in order; ``[]`` when there is none.

    Tries the text as written first; only if nothing parses are doubled braces (``{{ … }}``,
    a template habit) folded to single ones.
    """
    if not text or "{" not in text:
        return []
    _, spans = _spans(text, set(known))
    unique: list[TextToolCall] = []
    seen: set[str] = set()
    for start, _end, found in spans:
        for name, args in found:  # a model that repeats the same call verbatim means it once
            key = name + json.dumps(args, sort_keys=True)
            if key not in seen:
                seen.add(key)
                unique.append(TextToolCall(name=name, arguments=args, start=start))
    return unique


def strip_tool_calls(text: str, known: Iterable[str]) -> str:
    """What is left of a reply once the tool calls in it are taken out (for the transcript)."""
    if not text or "{" not in text:
        return text
    cleaned, spans = _spans(text, set(known))
    if not spans:
        return text
    out, pos = [], 0
    for start, end, _found in spans:
        out.append(cleaned[pos:start])
        pos = end
    out.append(cleaned[pos:])
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip()
