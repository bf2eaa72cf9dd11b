"""The code type-checks strictly and lints clean: the interfaces between layers are only as good as their types.

Both tools come with the ``test`` extra (``pip install -e '.[test]'``) and
read their settings from pyproject.toml ([tool.mypy] strict, [tool.ruff]).
mypy checks the product and the test kind; ruff checks everything.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("engine", "pbem", "tests/guesskind.py")  # the test kind too: it must keep the interface


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_mypy_strict_finds_nothing() -> None:
    done = run("mypy", *CHECKED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing() -> None:
    """ruff lints the whole tree (product, tests, benchmarks), unused ``noqa`` included (RUF100)."""
    done = run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_type_ignore_without_its_reason() -> None:
    """Every ``type: ignore`` names its error code and says why on its line."""
    bare = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            for folder in CHECKED for path in sorted((ROOT / folder).rglob("*.py") if (ROOT / folder).is_dir()
                                                     else [ROOT / folder])
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if "type: ignore" in line and ("type: ignore[" not in line or line.rstrip().endswith("]"))]
    assert bare == []
