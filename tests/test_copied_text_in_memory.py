"""memfs's own words a turn is shown — the context block's frame, a write's receipt — are not
memory: no write stores them in a memory file or the index."""

from __future__ import annotations

import pickle

import pytest
from anthropic.lib.tools import ToolError
from memfs import (
    FRAME_PREAMBLE,
    HEADING_PREAMBLE,
    REMEMBER_BY_KIND,
    CopiedTextError,
    FileToolExecutor,
    InMemoryFileStore,
    MemFS,
)

from memfs_anthropic import MemFSMemoryTool

MEMORY = "---\nname: x\ndescription: {d}\nmetadata:\n  type: project\n---\n{b}\n"
REFUSED = (
    "Refused to write {path!r}: it holds the frame memfs puts around the workspace files it "
    'loads into a turn ("The workspace files below are loaded into context for this turn."), '
    "which is not a memory. Nothing was written. Write the fact itself, in the user's words."
)


def workspace() -> MemFS:
    fs = MemFS(InMemoryFileStore())
    fs.pipe_file("MEMORY.md", b"- [Hub](memory/hub.md) \xe2\x80\x94 what this hub tracks\n")
    return fs


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("memory/x.md", MEMORY.format(d="a fact", b=FRAME_PREAMBLE)),
        ("memory/x.md", MEMORY.format(d="a fact", b=HEADING_PREAMBLE)),
        # a YAML dump folds a long description over lines
        (
            "memory/x.md",
            MEMORY.format(
                d="'The workspace files below are loaded\n  into context for this turn. They'",
                b="body",
            ),
        ),
        ("memory/notes.txt", FRAME_PREAMBLE),
        ("MEMORY.md", f"- [Frame](memory/frame.md) — {FRAME_PREAMBLE}\n"),
    ],
)
def test_a_memory_or_index_holding_the_frame_is_refused_and_nothing_changes(path, text):
    fs = workspace()
    before = {p: fs.raw.cat_file(p) for p in fs.raw.find("")}
    with pytest.raises(CopiedTextError) as e:
        fs.pipe_file(path, text.encode())
    assert str(e.value) == REFUSED.format(path=path)
    assert {p: fs.raw.cat_file(p) for p in fs.raw.find("")} == before
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is CopiedTextError and str(again) == str(e.value)


def test_the_frame_outside_memory_and_talk_about_it_are_stored():
    fs = workspace()
    fs.pipe_file("notes/frame.md", FRAME_PREAMBLE.encode())  # not memory: not injected
    fs.pipe_file("memory/x.md", MEMORY.format(d="d", b="The workspace files below.").encode())
    assert fs.raw.cat_file("notes/frame.md") == FRAME_PREAMBLE.encode()


def test_every_surface_gets_the_same_refusal():
    fs = workspace()
    tools = FileToolExecutor(fs, tools=["write_file", REMEMBER_BY_KIND])
    out = tools.execute(
        "write_file",
        {"path": "memory/x.md", "content": MEMORY.format(d="d", b=FRAME_PREAMBLE)},
    )
    assert out.startswith(
        "Error: write_file failed: Refused to write 'memory/x.md': it holds the frame"
    )
    # remember_by_kind: the copied frame refused, the fact beside it saved
    out = tools.execute(
        REMEMBER_BY_KIND,
        {"about_this_work": [FRAME_PREAMBLE, "Yield comes from the MES daily_yield table."]},
    )
    first, second = out.splitlines()[:2]
    assert first.startswith(
        "Fact 1 (about_this_work): Error: remember_by_kind failed: Refused to write"
    )
    assert "Nothing was written" in first
    assert second.startswith("Fact 2 (about_this_work): Remembered memory/yield-comes-from")
    assert FRAME_PREAMBLE not in fs.raw.cat_file("MEMORY.md").decode()
    with pytest.raises(ToolError, match="holds the frame memfs puts around the workspace files"):
        MemFSMemoryTool(fs).call(
            {"command": "create", "path": "/memories/y.md", "file_text": FRAME_PREAMBLE}
        )
    assert not fs.raw.exists("memory/y.md")


RECEIPT = (
    'Refused to write {path!r}: it holds the receipt of an earlier write ("Overwrote '
    'memory/… (N bytes)", "… recorded … (stamped by the workspace)"), which says what that write '
    "stored, which is not a memory. Nothing was written. Write the fact itself, in the user's "
    "words."
)


@pytest.mark.parametrize(
    "body",
    [
        # what the 1.5B model wrote back into the memory it had just saved (the ten-arm run)
        "Overwrote memory/yield-source.md (290 bytes).",
        "user memory 'yield-source', description 'The source is MES.', recorded 2026-12-01 "
        "(stamped by the workspace).",
        "Remembered memory/yield-source.md (412 bytes, type user) and added its line.",
        "project memory 'x', recorded 2026-11-30 (kept from the file).",
    ],
)
def test_a_memory_holding_a_write_receipt_is_refused_and_the_saved_one_kept(body):
    fs = workspace()
    fs.pipe_file("memory/x.md", MEMORY.format(d="MES is the source", b="MES.").encode())
    before = fs.raw.cat_file("memory/x.md")
    with pytest.raises(CopiedTextError) as e:
        fs.pipe_file("memory/x.md", MEMORY.format(d="d", b=body).encode())
    assert str(e.value) == RECEIPT.format(path="memory/x.md")
    assert fs.raw.cat_file("memory/x.md") == before
    again = pickle.loads(pickle.dumps(e.value))
    assert again.what == "receipt" and str(again) == str(e.value)


def test_prose_about_writes_is_stored():
    fs = workspace()
    body = "Overwrote the QA report on Monday (the old one was 290 bytes short)."
    fs.pipe_file("memory/x.md", MEMORY.format(d="d", b=body).encode())
    assert body in fs.raw.cat_file("memory/x.md").decode()
