"""The ``memfs`` entry point's less travelled paths, driven in-process: a source tree that was
never installed, a command module that cannot be imported, a listen that fails for a reason
other than a taken port, a closed stdout and Ctrl-C inside a command."""

from __future__ import annotations

import argparse
import errno
import importlib.metadata
import types
from typing import Any

import pytest
from memfs import cli


class _FakeEntryPoint:
    """An entry point whose module is ``module``, or whose import raises ``error``."""

    def __init__(self, name: str, module: Any = None, error: ImportError | None = None) -> None:
        self.name = name
        self.value = f"fake_{name}:module"
        self.group = "memfs.commands"
        self._module = module
        self._error = error

    def load(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._module


def _command(name: str, func: Any) -> types.SimpleNamespace:
    """A command module registering ``name`` with ``func`` as its handler."""

    def register(sub: Any) -> None:
        sub.add_parser(name).set_defaults(func=func)

    return types.SimpleNamespace(register=register)


def _only(monkeypatch: pytest.MonkeyPatch, *eps: _FakeEntryPoint) -> None:
    monkeypatch.setattr(cli, "_entry_points", lambda everyone: list(eps))


def test_version_of_a_source_tree_that_was_never_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_found(_name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(_name)

    monkeypatch.setattr(importlib.metadata, "version", not_found)
    assert cli.version() == "unknown (not installed)"


def test_version_option_beside_a_command_prints_and_exits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(monkeypatch, _FakeEntryPoint("hello", _command("hello", lambda _a: 0)))
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version", "hello"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"memfs {cli.version()}\n"


def test_entry_points_without_an_installed_distribution_are_every_installed_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_found(_name: str) -> Any:
        raise importlib.metadata.PackageNotFoundError(_name)

    monkeypatch.setattr(importlib.metadata, "distribution", not_found)
    names = {ep.name for ep in cli._entry_points(everyone=False)}
    assert names == {ep.name for ep in importlib.metadata.entry_points(group="memfs.commands")}
    assert "cat" in names


def test_a_command_needing_a_missing_extra_parses_and_says_which_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = ModuleNotFoundError("No module named 'litellm'", name="litellm")
    _only(monkeypatch, _FakeEntryPoint("chatty", error=missing))
    parser = cli.build_parser(["chatty"])
    assert "needs the 'litellm' extra" in parser.format_help()
    assert cli.main(["chatty", "some", "words"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("memfs chatty: ")
    assert "litellm" in err
    assert len(err.strip().splitlines()) == 1


def test_a_command_whose_module_is_broken_says_it_cannot_be_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = ImportError("cannot import name 'gone' from 'somewhere'", name="somewhere")
    _only(monkeypatch, _FakeEntryPoint("broken", error=broken))
    help_text = cli.build_parser(["broken"]).format_help()
    assert "cannot be loaded: cannot import name 'gone'" in help_text
    # not an extra: a bug, so the import error keeps its traceback
    with pytest.raises(ImportError, match="cannot import name 'gone'"):
        cli.main(["broken"])


def test_failure_line_of_an_import_no_extra_provides_is_none() -> None:
    assert cli.failure_line(ImportError("nope", name="not_a_memfs_extra")) is None
    line = cli.failure_line(ModuleNotFoundError("No module named 's3fs'", name="s3fs"))
    assert line is not None and "s3" in line


def test_listening_on_an_address_this_host_lacks_says_so() -> None:
    # 192.0.2.0/24 is TEST-NET-1: never an address of this machine, so bind fails with
    # EADDRNOTAVAIL, not EADDRINUSE.
    with pytest.raises(OSError) as exc_info:
        cli.listening_socket("192.0.2.1", 8765)
    assert exc_info.value.errno == errno.EADDRNOTAVAIL
    assert str(exc_info.value).startswith(
        f"[Errno {errno.EADDRNOTAVAIL}] cannot listen on 192.0.2.1:8765: "
    )


def _raising(error: BaseException) -> Any:
    def func(_args: argparse.Namespace) -> int:
        raise error

    return func


def test_stdout_closed_inside_a_command_exits_1_and_points_stdout_at_devnull(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    _only(monkeypatch, _FakeEntryPoint("pipe", _command("pipe", _raising(BrokenPipeError()))))
    target = tmp_path / "stdout"
    with open(target, "w") as out:
        monkeypatch.setattr(cli.sys, "stdout", out)
        assert cli.main(["pipe"]) == cli.EXIT_FAILED
        out.write("after the reader left")
        out.flush()  # goes to devnull now, not the file
    assert target.read_text() == ""


def test_stdout_closed_when_stdout_has_no_descriptor_still_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(monkeypatch, _FakeEntryPoint("pipe", _command("pipe", _raising(BrokenPipeError()))))
    assert cli.main(["pipe"]) == cli.EXIT_FAILED
    assert capsys.readouterr().err == ""


def test_ctrl_c_inside_a_command_exits_130_with_a_newline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(monkeypatch, _FakeEntryPoint("wait", _command("wait", _raising(KeyboardInterrupt()))))
    assert cli.main(["wait"]) == cli.EXIT_INTERRUPTED == 130
    assert capsys.readouterr().err == "\n"
