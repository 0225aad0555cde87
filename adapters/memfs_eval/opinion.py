"""An optional LLM judge: a second opinion stored next to the rule verdict, never instead of it.

The rules in :mod:`memfs_eval.judge` decide every outcome. A model's reading of the same sample
can point at something the rules miss (a paraphrased fact, an odd but harmless write); it is
kept in ``Verdict.llm_opinion`` for a person to read and is never counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memfs_eval.judge import SampleRecord, Verdict
from memfs_eval.scenario import Scenario

INSTRUCTIONS = (
    "You review one sample of an evaluation of an agent's memory behaviour. The agent's workspace "
    "keeps memories as memory/*.md files (YAML frontmatter: name, description, metadata.type) "
    "indexed by MEMORY.md. Read the scenario, the files the agent changed, its tool calls and its "
    "answer, then say in at most three sentences whether it did what the scenario asks and what, "
    "if anything, went wrong. A rule-based verdict already exists; your opinion is only recorded."
)

OpinionFn = Callable[[Scenario, SampleRecord, Verdict], str]


def describe_sample(scenario: Scenario, record: SampleRecord, verdict: Verdict) -> str:
    changed = {p: t for p, t in record.after.items() if record.before.get(p) != t}
    deleted = [p for p in record.before if p not in record.after]
    calls = [{"name": c.name, "arguments": c.arguments} for c in record.tool_calls]
    return "\n".join(
        [
            f"Scenario ({scenario.kind}, {scenario.mode} turn): {scenario.title}",
            f"User message: {scenario.user_message}",
            f"Files changed: {json.dumps(changed, ensure_ascii=False)}",
            f"Files deleted: {deleted}",
            f"Tool calls: {json.dumps(calls, ensure_ascii=False)[:4000]}",
            f"Final answer: {record.final_text}",
            f"Rule verdict: {verdict.outcome} (flags: {', '.join(verdict.flags) or 'none'})",
        ]
    )


def llm_opinion(
    model: str,
    *,
    completion: Callable[..., Any] | None = None,
    completion_kwargs: dict[str, Any] | None = None,
) -> OpinionFn:
    """An opinion function over ``model``; a failing call yields a note, never an exception."""
    if completion is None:
        import litellm

        completion = litellm.completion

    def opinion(scenario: Scenario, record: SampleRecord, verdict: Verdict) -> str:
        messages = [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": describe_sample(scenario, record, verdict)},
        ]
        try:
            response = completion(model=model, messages=messages, **(completion_kwargs or {}))
            choice = (_get(response, "choices") or [None])[0]
            return str(_get(_get(choice, "message"), "content") or "").strip()
        except Exception as e:  # an opinion is optional; its failure must not stop a run
            return f"(no opinion: {type(e).__name__}: {e})"

    return opinion


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
