"""Arms of a live check: the same scenarios under different prompts, tool sets and levers.

An arm is what one column of a comparison ran with: the memory prompt variant, the tool set,
where the context block goes and how it is framed (the turn builder's ``placement`` and
``framing``), how memory is written (``memory``: the file tools, ``remember`` beside them,
``remember`` only, ``remember_facts`` only, or ``remember_by_kind`` only; ``force``: the named
saver forced on the first step of a turn whose user message asks to remember,
:func:`~memfs_litellm.runner.asks_to_remember`), and the write-time levers — read before
overwrite, the write receipt, the index nudge, keeping a memory's lines on overwrite (the
manifest's settings) and the runner's loop guard. On the command line::

    --arm b=prompt=full,levers=none
    --arm c=prompt=full,levers=read+receipt+loop
    --arm e=prompt=full-after-tools,levers=read+receipt+loop+nudge
    --arm m=placement=message,framing=heading
    --arm r=memory=files+remember          # the structured remember tool beside the file tools
    --arm o=memory=remember                # remember only: file tools refuse memory paths
    --arm f=memory=files+remember,force=on # remember forced on the first step when asked
    --arm l=memory=facts,force=on          # remember_facts (a list of facts) only, forced
    --arm k=memory=kinds,force=on          # remember_by_kind (a list per memory type), forced

Samples are interleaved across arms (see :func:`interleave`) so load drift on a shared machine
hits every arm alike; the report puts the arms side by side with the difference of their rates
and Newcombe's 95% interval for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Literal, TypeVar, get_args

from memfs import (
    FRAMINGS,
    PLACEMENTS,
    PROMPT_VARIANTS,
    AgentManifest,
    Framing,
    Placement,
    PromptVariant,
)
from pydantic import BaseModel, ConfigDict, Field, model_validator

from memfs_litellm import MEMORY_TOOLS, MemoryTools
from memfs_litellm.runner import asks_to_remember, memory_saver

Z95 = 1.959963984540054
ToolSet = Literal["platform", "files-only"]

LEVERS: dict[str, str] = {
    "read": "read_before_write",
    "receipt": "write_receipt",
    "loop": "loop_guard",
    "nudge": "index_nudge",
    "keep": "keep_memory",
}
"""Short lever names (``levers=read+receipt``) → the :class:`Arm` field each one sets."""

DEFAULT_LEVERS = ("read", "receipt", "loop")
"""The library's defaults: read before overwrite, receipt and loop guard on; the nudge opt-in."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,40}$")
_ON = {"on": True, "true": True, "yes": True, "1": True}
_OFF = {"off": False, "false": False, "no": False, "0": False}


class Arm(BaseModel):
    """What one arm of a run sends: prompt variant, tool set, block placement and framing, and
    the write-time levers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME.pattern)
    prompt: PromptVariant = "full"
    tools: ToolSet = "platform"
    placement: Placement = "prefix"
    framing: Framing = "reminder"
    read_before_write: bool = True
    write_receipt: bool = True
    loop_guard: bool = True
    index_nudge: bool = False
    keep_memory: bool = False
    memory_tools: MemoryTools = "files"
    force_remember: bool = False

    @model_validator(mode="after")
    def _force_needs_remember(self) -> Arm:
        if self.force_remember and self.memory_tools == "files":
            raise ValueError(
                f"--arm {self.name}: force=on forces the remember tool; offer it with "
                "memory=files+remember, memory=remember, memory=facts or memory=kinds."
            )
        return self

    def first_tool(self, user_message: str) -> str | None:
        """The function forced on the first step of a turn with this message, if any."""
        if not (self.force_remember and asks_to_remember(user_message)):
            return None
        return memory_saver(self.memory_tools)

    def manifest(self) -> AgentManifest:
        """The app manifest of this arm's turns (the file tools read their levers from it)."""
        return AgentManifest(
            read_before_write=self.read_before_write,
            write_receipt=self.write_receipt,
            index_nudge=self.index_nudge,
            keep_memory=self.keep_memory,
        )

    @property
    def levers(self) -> list[str]:
        return [short for short, field in LEVERS.items() if getattr(self, field)]

    def describe(self) -> str:
        levers = "+".join(self.levers) or "none"
        parts = [f"prompt={self.prompt}", f"tools={self.tools}"]
        if self.placement != "prefix":  # the defaults are left out, as in the --arm syntax
            parts.append(f"placement={self.placement}")
        if self.framing != "reminder":
            parts.append(f"framing={self.framing}")
        if self.memory_tools != "files":
            parts.append(f"memory={self.memory_tools}")
        if self.force_remember:
            parts.append("force=on")
        return ", ".join([*parts, f"levers={levers}"])


_CHOICES: dict[str, tuple[str, ...]] = {
    "prompt": tuple(PROMPT_VARIANTS),
    "placement": PLACEMENTS,
    "framing": FRAMINGS,
    "memory": MEMORY_TOOLS,
}
"""The options that take one of a fixed set of values, and those values."""


def _flag(key: str, value: str) -> bool:
    v = value.strip().lower()
    if v in _ON:
        return _ON[v]
    if v in _OFF:
        return _OFF[v]
    raise ValueError(f"{key}={value!r}: use on or off.")


def parse_arm(text: str) -> Arm:
    """``NAME=key=value,key=value…`` → an :class:`Arm`, or ValueError saying what is wrong.

    Keys: ``prompt`` (a memory prompt variant), ``tools`` (platform | files-only),
    ``placement`` (prefix | message | system), ``framing`` (reminder | heading), ``memory``
    (files | files+remember | remember | facts), ``force`` (on | off: needs remember or
    facts), ``levers``
    (``none``, ``default`` or short names joined by ``+``: read, receipt, loop, nudge) and each
    short name alone as ``on``/``off`` (applied after ``levers``). Unset levers keep the
    library's defaults (read, receipt and loop on; nudge off).
    """
    name, sep, options = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name):
        raise ValueError(
            f"--arm {text!r}: expected NAME=OPTIONS with a short NAME (letters, digits, . _ -), "
            "e.g. c=prompt=full,levers=read+receipt+loop."
        )
    fields: dict[str, object] = {"name": name}
    singles: dict[str, bool] = {}
    for item in filter(None, (p.strip() for p in options.split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            raise ValueError(f"--arm {name}: {item!r} is not key=value.")
        if key in _CHOICES:
            allowed = _CHOICES[key]
            if value not in allowed:
                raise ValueError(f"--arm {name}: {key}={value!r}; use one of {', '.join(allowed)}.")
            fields["memory_tools" if key == "memory" else key] = value
        elif key == "force":
            fields["force_remember"] = _flag(key, value)
        elif key == "tools":
            if value not in get_args(ToolSet):
                raise ValueError(f"--arm {name}: tools={value!r}; use platform or files-only.")
            fields["tools"] = value
        elif key == "levers":
            chosen = {
                "none": [],
                "default": list(DEFAULT_LEVERS),
            }.get(value, [v.strip() for v in value.split("+") if v.strip()])
            unknown = [c for c in chosen if c not in LEVERS]
            if unknown:
                raise ValueError(
                    f"--arm {name}: unknown lever(s) {unknown}; the levers are "
                    f"{', '.join(LEVERS)} (or none, default)."
                )
            for short, field in LEVERS.items():
                fields[field] = short in chosen
        elif key in LEVERS:
            singles[LEVERS[key]] = _flag(key, value)
        else:
            raise ValueError(
                f"--arm {name}: unknown option {key!r}; the options are prompt, tools, "
                f"placement, framing, memory, force, levers, {', '.join(LEVERS)}."
            )
    fields.update(singles)
    try:
        return Arm.model_validate(fields)
    except ValueError as e:  # pydantic's wording around our one line is not for a command line
        errors = getattr(e, "errors", None)
        first = errors()[0].get("ctx", {}).get("error") if callable(errors) else None
        raise ValueError(str(first or e)) from None


T = TypeVar("T")
S = TypeVar("S")


def interleave(arms: Sequence[T], scenarios: Sequence[S], n: int) -> Iterator[tuple[T, S, int]]:
    """Sample ``i`` of every scenario under every arm before sample ``i + 1`` of any.

    The arms keep their order in every round. An arm's prompt prefix is then seen again after
    the same few samples each time, which is what lets a server's prompt cache (a bounded LRU
    of KV states) keep every arm's prefix; rotating the order would stretch some of those gaps
    past the cache and make those arms pay a cold prompt instead.
    """
    for i in range(n):
        for s in scenarios:
            for arm in arms:
                yield arm, s, i


Order = Literal["interleaved", "blocks"]
"""How a run's samples follow one another (``memfs eval --order``)."""
ORDERS: tuple[Order, ...] = get_args(Order)


def work_units(
    arms: Sequence[T],
    scenarios: Sequence[S],
    n: int,
    order: Order = "interleaved",
    done: Callable[[T, S, int], bool] = lambda arm, scenario, index: False,
) -> list[list[tuple[T, S, int]]]:
    """The samples still to take, in the units one endpoint takes them: each sample alone in
    :func:`interleave`'s order, or, for ``blocks``, every sample of one arm and scenario
    together (for each arm in order, each scenario in order); the samples ``done`` says are
    taken already are left out.

    A block's samples send the same first prompt, so a server that takes a whole block keeps
    that prompt in its context: on a CPU that evaluates a few tokens a second, a cold prompt of
    several thousand tokens costs minutes a sample. What blocks give up is the spread of each
    arm over the run's time: a run stopped halfway has whole arms and none of others.
    """
    if order == "interleaved":
        return [[t] for t in interleave(arms, scenarios, n) if not done(*t)]
    units = [
        [(arm, s, i) for i in range(n) if not done(arm, s, i)] for arm in arms for s in scenarios
    ]
    return [u for u in units if u]


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials; (0, 1) when n is 0."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"wilson() needs 0 <= k <= n, got k={k}, n={n}.")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """p1 − p2 and its 95% interval by Newcombe's hybrid score method (his method 10).

    Built from the two Wilson intervals, so it stays inside [-1, 1] and behaves at 0/N and
    N/N, where the Wald interval collapses to a point. Raises when either n is 0.
    """
    if n1 <= 0 or n2 <= 0:
        raise ValueError(f"newcombe() needs samples in both arms, got n1={n1}, n2={n2}.")
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, low), min(1.0, high)
