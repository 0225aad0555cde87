"""Optional extras: a missing one is named, with the command that installs it."""

from __future__ import annotations

import sys

import pytest
from memfs import MissingExtraError
from memfs.extras import DISTRIBUTION, PROVIDED_BY, extra_for, require


def test_require_returns_the_module_when_it_imports() -> None:
    json_module = require("plot", "json")
    assert json_module is sys.modules["json"]


def test_require_names_the_extra_and_the_missing_top_level_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("s3fs", "s3fs.core"):  # as if the s3 extra were not installed
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingExtraError) as caught:
        require("s3", "s3fs.core")
    err = caught.value
    assert (err.extra, err.missing, err.name) == ("s3", "s3fs", "s3fs")
    assert isinstance(err, ImportError) and isinstance(err.__cause__, ImportError)
    assert str(err) == (
        "this needs the 's3' extra, and 's3fs' is not installed. Install it with "
        f"`pip install '{DISTRIBUTION}[s3]'` (in a checkout: `make sync`, which installs every "
        "extra)."
    )


def test_require_of_a_module_that_does_not_exist_names_that_module() -> None:
    with pytest.raises(MissingExtraError) as caught:
        require("mcp", "memfs_no_such_module.sub")
    assert caught.value.missing == "memfs_no_such_module"
    assert "'memfs_no_such_module' is not installed" in str(caught.value)


def test_an_import_error_without_a_name_is_named_after_the_module_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def nameless(name: str) -> None:
        raise ImportError("something inside it failed")

    monkeypatch.setattr("importlib.import_module", nameless)
    with pytest.raises(MissingExtraError) as caught:
        require("litellm", "litellm.utils")
    assert caught.value.missing == "litellm"


def test_extra_for_reads_the_extra_off_a_missing_extra_error() -> None:
    assert extra_for(MissingExtraError("anthropic", "anthropic")) == "anthropic"


@pytest.mark.parametrize(("module", "extra"), sorted(PROVIDED_BY.items()))
def test_extra_for_maps_each_provided_module_and_its_submodules(module: str, extra: str) -> None:
    assert extra_for(ImportError("gone", name=module)) == extra
    assert extra_for(ImportError("gone", name=f"{module}.sub.deeper")) == extra


def test_extra_for_reads_fsspec_s_install_hint_when_the_error_has_no_name() -> None:
    # what fsspec raises for s3:// without s3fs: a message, no module name
    assert extra_for(ImportError("Install s3fs to access S3")) == "s3"


def test_extra_for_is_none_for_a_module_no_extra_provides() -> None:
    assert extra_for(ImportError("No module named 'yaml'", name="yaml")) is None
    assert extra_for(ImportError("cannot import name 'x'")) is None
    # a mention of a module is not the install hint: only "Install <module> " counts
    assert extra_for(ImportError("s3fs failed to initialise")) is None
