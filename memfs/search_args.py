"""The arguments of a memory search as a tool call sends them (a pydantic model, for its JSON
schema and validation); kept apart from :mod:`memfs.search` so ``memfs grep`` loads no pydantic."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from memfs.search import DEFAULT_CONTEXT, MAX_CONTEXT


class SearchArgs(BaseModel):
    """The arguments of a memory search, as a tool call sends them."""

    model_config = ConfigDict(extra="ignore")

    pattern: str = Field(
        description="Text to find (case-sensitive substring unless regex or ignore_case is set)."
    )
    regex: bool = Field(default=False, description="Treat pattern as a Python regular expression.")
    ignore_case: bool = Field(default=False, description="Match regardless of letter case.")
    context: int = Field(
        default=DEFAULT_CONTEXT,
        ge=0,
        le=MAX_CONTEXT,
        description="Lines of context to show before and after each matching line.",
    )
