"""The project-first run of the type-order probe: every tool schema's memory-type enum listed
with project first. Copied as sitecustomize.py into a directory put first on PYTHONPATH
of ``memfs eval`` (at 283928f, whose schemas listed user first); the user-first run had none."""

import memfs.tools as t

_orig = t.tool_schema
ORDER = ["project", "user", "feedback", "reference"]


def _reorder(node):
    if isinstance(node, dict):
        if sorted(node.get("enum") or []) == sorted(ORDER):
            node["enum"] = list(ORDER)
        for v in node.values():
            _reorder(v)
    elif isinstance(node, list):
        for v in node:
            _reorder(v)


def tool_schema(name, description, args):
    s = _orig(name, description, args)
    _reorder(s)
    return s


t.tool_schema = tool_schema
