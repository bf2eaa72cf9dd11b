"""The Dockerfile builds, and ``pbem --version`` runs in the image, as a user other than root.

Needs a container tool (docker, else podman) whose daemon answers; without
one the test is skipped, saying why — also under ``CI=true``: CI machines are
not asked to install a container engine for this one check. The Dockerfile's
own lines (non-root user, the volume, the health check) are checked from the
text everywhere.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import pbem

ROOT = Path(__file__).resolve().parents[2]
TAG = "pbem-test"


def container_tool() -> str:
    """The docker (or podman) command whose daemon answers; skips the test, saying why, when there is none."""
    reasons = []
    for name in ("docker", "podman"):
        path = shutil.which(name)
        if path is None:
            reasons.append(f"{name} is not installed")
            continue
        try:
            info = subprocess.run([path, "info"], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            reasons.append(f"`{name} info` did not answer within 60 s")
            continue
        if info.returncode == 0:
            return path
        detail = (info.stderr.strip().splitlines() or ["no reason given"])[-1]
        reasons.append(f"`{name} info` failed: {detail}")
    pytest.skip("no container tool here: " + "; ".join(reasons) + " (skipped under CI=true too: CI installs no "
                "container engine)")


def test_the_dockerfile_runs_pbem_unprivileged_with_its_data_on_a_volume() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "FROM python:3.11-slim" in text
    assert "VOLUME /data" in text and "PBEM_CONFIG=/data/pbem.toml" in text
    assert "PBEM_DATABASE_URL=sqlite:////data/pbem.db" in text
    assert 'ENTRYPOINT ["pbem"]' in text and 'CMD ["run"]' in text
    assert 'CMD ["pbem", "status", "--no-games"]' in text  # the health check
    users = [line.split()[1] for line in text.splitlines() if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", ".git", "*.db", "pbem.toml"} <= set(ignored)  # no secrets in the build context


def test_the_image_builds_and_tells_its_version() -> None:
    tool = container_tool()
    version = pbem.__version__  # pyproject.toml takes it from there
    build = subprocess.run([tool, "build", "-t", TAG, str(ROOT)], capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    run = subprocess.run([tool, "run", "--rm", TAG, "--version"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"pbem {version} (database schema ")
    who = subprocess.run([tool, "run", "--rm", "--entrypoint", "id", TAG, "-u"], capture_output=True, text=True,
                         timeout=300)
    assert who.returncode == 0 and who.stdout.strip() not in ("", "0"), who.stdout + who.stderr


def test_every_docker_run_the_dockerfile_shows_mounts_the_configuration() -> None:
    """The image holds no pbem.toml (.dockerignore) and the volume gets none by itself: a ``docker run`` in
    the Dockerfile's comment without ``-v ...pbem.toml:/data/pbem.toml`` starts a moderator with no
    configuration (docs/running.md's lines have it)."""
    comment = [line.lstrip("#").strip() for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
               if line.startswith("#")]
    text = "\n".join(comment).replace("\\\n", " ")  # a command goes on after a backslash
    runs = [line for line in text.splitlines() if line.startswith("docker run")]
    assert len(runs) >= 2
    assert [run for run in runs if ":/data/pbem.toml" not in run] == []
