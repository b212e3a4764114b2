"""The house's layers (.importlinter): the contract holds, names every module,
catches an upward import, and keeps the Snakefile's imports and start-up checks
light."""

from __future__ import annotations

import configparser
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "phrasenmt"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
# What a Snakemake start must not load unless a rule needs it (pandas, plotting,
# BLEU and BPE are the report's and the stages' business).
HEAVY = ("torch", "pandas", "sacrebleu", "subword_nmt", "matplotlib")


def lint_imports(cwd: Path, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess:
    """`lint-imports` on the contracts of `cwd`'s .importlinter."""
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False,
                          timeout=300)


def layer_names() -> set[str]:
    """Every module the layers contract names, without the optional marks."""
    parser = configparser.ConfigParser()
    parser.read(REPO / ".importlinter", encoding="utf-8")
    layers = parser["importlinter:contract:layers"]["layers"]
    return {name.strip().strip("()") for line in layers.split("\n")
            for name in line.replace(":", "|").split("|") if name.strip()}


def test_the_contracts_hold():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_every_module_of_the_package_has_a_layer():
    modules = {f"phrasenmt.{p.stem}" for p in PACKAGE.iterdir()
               if (p.suffix == ".py" and p.stem != "__init__")
               or (p / "__init__.py").is_file()}
    missing = sorted(modules - layer_names())
    assert not missing, f"not in any layer of .importlinter: {', '.join(missing)}"


def test_an_upward_import_breaks_the_contract(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "src" / "phrasenmt",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / ".importlinter", tmp_path)
    base = tmp_path / "src" / "phrasenmt" / "models" / "base.py"
    base.write_text(base.read_text(encoding="utf-8")
                    + "\nfrom phrasenmt.training import trainer  # noqa\n",
                    encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "src")}
    done = lint_imports(tmp_path, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "phrasenmt.models is not allowed to import phrasenmt.training" in done.stdout
    assert "phrasenmt.models.base -> phrasenmt.training.trainer" in done.stdout


def loaded_after(code: str) -> dict[str, bool]:
    """Which of HEAVY a fresh interpreter has loaded after running `code`."""
    probe = (f"import sys\nsys.path.insert(0, {str(REPO / 'src')!r})\n{code}\n"
             f"import json\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_snakefile_imports_load_neither_torch_nor_pandas():
    workflow = sorted(p.stem for p in (PACKAGE / "workflow").glob("*.py"))
    code = "\n".join(["import phrasenmt.config, phrasenmt.experiment, phrasenmt.io",
                      *(f"import phrasenmt.workflow.{name}" for name in workflow)])
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


# What the Snakefile and rules/common.smk run before the rules are read: the
# start-up checks on config.yaml (every model entry resolved against its arch's
# config class), the LM and dataset settings, W and what rules call with .now().
START_UP = """\
import yaml
from phrasenmt.config import check_config_file
from phrasenmt.workflow.scheduler import coalesce_reevaluation_timers
from phrasenmt import experiment
from phrasenmt.workflow import base as wf
from phrasenmt.workflow.adapter import Adapter
check_config_file("config.yaml")
config = yaml.safe_load(open("config.yaml", encoding="utf-8"))
experiment.start(config, ["config.yaml"], {})
wf.apply_lm_availability(config, wf.lm_unavailable_reason())
assert wf.datasets(config)
list(wf.unsegmented_language_warnings(config))
W = Adapter(config)
assert W.targets.final_targets.now()
W.claims.table_regex.now()
"""


def test_the_start_up_checks_load_neither_torch_nor_pandas():
    assert loaded_after(START_UP) == dict.fromkeys(HEAVY, False)


def test_the_start_up_checks_read_every_arch_config_without_torch():
    code = ("from phrasenmt.hparams import CONFIGS\n"
            "from phrasenmt.training.spec import resolve_spec\n"
            "for arch in CONFIGS:\n"
            "    resolve_spec({'arch': arch, 'preset': 'tiny'})")
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


def test_every_model_class_is_a_declared_arch_with_its_config():
    from phrasenmt.hparams import CONFIGS, PRESETS
    from phrasenmt.models import MODELS

    assert set(MODELS) == set(CONFIGS)
    for arch, cls in MODELS.items():
        assert cls.config_class is CONFIGS[arch], arch
        assert "tiny" in PRESETS[arch], arch
