"""Where `make install` takes PyTorch from (tools/torch_index.py): TORCH_INDEX
where given, pip's own wheelhouse or mirror where one is configured, else
PyTorch's CPU index (on Linux, PyPI's torch is the multi-GB CUDA build); and
`make torch-wheel`'s report of the wheel pip would choose."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "tools" / "torch_index.py"
spec = importlib.util.spec_from_file_location("torch_index", SCRIPT)
torch_index = importlib.util.module_from_spec(spec)
spec.loader.exec_module(torch_index)

CPU = ["--index-url", "https://download.pytorch.org/whl/cpu"]


def test_torch_index_given_wins():
    sources = torch_index.configured_sources("global.find-links='/opt/wheels'\n", {})
    options, reason = torch_index.torch_options("https://download.pytorch.org/whl/cu128",
                                                sources)
    assert options == ["--index-url", "https://download.pytorch.org/whl/cu128"]
    assert reason == "TORCH_INDEX"


@pytest.mark.parametrize("config_list, environ", [
    ("global.find-links='/opt/wheels'\n", {}),                       # a wheelhouse in pip.conf
    ("global.index-url='https://mirror.example/simple'\n", {}),       # a mirror in pip.conf
    ("user.extra-index-url='file:///srv/pypi/simple'\n", {}),
    ("global.no-index='true'\n", {}),
    ("global.cert='/etc/ssl/certs/ca.crt'\n", {"PIP_FIND_LINKS": "/srv/wheels"}),
    ("", {"PIP_INDEX_URL": "https://mirror.example/simple"}),
])
def test_a_configured_wheelhouse_or_mirror_keeps_working(config_list, environ):
    sources = torch_index.configured_sources(config_list, environ)
    options, reason = torch_index.torch_options("", sources)
    assert sources and options == []  # pip installs torch as it is configured
    assert "configured package source" in reason


@pytest.mark.parametrize("config_list, environ", [
    ("", {}),
    ("global.cert='/etc/ssl/certs/ca.crt'\nglobal.timeout='60'\n",
     {"PIP_DEFAULT_TIMEOUT": "180", "PIP_NO_INDEX": "false", "PIP_FIND_LINKS": " "}),
    (":env:.default-timeout='180'\n", {}),
])
def test_nothing_configured_takes_the_cpu_index(config_list, environ):
    sources = torch_index.configured_sources(config_list, environ)
    options, reason = torch_index.torch_options("", sources)
    assert sources == [] and options == CPU
    assert "CPU index" in reason


def test_the_makefile_installs_torch_with_the_chosen_options():
    result = subprocess.run(["make", "-n", "install-package", "torch-wheel",
                             "TORCH_INDEX=https://example.org/whl"], cwd=REPO,
                            capture_output=True, text=True, check=True)
    assert ('tools/torch_index.py options --torch-index "https://example.org/whl"'
            in result.stdout)
    assert 'pip install --quiet $options "torch==' in result.stdout
    assert 'tools/torch_index.py wheel --torch-index "https://example.org/whl"' in result.stdout


def fake_wheel(folder: Path, version: str, requires: list[str]) -> Path:
    """A minimal torch wheel (metadata only) for pip to resolve."""
    name = f"torch-{version}-py3-none-any.whl"
    info = f"torch-{version.partition('+')[0]}.dist-info"
    metadata = "Metadata-Version: 2.1\nName: torch\nVersion: " + version + "\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(folder / name, "w") as whl:
        whl.writestr(f"{info}/METADATA", metadata)
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                     "Root-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return folder / name


@pytest.mark.parametrize("version, requires, build", [
    ("2.13.0+cpu", ["filelock"], "(CPU build)"),
    ("2.13.0", ["filelock", "nvidia-cuda-runtime-cu12==12.8.90; platform_system == 'Linux'"],
     "(CUDA/ROCm build"),
])
def test_torch_wheel_reports_the_wheel_pip_would_choose(tmp_path, version, requires, build):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    path = fake_wheel(wheels, version, requires)
    # only this wheelhouse: no pip.conf of the machine, no index
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    result = subprocess.run([sys.executable, str(SCRIPT), "wheel", "torch==2.13.0"],
                            capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith(f"torch {version} {build}"), line
    assert line.endswith(path.name.replace("+", "%2B")), line
    assert "--dry-run --no-deps --ignore-installed --quiet --report -" in result.stderr
    assert f"configured package source (PIP_FIND_LINKS={wheels}; PIP_NO_INDEX=1)" in result.stderr


def test_torch_wheel_names_a_requirement_pip_cannot_find(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path)}
    result = subprocess.run([sys.executable, str(SCRIPT), "wheel", "torch==2.13.0"],
                            capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith(
        "error: pip cannot find torch==2.13.0: ")
    assert "Traceback" not in result.stderr
