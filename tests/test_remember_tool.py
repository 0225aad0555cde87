"""The structured memory tool ``remember`` and the argument repairs of the tool layer."""

from __future__ import annotations

import datetime as dt
import functools
import json
from types import SimpleNamespace
from typing import Any

import pytest
from memfs import (
    REMEMBER,
    REMEMBER_TOOL,
    AgentManifest,
    FileToolExecutor,
    InMemoryFileStore,
    MemFS,
    file_tool_schemas,
    parse_memory,
    repair_arguments,
    safe_memory_name,
)
from memfs.prompt import appendix_a
from memfs.records import MEMORY_TYPES
from memfs.tools import RememberArgs, WriteFileArgs

from memfs_eval.arms import parse_arm
from memfs_eval.harness import load_results, run_eval
from memfs_eval.report import RunConfig
from memfs_eval.scenario import load_scenarios
from memfs_litellm import TurnOptions, run_turn
from memfs_litellm.runner import asks_to_remember
from tests.conftest import CallingModel

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


@pytest.mark.parametrize(
    "name", ["remember", "Remember", "memory/remember.md", "write_file", "write-file", "exists"]
)
def test_a_tool_name_as_the_memory_name_is_replaced_by_one_made_from_the_fact(name):
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    out = ex.execute(
        REMEMBER, {"name": name, "description": "MES is the yield source", "type": "project"}
    )
    assert out.startswith("Remembered memory/mes-is-the-yield-source.md"), out
    assert (
        out.endswith(f"Repaired arguments: {name!r} is the tool ") or "named after the fact" in out
    )
    assert text(fs, "MEMORY.md").startswith("- [MES is the yield source](")
    ok = ex.execute(REMEMBER, {"name": "remember-me", "description": "d", "type": "user"})
    assert ok.startswith("Remembered memory/remember-me.md")  # only the whole name is a tool's
    assert "Repaired" not in ok


def test_a_tool_name_with_no_fact_to_name_it_after_is_refused_with_what_to_do():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    for description in ("remember", "…"):
        out = ex.execute(REMEMBER, {"name": "remember", "description": description, "type": "user"})
        assert out.startswith("Error: 'remember' is the name of the tool remember"), out
        assert "name the fact after what it holds" in out and "\n" not in out
    assert fs.ls("", detail=False) == []  # nothing written: no memory file, no index


def test_the_turns_other_tools_are_not_taken_as_a_memory_name_either():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS, other_tools=["save_skill", "create_context_card"])
    for n, name in enumerate(("save_skill", "save-skill", "memory/create_context_card.md"), 1):
        out = ex.execute(
            REMEMBER, {"name": name, "description": "churn on paying", "type": "project"}
        )
        suffix = "" if n == 1 else f"-{n}"
        assert out.startswith(f"Remembered memory/churn-on-paying{suffix}.md"), out
        assert "named after the fact" in out
    assert not fs.exists("memory/save-skill.md")
    plain = FileToolExecutor(fs, tools=TOOLS)  # no other tools named: only the file tools' names
    assert plain.execute(
        REMEMBER, {"name": "save_skill", "description": "d", "type": "user"}
    ).startswith("Remembered memory/save-skill.md")


def test_help_text_as_the_description_or_hook_is_replaced_by_the_body():
    # seen from a real 1.5B model forced to call the tool: the schema's words in the
    # description and the name, the user's fact in the body
    fs = workspace()
    body = "The yield source is the MES daily_yield table. The weekly QA report rounds."
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {
            "name": "remember",
            "description": RememberArgs.model_fields["description"].description,
            "hook": RememberArgs.model_fields["hook"].description,
            "type": "project",
            "body": body,
        },
    )
    rel = "memory/the-yield-source-is-the.md"
    assert out.startswith(f"Remembered {rel}"), out
    assert "the description was this tool's help text" in out and "the hook was" in out
    record = parse_memory(fs.raw.cat_file(rel), rel)
    assert record.description == "The yield source is the MES daily_yield table."
    assert record.body.strip() == body
    assert text(fs, "MEMORY.md") == (
        f"- [The yield source is the]({rel}) — The yield source is the MES daily_yield table.\n"
    )


def test_a_sentence_of_the_memory_instructions_as_the_hook_is_replaced_by_the_description():
    fs = workspace()
    copied = "Who the user is (role, expertise, preferences)."
    assert copied.lower()[:-1] in " ".join(appendix_a().lower().split())
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {
            "name": "yield-source",
            "description": "The yield source is the MES daily_yield table",
            "hook": copied,
            "type": "project",
            "body": "The yield source is the MES daily_yield table.",
        },
    )
    assert out.startswith("Remembered memory/yield-source.md"), out
    assert "the hook was a sentence of the memory instructions" in out
    assert text(fs, "MEMORY.md") == (
        "- [yield-source](memory/yield-source.md) — The yield source is the MES daily_yield table\n"
    )
    # A hook of the item's own words is kept, even beside instruction words it shares.
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {
            "name": "user-role",
            "description": "The user is the plant's QA lead",
            "hook": "who the user is: QA lead",
            "type": "user",
        },
    )
    assert "Repaired" not in out and "who the user is: QA lead" in text(fs, "MEMORY.md")


def test_a_platform_turn_tells_remember_the_platform_tools_names():
    """Plumbing: the runner hands the turn's tool names to the executor (a scripted model)."""

    def model(**kwargs: Any) -> dict[str, Any]:
        if any(m["role"] == "tool" for m in kwargs["messages"]):
            message: dict[str, Any] = {"role": "assistant", "content": "ok"}
        else:
            args = {"name": "save_skill", "description": "churn on paying accounts", "type": "user"}
            fn = {"name": REMEMBER, "arguments": json.dumps(args)}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c0", "type": "function", "function": fn}],
            }
        return {"choices": [{"message": message, "finish_reason": "stop"}]}

    fs = workspace()
    result = run_turn(
        model="scripted",
        fs=fs,
        manifest=AgentManifest(),
        user_message="Remember: churn is on paying accounts only.",
        completion=model,
        options=TurnOptions(tools="platform", memory_tools="files+remember"),
    )
    (call,) = result.tool_calls
    assert call.result.startswith("Remembered memory/churn-on-paying-accounts.md"), call.result
    assert "'save_skill' is the tool save_skill's name" in call.result
    assert not fs.exists("memory/save-skill.md")


@pytest.mark.parametrize("field", ["description", "body"])
@pytest.mark.parametrize("source", ["tool", "name", "description", "body", "hook"])
def test_the_tools_own_help_text_copied_back_is_refused(field, source):
    help_text = (
        REMEMBER_TOOL.description
        if source == "tool"
        else RememberArgs.model_fields[source].description
    )
    assert help_text
    args = {"name": "yield-source", "description": "MES is the yield source", "type": "user"}
    args[field] = help_text
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(REMEMBER, args)
    assert out.startswith(f"Error: The {field} is this tool's own help text copied back")
    assert not fs.exists("memory/yield-source.md") and not fs.exists("MEMORY.md")


def test_a_cut_or_respaced_copy_is_refused_and_a_fact_sharing_words_is_not():
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    cut = "One line saying what this memory holds; a later turn decides from it whether to…"
    out = ex.execute(REMEMBER, {"name": "churn", "description": cut, "type": "user"})
    assert out.startswith("Error: The description is this tool's own help text")
    spaced = "  ONE line saying what   this memory holds; a later turn\ndecides from it  "
    out = ex.execute(REMEMBER, {"name": "churn", "description": spaced, "type": "user"})
    assert out.startswith("Error: The description")
    # A real fact that happens to share a phrase with the help text is stored.
    for description in ("how the user wants the work done", "the user"):
        out = ex.execute(
            REMEMBER, {"name": "style", "description": description, "type": "feedback"}
        )
        assert out.startswith("Remembered memory/style"), out


def test_remember_is_offered_only_when_named_and_says_one_fact_per_call():
    assert REMEMBER not in [s["function"]["name"] for s in file_tool_schemas()]
    (schema,) = file_tool_schemas([REMEMBER])
    fn = schema["function"]
    assert "ONE fact" in fn["description"] and "once per fact" in fn["description"]
    assert fn["parameters"]["required"] == ["name", "description", "type"]
    field = fn["parameters"]["properties"]["type"]
    # every type, listed in the order the help describes them (the most common first)
    assert field["enum"] == ["project", "user", "feedback", "reference"]
    assert set(field["enum"]) == set(MEMORY_TYPES)
    described = [part.split(":")[0] for part in field["description"].split("; ")]
    assert described == field["enum"]
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


# -- the arms that offer it (scripted model: plumbing only) ----------------------------------


def remembering_model() -> CallingModel:
    """Saves the two facts of s45-write with two remember calls, then tries write_file on a
    memory path."""
    return CallingModel(
        [
            (
                "remember",
                {
                    "name": "yield source",
                    "description": "Yield: MES daily_yield",
                    "type": "project",
                    "body": "Use MES daily_yield, not the QA report.",
                },
            ),
            (
                "remember",
                {
                    "name": "user role",
                    "description": "The user is a process engineer",
                    "metadata.type": "user",
                    "body": ["I am a process engineer."],
                },
            ),
            ("write_file", {"path": "memory/extra.md", "content": "x"}),
        ]
    )


def test_arms_offer_remember_refuse_memory_paths_and_force_the_first_step(tmp_path):
    model = remembering_model()
    arms = [
        parse_arm("default=prompt=full"),
        parse_arm("r=memory=files+remember"),
        parse_arm("o=memory=remember,tools=files-only"),
        parse_arm("f=memory=files+remember,force=on"),
    ]
    scenarios = load_scenarios(["s45-write-en"])
    report = run_eval(
        RunConfig(model="scripted", n=1, scenarios=["s45-write-en"], arms=arms, max_steps=5),
        scenarios,
        tmp_path / "run",
        turn_runner=functools.partial(run_turn, completion=model),
        system_prompt="You are the app.",
        now=lambda: dt.datetime(2026, 12, 2, tzinfo=dt.UTC),
    )
    by_arm = {r.record.arm: r for r in load_results(tmp_path / "run")}
    assert by_arm["default"].verdict.outcome == "invalid_memory"  # only extra.md landed
    assert by_arm["default"].record.tool_calls[0].result.startswith("Error: unknown tool")
    assert by_arm["o"].verdict.outcome == "memory_written", by_arm["o"].verdict.checks
    for arm in ("r", "f"):  # both facts landed; only the extra file written as text fails
        (invalid,) = [c for c in by_arm[arm].verdict.checks if c.klass == "invalid_memory"]
        assert invalid.hit and invalid.detail.startswith("memory/extra.md:")
        # the strict-YAML view, reported beside validity, names the same file and no other
        (strict,) = [c for c in by_arm[arm].verdict.checks if c.klass == "yaml_strict_invalid"]
        assert strict.hit and strict.detail.startswith("memory/extra.md:")
        assert "memory/yield-source.md" not in strict.detail
        (valid,) = [c for c in by_arm[arm].verdict.checks if c.klass == "valid_memory_file"]
        assert valid.hit and "memory/yield-source.md" in valid.detail
        (indexed,) = [c for c in by_arm[arm].verdict.checks if c.klass == "indexed_memory_file"]
        assert indexed.hit and indexed.detail == valid.detail  # its index line was written
        kept = {"invalid_memory", "yaml_strict_invalid", "valid_memory_file", "indexed_memory_file"}
        assert not any(c.hit for c in by_arm[arm].verdict.checks if c.klass not in kept)
    assert "memory/extra.md" in by_arm["r"].record.after
    assert "memory/extra.md" not in by_arm["o"].record.after
    assert "here memory is saved with remember" in by_arm["o"].record.tool_calls[2].result
    offered = {r.record.arm: r.record.offered_tools for r in by_arm.values()}
    assert "remember" not in offered["default"] and len(offered["o"]) == 7
    assert offered["r"][:7] == [
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "exists",
        "delete_file",
        "remember",
    ]
    # per arm, in order: default 2 requests, r 4, o 4, f 4; only f's first one is forced
    forced = [r.get("tool_choice") for r in model.requests]
    assert forced[-4:] == [{"type": "function", "function": {"name": "remember"}}, None, None, None]
    assert all(f is None for f in forced[:-4])
    assert [a.description for a in report.arms][1:] == [
        "prompt=full, tools=platform, memory=files+remember, levers=read+receipt+loop",
        "prompt=full, tools=files-only, memory=remember, levers=read+receipt+loop",
        "prompt=full, tools=platform, memory=files+remember, force=on, levers=read+receipt+loop",
    ]


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("Two things to remember: (1) …", True),
        ("Please don't forget that the cut-off is Friday.", True),
        ("有兩件事請你記住：", True),
        ("这两点请记得", True),
        ("これを覚えておいて", True),
        ("What is the yield source?", False),
    ],
)
def test_asks_to_remember(message, asks):
    assert asks_to_remember(message) is asks
    assert parse_arm("f=memory=remember,force=on").first_tool(message) == (
        "remember" if asks else None
    )


def test_arm_options_for_remember_and_their_errors():
    assert parse_arm("x=memory=remember").memory_tools == "remember"
    assert parse_arm("x=memory=remember,force=on").force_remember
    with pytest.raises(ValueError, match=r"^--arm c: force=on forces the remember tool"):
        parse_arm("c=force=on")
    with pytest.raises(ValueError, match=r"memory='x'; use one of files, files\+remember"):
        parse_arm("d=memory=x")
    with pytest.raises(ValueError, match="memory_tools must be one of"):
        TurnOptions(memory_tools="all")  # type: ignore[arg-type]


# -- the other surfaces: MCP and the Anthropic adapter ---------------------------------------


def test_the_mcp_server_serves_remember_on_a_writable_mount_only():
    pytest.importorskip("mcp")
    import anyio
    import mcp_types as types

    from memfs_mcp import server

    fs = workspace()
    state = server.ServerState.of(fs)
    assert REMEMBER in state.served
    ann = server.tool_annotations(REMEMBER)
    assert ann.read_only_hint is False and ann.destructive_hint is False
    assert REMEMBER not in server.ServerState.of(fs.read_only()).served
    params = types.CallToolRequestParams(
        name=REMEMBER,
        arguments={"name": "role", "description": "d", "metadata": {"type": "user"}},
    )
    session = SimpleNamespace(client_params=SimpleNamespace(client_info=None))

    async def go() -> Any:
        context: Any = SimpleNamespace(session=session)  # the one attribute call_tool reads
        return await server.call_tool(state, context, params)

    result = anyio.run(go)
    assert result.is_error is False
    assert result.content[0].text.startswith("Remembered memory/role.md")
    assert "Repaired arguments: metadata.type read as top-level." in result.content[0].text
    assert text(fs, "MEMORY.md") == "- [role](memory/role.md) — d\n"
    params = types.CallToolRequestParams(
        name=REMEMBER, arguments={"name": "remember", "description": "remember", "type": "user"}
    )
    refused = anyio.run(go)
    assert refused.is_error is True
    assert "is the name of the tool remember" in refused.content[0].text


def test_the_anthropic_remember_tool_runs_memfs_remember():
    pytest.importorskip("anthropic")
    from anthropic.lib.tools import ToolError

    from memfs_anthropic import remember_tool

    fs = workspace()
    tool = remember_tool(fs)
    spec = tool.to_dict()
    assert spec["name"] == REMEMBER and "ONE fact" in spec["description"]
    assert spec["input_schema"]["required"] == ["name", "description", "type"]
    out = tool.call({"name": "Yield source", "description": "d", "type": "project", "body": "b"})
    assert isinstance(out, str)
    assert out.startswith("Remembered memory/yield-source.md")
    assert fs.exists("memory/yield-source.md")
    with pytest.raises(ToolError, match=r"^Error: Invalid arguments for remember"):
        tool.call({"name": "x"})
    with pytest.raises(ToolError, match="read-only"):
        remember_tool(fs.read_only()).call({"name": "x", "description": "d", "type": "user"})
    with pytest.raises(ToolError, match=r"^Error: 'remember' is the name of the tool remember"):
        tool.call({"name": "remember", "description": "remember", "type": "user"})


def test_a_long_first_sentence_is_cut_at_a_word_for_the_description():
    fs = workspace()
    body = (
        "The yield source is the MES daily_yield table, " + "not the weekly report, " * 8 + "end."
    )
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {
            "name": "yield-source",
            "description": RememberArgs.model_fields["description"].description,
            "type": "project",
            "body": body,
        },
    )
    assert out.startswith("Remembered memory/yield-source.md"), out
    description = parse_memory(fs.raw.cat_file("memory/yield-source.md"), "").description
    assert description is not None and description.endswith(" the…")
    assert len(description) <= 151 and body.startswith(description[:-1])


def test_the_same_fact_sent_again_under_a_taken_name_is_not_stored_twice():
    # a real 1.5B model, forced to call remember, sent one fact four times, each time under
    # the name the last result gave it
    fs = workspace()
    ex = FileToolExecutor(fs, tools=TOOLS)
    args = {"name": "yield-source", "description": "MES", "type": "project", "body": "MES."}
    assert ex.execute(REMEMBER, args).startswith("Remembered memory/yield-source.md")
    again = ex.execute(REMEMBER, {**args, "description": "the yield source is MES"})
    assert again.startswith("Already remembered: memory/yield-source.md holds this fact")
    assert fs.find("memory") == ["memory/yield-source.md"]
    assert text(fs, "MEMORY.md").count("\n") == 1
    other = ex.execute(REMEMBER, {**args, "body": "The QA report rounds."})  # another fact
    assert other.startswith("Remembered memory/yield-source-2.md")


def test_a_name_taken_by_a_file_gone_again_is_passed_over_for_the_next(monkeypatch):
    # the create lost to another writer's file, which that writer deleted before the read
    from memfs import PathConflictError

    fs = workspace()
    real_save = MemFS.save

    def save(self: MemFS, path: str, data: bytes, **kwargs: Any) -> bytes:
        if path == "memory/yield-source.md":
            raise PathConflictError(path, None, None)
        return real_save(self, path, data, **kwargs)

    monkeypatch.setattr(MemFS, "save", save)
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER, {"name": "yield-source", "description": "MES", "type": "project", "body": "x"}
    )
    assert out.startswith("Remembered memory/yield-source-2.md"), out


def test_a_result_says_the_type_it_stored():
    fs = workspace()
    out = FileToolExecutor(fs, tools=TOOLS).execute(
        REMEMBER,
        {"name": "yield-source", "description": "MES is the yield source", "type": "project"},
    )
    assert out.startswith("Remembered memory/yield-source.md (")
    assert ", type project) and added its line to MEMORY.md" in out
