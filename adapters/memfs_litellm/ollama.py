"""The model window: tell Ollama how large a window to open, and notice when a prompt was cut
anyway.

Ollama opens a 4,096-token window unless the request says otherwise, and cuts the *front* of a
longer prompt without an error — the system prompt and its memory instructions go first. The
fix is to send ``num_ctx`` as a top-level completion kwarg (the way ``think=False`` travels;
``extra_body`` does not reach Ollama's options), with the value the runner already resolves for
its own budget: operator override → learned from earlier responses → litellm's model registry.
Unresolvable → send nothing: guessing a number was the original bug. Other providers size
their own window and get nothing. docs/design.md (*Send Ollama its window; detect silent
truncation*) has the run that found it.

Whatever the endpoint, the reported ``prompt_tokens`` is compared with an estimate of what was
sent: far below it (< 70 %), or exactly a well-known default window, means a silent cut, and
the turn is flagged with a warning that names the window to set.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from typing import Any, Literal

from memfs import estimate_tokens, with_margin
from pydantic import BaseModel

log = logging.getLogger("memfs_litellm")

OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")
KNOWN_DEFAULT_WINDOWS = (2048, 4096)
"""Windows endpoints open when nobody asks (Ollama's old and current default)."""
TRUNCATION_RATIO = 0.7
"""Reported prompt tokens below this share of the estimate means the prompt was cut."""

WindowSource = Literal["override", "learned", "registry"]


def is_ollama(model: str) -> bool:
    return model.startswith(OLLAMA_PREFIXES)


class ResolvedWindow(BaseModel):
    tokens: int
    source: WindowSource


_LIMIT_PATTERNS = (
    re.compile(r"maximum context length is (\d[\d,]*) tokens", re.I),
    re.compile(r"context (?:window|length|size) (?:of|is) (\d[\d,]*)", re.I),
    re.compile(r"n_ctx(?:_train|_slot)?\s*[=:(]\s*(\d+)", re.I),
    re.compile(r"exceeds the (?:available )?context size \((\d+) tokens\)", re.I),
)


class ContextWindowResolver:
    """Resolves a model's context window: operator override → learned → litellm registry.

    ``learn`` records a window an endpoint revealed (e.g. an error saying "maximum context
    length is N tokens"); it is kept per model for the life of the resolver.
    """

    def __init__(self, overrides: dict[str, int] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self._learned: dict[str, int] = {}
        self._lock = threading.Lock()

    def learn(self, model: str, tokens: int) -> None:
        if tokens > 0:
            with self._lock:
                self._learned[model] = tokens

    def learn_from_error(self, model: str, message: str) -> int | None:
        for pattern in _LIMIT_PATTERNS:
            if m := pattern.search(message):
                tokens = int(m.group(1).replace(",", ""))
                self.learn(model, tokens)
                return tokens
        return None

    def learned(self, model: str) -> int | None:
        with self._lock:
            return self._learned.get(model)

    def resolve(self, model: str, override: int | None = None) -> ResolvedWindow | None:
        if override:
            return ResolvedWindow(tokens=override, source="override")
        if model in self.overrides:
            return ResolvedWindow(tokens=self.overrides[model], source="override")
        if learned := self.learned(model):
            return ResolvedWindow(tokens=learned, source="learned")
        if registry := registry_window(model):
            return ResolvedWindow(tokens=registry, source="registry")
        return None


DEFAULT_RESOLVER = ContextWindowResolver()


def registry_window(model: str) -> int | None:
    """The input window litellm's model registry lists for ``model``, or None."""
    try:
        import litellm

        info = litellm.get_model_info(model)
    except Exception:  # litellm raises a bare Exception for models it does not know
        return None
    for key in ("max_input_tokens", "max_tokens"):
        value = info.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def window_kwargs(model: str, window: ResolvedWindow | int | None) -> dict[str, Any]:
    """The top-level completion kwargs that open the window: ``{"num_ctx": N}`` for Ollama."""
    if window is None or not is_ollama(model):
        return {}
    tokens = window.tokens if isinstance(window, ResolvedWindow) else window
    return {"num_ctx": int(tokens)} if tokens > 0 else {}


# -- silent truncation ------------------------------------------------------------------------


def estimate_prompt_tokens(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> int:
    """Estimated prompt tokens of a request: every message's text plus the tool schemas."""
    import json

    parts: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content if isinstance(c, dict)]
        if m.get("tool_calls"):
            parts.append(json.dumps(m["tool_calls"], ensure_ascii=False, default=str))
    if tools:
        parts.append(json.dumps(tools, ensure_ascii=False))
    return sum(estimate_tokens(p) for p in parts) + 4 * len(messages)


class TruncationCheck(BaseModel):
    truncated: bool
    reported: int | None
    estimated: int
    note: str | None = None
    suggested_window: int | None = None


def suggested_window(estimated: int) -> int:
    """A window that holds the prompt with the estimator's margin, rounded up to 1,024."""
    return int(math.ceil(with_margin(estimated) / 1024) * 1024)


def check_truncation(
    model: str,
    reported_prompt_tokens: int | None,
    estimated_prompt_tokens: int,
    *,
    num_ctx_sent: int | None = None,
    ratio: float = TRUNCATION_RATIO,
) -> TruncationCheck:
    """Compare what the endpoint says it read with what was sent; flag and explain a cut."""
    reported = reported_prompt_tokens
    if not reported or estimated_prompt_tokens <= 0:
        return TruncationCheck(
            truncated=False, reported=reported, estimated=estimated_prompt_tokens
        )
    far_below = reported < ratio * estimated_prompt_tokens
    at_default = reported in KNOWN_DEFAULT_WINDOWS and estimated_prompt_tokens >= 0.9 * reported
    if not (far_below or at_default):
        return TruncationCheck(
            truncated=False, reported=reported, estimated=estimated_prompt_tokens
        )
    want = suggested_window(estimated_prompt_tokens)
    why = (
        f"exactly {reported}, a default context window"
        if at_default
        else f"{reported / estimated_prompt_tokens:.0%} of the ~{estimated_prompt_tokens} sent"
    )
    if is_ollama(model):
        how = (
            f"num_ctx={num_ctx_sent} was sent but the endpoint still cut it; raise it to at "
            f"least {want}"
            if num_ctx_sent
            else f"no num_ctx was sent (the window could not be resolved); pass "
            f"context_window={want} (sent as num_ctx) or set PARAMETER num_ctx {want} in the "
            "Modelfile"
        )
    else:
        how = f"set the endpoint's context window to at least {want} tokens (llama.cpp: n_ctx)"
    note = (
        f"Prompt probably truncated silently by {model}: the endpoint reported {reported} "
        f"prompt tokens, {why}. The front of the prompt (system prompt, memory instructions) "
        f"is what gets cut. Fix: {how}."
    )
    log.warning(note)
    return TruncationCheck(
        truncated=True,
        reported=reported,
        estimated=estimated_prompt_tokens,
        note=note,
        suggested_window=want,
    )
