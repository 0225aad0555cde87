"""The structured memory tool ``remember`` and the argument repairs of the tool layer."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from memfs import (
    REMEMBER,
    FileToolExecutor,
    InMemoryFileStore,
    MemFS,
    file_tool_schemas,
    parse_memory,
    repair_arguments,
    safe_memory_name,
)
from memfs.tools import RememberArgs, WriteFileArgs

TODAY = dt.date(2026, 12, 1)
TOOLS = ["read_file", "write_file", "edit_file", "delete_file", REMEMBER]


def workspace() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY)


def text(fs: MemFS, path: str) -> str:
    return fs.raw.cat_file(path).decode("utf-8")


def test_remember_writes_one_parseable_memory_and_its_index_line_in_one_call():
    fs = workspace()
    fs.pipe_file("MEMORY.md", b"- [Hub purpose](memory/hub-purpose.md) - what this hub tracks")
    ex = FileToolExecutor(fs, tools=TOOLS)
    out = ex.execute(
        REMEMBER,
        {
            "name": "Yield source",
            "description": "Yield: from the MES daily_yield table",  # ': ' needs quoting
            "type": "Project",
            "body": "The authoritative yield source is MES daily_yield, not the QA report.",
            "hook": "MES daily_yield, not QA weekly",
        },
    )
    assert out.startswith("Remembered memory/yield-source.md (")
    record = parse_memory(text(fs, "memory/yield-source.md"), "memory/yield-source.md")
    assert record.frontmatter_read == "yaml" and not record.drift
    assert (record.name, record.type) == ("yield-source", "project")
    assert record.description == "Yield: from the MES daily_yield table"
    assert record.recorded == TODAY  # stamped by the filesystem, not sent
    assert "recorded 2026-12-01 (stamped by the workspace)" in out
    assert record.body == "The authoritative yield source is MES daily_yield, not the QA report.\n"
    assert text(fs, "MEMORY.md").splitlines() == [
        "- [Hub purpose](memory/hub-purpose.md) - what this hub tracks",
        "- [Yield source](memory/yield-source.md) — MES daily_yield, not QA weekly",
    ]


def test_a_taken_name_gets_a_new_file_never_an_overwrite():
    fs = workspace()
    fs.pipe_file("memory/user-role.md", b"---\nname: user-role\n---\nkeep me\n")
    ex = FileToolExecutor(fs, tools=TOOLS)
    out = ex.execute(REMEMBER, {"name": "user role", "description": "d", "type": "user"})
    assert "Remembered memory/user-role-2.md (memory/user-role.md was taken)" in out
    assert text(fs, "memory/user-role.md").endswith("keep me\n")
    assert parse_memory(text(fs, "memory/user-role-2.md")).name == "user-role-2"
    ex.execute(REMEMBER, {"name": "user role", "description": "d", "type": "user"})
    assert fs.exists("memory/user-role-3.md")
    # the hook defaults to the description; an index without a final newline gets one
    assert text(fs, "MEMORY.md").splitlines()[-1] == "- [user role](memory/user-role-3.md) — d"


def test_every_name_taken_is_refused(monkeypatch):
    monkeypatch.setattr("memfs.tools.MAX_NAME_TRIES", 2)
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    for _ in range(2):
        ex.execute(REMEMBER, {"name": "x", "description": "d", "type": "user"})
    out = ex.execute(REMEMBER, {"name": "x", "description": "d", "type": "user"})
    assert out == (
        "Error: memory/x.md and 1 numbered names after it are taken; give this memory another name."
    )


def test_remember_checks_its_arguments_and_the_read_only_mount():
    fs = workspace()
    bad = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER, {"name": "a", "description": "d", "type": "idea"}
    )
    assert bad.startswith("Error: Invalid arguments for remember: 'type':")
    ro = FileToolExecutor(fs.read_only(), tools=TOOLS).execute(
        REMEMBER, {"name": "a", "description": "d", "type": "user"}
    )
    assert ro.startswith("Error:") and "read-only" in ro
    assert not fs.exists("memory/a.md") and not fs.exists("MEMORY.md")


def test_remember_goes_through_the_credential_guard():
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {
            "name": "token",
            "description": "d",
            "type": "reference",
            "body": "token ghp_R3xT9qLm2VbN8kYc4WzHf7JdPs6AeGu1Xo5i",
        },
    )
    assert out.startswith("Error:")
    assert not fs.exists("memory/token.md")


def test_remember_is_offered_only_when_named_and_says_one_fact_per_call():
    assert REMEMBER not in [s["function"]["name"] for s in file_tool_schemas()]
    (schema,) = file_tool_schemas([REMEMBER])
    fn = schema["function"]
    assert "ONE fact" in fn["description"] and "once per fact" in fn["description"]
    assert fn["parameters"]["required"] == ["name", "description", "type"]
    assert fn["parameters"]["properties"]["type"]["enum"] == [
        "user",
        "feedback",
        "project",
        "reference",
    ]
    with pytest.raises(ValueError, match="remember"):
        file_tool_schemas(["recall"])


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("Yield source", "yield-source"),
        ("item purpose", "item-purpose"),
        ("user_role", "user-role"),
        ("../../etc/passwd", "etc-passwd"),
        ("  --  ", "memory"),
        ("製程 工程師", "製程-工程師"),
        ("Ｆｕｌｌ　width", "full-width"),
        ("x" * 80, "x" * 60),
    ],
)
def test_safe_memory_name(name, stem):
    assert safe_memory_name(name) == stem


def test_refusal_of_an_unread_overwrite_suggests_a_safe_kebab_name():
    fs = workspace()
    fs.pipe_file("memory/purpose.md", b"---\nname: purpose\ndescription: old\n---\nold\n")
    ex = FileToolExecutor(fs)
    out = ex.execute(
        "write_file",
        {"path": "memory/purpose.md", "content": "---\nname: item purpose\n---\nnew\n"},
    )
    assert "write a new file such as memory/item-purpose.md;" in out
    assert "item purpose.md" not in out


def test_memory_file_writes_off_refuses_the_file_tools_on_memory_paths_only():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS, memory_file_writes=False)
    for name, args in [
        ("write_file", {"path": "memory/a.md", "content": "x"}),
        ("edit_file", {"path": "MEMORY.md", "old_string": "a", "new_string": "b"}),
        ("delete_file", {"path": "/memory/b.md"}),
    ]:
        out = ex.execute(name, args)
        assert out.startswith("Error: ") and "here memory is saved with remember" in out
        assert f"{name} was not run" in out
    assert ex.execute("write_file", {"path": "notes.txt", "content": "x"}).startswith("Created")
    assert ex.execute(REMEMBER, {"name": "a", "description": "d", "type": "user"}).startswith(
        "Remembered memory/a.md"
    )


# -- argument repairs -----------------------------------------------------------------------


def test_repairs_are_made_once_and_reported_in_the_result():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    inner = json.dumps(
        {"name": "role", "metadata.type": "user", "description": "d", "body": ["a", "b"]}
    )
    out = ex.execute(REMEMBER, json.dumps(inner))
    assert out.startswith("Remembered memory/role.md")
    assert out.endswith(
        "Repaired arguments: the arguments were a JSON string inside a string; decoded twice; "
        "'metadata.type' read as 'type'; 'body' was a list of lines; joined."
    )
    assert parse_memory(text(fs, "memory/role.md")).body == "a\nb\n"
    # the file tools get the same repairs
    out = ex.execute("write_file", {"path": "notes.md", "content": ["x", "y"]})
    assert out.endswith("Repaired arguments: 'content' was a list of lines; joined.")
    assert text(fs, "notes.md") == "x\ny"
    read = ex.execute("read_file", {"args": {"path": "notes.md"}})
    assert (
        read == "x\ny\nRepaired arguments: the fields were wrapped in 'args'; read from inside it."
    )


def test_repair_arguments_shapes():
    assert repair_arguments(None, RememberArgs) == (None, [])
    assert repair_arguments("not json", RememberArgs) == ("not json", [])
    assert repair_arguments('"just text"', RememberArgs) == ('"just text"', [])
    wrapped = {"memory": json.dumps({"name": "n", "type": "user"})}
    assert repair_arguments(wrapped, RememberArgs) == (
        {"name": "n", "type": "user"},
        ["the fields were wrapped in 'memory'; read from inside it"],
    )
    nested = {"name": "n", "metadata": {"type": "user", "other": 1}}
    assert repair_arguments(nested, RememberArgs) == (
        {"name": "n", "metadata": {"type": "user", "other": 1}, "type": "user"},
        ["metadata.type read as top-level"],
    )
    # a dotted key whose field is already given, a list that is not of lines: left alone
    kept = {"type": "user", "metadata.type": "project", "body": [1, 2], "name": "n"}
    assert repair_arguments(kept, RememberArgs) == (kept, [])
    assert repair_arguments({"path": "p", "text": ["a"]}, WriteFileArgs) == (
        {"path": "p", "text": "a"},
        ["'text' was a list of lines; joined"],
    )
