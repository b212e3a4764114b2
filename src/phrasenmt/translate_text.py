"""Translate new text with a trained run: `python -m phrasenmt.translate_text --run DIR`.

DIR is a run folder the workflow trained, results/DATASET/models/MODEL/seedN.
The text goes through the steps the workflow applies to a test set, each
taken from the stage that does it there, with the dataset's settings from the
config: config.yaml of the working folder with the --configfile files the run
was made with laid over it, as Snakemake reads them:

  1. tokenize: Moses (`tokenize: true`) or only spaces normalised (`false`),
     then lowercased if the dataset says `lowercase: true` (phrasenmt.data.clean);
  2. subwords: the dataset's BPE codes and source vocabulary, with its
     `bpe.vocab_threshold`, or its SentencePiece model (phrasenmt.bpe;
     results/DATASET/bpe/); word-level
     models (NPMT, the continuous-output family) read the tokens as they are;
  3. translate: the run's averaged.pt (fertility.pt for PCoNMT with fertility)
     with the model's decode settings and precision of the config
     (phrasenmt.translate); --model NAME takes them from a checkpoint_of entry
     that decodes the run's model instead (npmt_lm: the LM row);
  4. detokenize: Moses, in the target language (phrasenmt.data.detokenize);
     with bpe.backend sentencepiece on raw text, its decoding.

Before any of it, the run must be what the config says: the model's entry and
the model file's spec are the run's config.yaml's, and the dataset's text
settings turn the first dev source lines into what the workflow wrote
(data/dev.SRC, bpe/dev.bpe.SRC); else one line says which differs.

One input line is one sentence; an empty line gets an empty line (a
document-level model refuses it: it reads each line in context). A document-level
model needs --docs FILE: one document id per input line, the lines of a
document consecutive (the pipeline's .docs files). A model that reads parsed
phrases of its source reads them as the segment rule makes them: n-gram
phrases are made here, parse-based ones need the workflow's constituency
parse of the text and are refused. --input and --output take '-' for stdin and
stdout (the default); a written file appears whole or not at all.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path

from phrasenmt import experiment, translate
from phrasenmt import precision as prec
from phrasenmt.cli import (
    ArgumentParser,
    field_type,
    output_file,
    thread_count,
)
from phrasenmt.config import read_config_file
from phrasenmt.config_model import Decode
from phrasenmt.data.clean import Options, detokenize, model_text
from phrasenmt.data.local import nfc_lines
from phrasenmt.io import (
    InputError,
    blank,
    blank_line_error,
    check_text,
    decode_line,
    read_lines,
    run_cli,
    write_lines,
)
from phrasenmt.text import spm
from phrasenmt.text.segmentation import ngram_line
from phrasenmt.text.subwords import Segmenter, read_codes, read_vocabulary
from phrasenmt.text.words import join_unsegmented
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import npmt as wfn
from phrasenmt.workflow import phrase_repr as wfpr
from phrasenmt.workflow import runs as wfruns

STDIN, STDOUT = "<stdin>", "<stdout>"
BASE_CONFIG = Path("config.yaml")  # as the Snakefile's `configfile:`
SUBWORD_FAMILIES = ("default", "documents")  # the others read word-level text
_SEED = re.compile(r"seed[0-9]+")


def build_parser() -> argparse.ArgumentParser:
    """Options of the command."""
    p = ArgumentParser(prog="python -m phrasenmt.translate_text",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, type=Path,
                   help="run folder results/DATASET/models/MODEL/seedN")
    p.add_argument("--input", default="-", type=_input, help="raw text, one sentence per line "
                   "('-': stdin, the default)")
    p.add_argument("--output", default="-", type=_output,
                   help="detokenized translations ('-': stdout, the default)")
    p.add_argument("--docs", type=Path, help="document id per input line "
                   "(document-level models)")
    p.add_argument("--model", default=None, metavar="NAME",
                   help="the config entry whose decode settings and precision to "
                   "use: the run's model (the default) or a checkpoint_of entry "
                   "that decodes it (e.g. npmt_lm, with the n-gram LM)")
    p.add_argument("--configfile", type=Path, nargs="+", default=[],
                   help="config files the run was made with, laid over config.yaml "
                   "as snakemake --configfile does (default: config.yaml alone)")
    p.add_argument("--batch-size", type=field_type(Decode, "batch_size"), default=None,
                   help="sentences per batch (default: the config's decode.batch_size)")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="CPU threads for torch")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                   help="default: cpu for a model with gpus: 0, else auto (CUDA when "
                   "PyTorch sees a GPU), as the workflow decodes it")
    prec.add_precision_argument(p)
    p.set_defaults(precision=None)  # the model's precision in the config
    return p


def _input(text: str) -> str:
    """argparse type of --input: '-' or a path (not an empty one)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a file, or - for stdin")
    return text


def _output(text: str) -> str:
    """argparse type: '-' or a file path to write."""
    return text if text == "-" else str(output_file(text))


class Run:
    """A run folder and what the config says about its dataset and model."""

    def __init__(self, folder: Path, configfiles: list[Path],
                 decoder: str | None = None):
        if folder.is_file():
            raise InputError("is a file; give the run folder that holds it "
                             f"({folder.parent})", folder)
        if not folder.is_dir():
            raise InputError("run folder not found", folder)
        given, folder = folder, folder.resolve()
        if not _SEED.fullmatch(folder.name) or folder.parents[1].name != "models":
            raise InputError("not a run folder: expected "
                             "results/DATASET/models/MODEL/seedN", given)
        self.folder, self.given = folder, given
        self.model, self.dataset = folder.parent.name, folder.parents[2].name
        self.data_dir = folder.parents[2]
        self.config = workflow_config(configfiles)
        files = " + ".join(map(str, [BASE_CONFIG, *configfiles]))
        for kind, name, key in (("dataset", self.dataset, "datasets"),
                                ("model", self.model, "models")):
            if name not in self.config[key]:
                raise InputError(f"{kind} {name!r} of {given} is not in the config "
                                 f"({files}); give the --configfile the run was "
                                 "made with", "--configfile")
        self.decoder = self._decoder(decoder, files)
        self.family = wf.model_family(self.config, self.model)
        self.src, self.tgt = wf.langs(self.config, self.dataset)
        self.saved = self.folder / "config.yaml"  # the run's resolved spec
        self.spec = self._saved_spec()
        self.check_trained_as_configured(files)

    def _decoder(self, name: str | None, files: str) -> str:
        """The entry whose decoding settings are used: the run's model, or a
        checkpoint_of entry of it (--model)."""
        if name is None or name == self.model:
            return self.model
        entry = self.config["models"].get(name)
        if entry is None or entry.get("checkpoint_of") != self.model:
            rows = [m for m, e in self.config["models"].items()
                    if e.get("checkpoint_of") == self.model]
            raise InputError(f"{name!r} is not a model of the config ({files}) that "
                             f"decodes {self.model}'s checkpoint: give {self.model} or "
                             f"a checkpoint_of entry of it ({', '.join(rows) or 'none'})",
                             "--model")
        return name

    def _saved_spec(self) -> dict | None:
        """The run's own config.yaml (written when its training ended), or None
        for a run that has not finished."""
        if not self.saved.is_file():
            return None
        import yaml

        return yaml.safe_load(self.saved.read_text(encoding="utf-8")) or {}

    def check_trained_as_configured(self, files: str) -> None:
        """The config's entry for the model says what the run's own config.yaml
        (its resolved spec) says: arch, preset and every `model:` key it gives.
        A config file of another experiment with the same names would otherwise
        decode this model with that experiment's settings."""
        run, saved = self.spec, self.saved
        if run is None:
            return
        entry = self.config["models"][self.model]
        pairs = [(k, entry.get(k), run.get(k)) for k in ("arch", "preset")]
        pairs += [(f"model.{k}", v, run.get("model", {}).get(k, v))
                  for k, v in entry.get("model", {}).items()]
        for key, ours, theirs in pairs:
            if ours is not None and theirs is not None and ours != theirs:
                raise InputError(
                    f"models.{self.model}.{key} is {ours!r} in the config ({files}) "
                    f"but {theirs!r} in {_relative(saved)}: give the --configfile "
                    "the run was made with", "--configfile")

    def check_model_file(self, payload: dict, path: Path) -> None:
        """The model file is this run's: its spec (arch, preset, model) is the
        run's config.yaml's. A file copied in from another run would otherwise
        translate with another model, or from another language."""
        run, saved, spec = self.spec, self.saved, payload.get("spec")
        if run is None or not isinstance(spec, dict):
            return
        for key in ("arch", "preset", "model"):
            ours, theirs = spec.get(key), run.get(key)
            if ours is None or theirs is None or ours == theirs:
                continue
            if isinstance(ours, dict) and isinstance(theirs, dict):
                key = next(f"model.{k}" for k in sorted({*ours, *theirs})
                           if ours.get(k) != theirs.get(k))
                ours, theirs = (d.get(key.split(".", 1)[1]) for d in (ours, theirs))
            raise InputError(f"was not trained by this run: its {key} is {ours!r}, "
                             f"{_relative(saved)} says {theirs!r} (a model file "
                             "copied from another run?)", path)

    def checkpoint(self) -> Path:
        """The model file the workflow decodes for this run."""
        arch = self.config["models"][self.model]["arch"]
        name = "fertility.pt" if arch in wf.FERTILITY_CLASSES else "averaged.pt"
        path = self.folder / name
        if not path.is_file():
            raise InputError(f"no {name} in the run folder: train and average it "
                             f"first (snakemake --cores 1 {_relative(path)})",
                             self.given)
        return path

    def search_args(self) -> list[str]:
        """--beam/--lenpen (SWAN: --lambda1/--lambda2, and --lm where the model
        decodes with the LM) the workflow decodes with."""
        if self.family != "npmt":
            return shlex.split(wf.search_args(self.config, self.decoder))
        args = shlex.split(wfn.translate_args(self.config, self.decoder, "beam"))
        for lm in wfn.lm_inputs(self.config, self.dataset, self.decoder):
            if not Path(lm).is_file():  # the workflow decodes this model with it
                raise InputError(f"model {self.decoder} decodes with the dataset's "
                                 "n-gram LM (decode.lm), which is not built: "
                                 f"snakemake --cores 1 {lm}", lm)
            args += ["--lm", lm]
        return args

    def side_inputs(self, lines: list[str]) -> dict[str, list[list[int]]]:
        """The segment rule's phrase ids of the subword lines (n-gram phrases);
        a model that reads parsed phrases is refused."""
        method = wfpr.segmentation(self.config, self.model)
        if method is None:
            return {}
        if method != "ngram":
            raise InputError(f"model {self.model} reads parse-based source phrases, "
                             "which the workflow's constituency parse of a test set "
                             "provides: add the text as a test set of a local "
                             "dataset instead (docs/datasets.md)", self.given)
        return {"phrases": [ngram_line(line, None) for line in lines]}

    def tokenize(self, lines: list[str]) -> list[str]:
        """Step 1: the cleaning step's tokenization of a test set's source."""
        ds = self.config["datasets"][self.dataset]
        opts = Options(self.src, self.tgt, tokenize=ds["tokenize"] and not self.raw,
                       raw=self.raw, lowercase=ds["lowercase"])
        if ds["source"] == "local":  # copied in NFC when the workflow prepared it
            lines = nfc_lines(lines)[0]
        return list(model_text(lines, self.src, opts))

    @property
    def raw(self) -> bool:
        """Whether the workflow kept raw text for SentencePiece (`clean --raw`)."""
        ds = self.config["datasets"][self.dataset]
        return ds["tokenize"] and ds["bpe"]["backend"] == "sentencepiece"

    def subwords(self, tokens: list[str]) -> list[str]:
        """Step 2: the apply_bpe rule's segmentation of the source side."""
        if self.family not in SUBWORD_FAMILIES:
            return tokens
        bpe = self.data_dir / "bpe"
        settings = self.config["datasets"][self.dataset]["bpe"]
        if settings["backend"] == "sentencepiece":
            model = spm.load(bpe / f"spm.{'joint' if settings['joint'] else self.src}"
                             ".model")
            return [spm.encode(model, line) for line in tokens]
        threshold = settings["vocab_threshold"]
        seg = Segmenter(read_codes(bpe / "codes"),
                        read_vocabulary(bpe / f"vocab.{self.src}", threshold),
                        bpe / "codes")
        return [seg.line(line) for line in tokens]


    def check_text_settings(self, lines: int = 200) -> None:
        """The config's text settings are the ones that made the dataset's
        files: the first dev source lines, tokenized (`tokenize`, `lowercase`)
        and segmented (the BPE codes, `bpe.vocab_threshold`, the SentencePiece
        model) here, are what the workflow wrote. Another experiment's dataset
        keys, or a codes file changed since, would otherwise translate the text
        into pieces the model was not trained on, silently."""
        folder, dev = self.data_dir, f"dev.{self.src}"
        steps = [("tokenized", folder / "raw" / dev, folder / "data" / dev,
                  self.tokenize, f"datasets.{self.dataset}.tokenize or .lowercase")]
        if self.family in SUBWORD_FAMILIES:
            steps.append(("segmented", folder / "data" / dev,
                          folder / "bpe" / f"dev.bpe.{self.src}", self.subwords,
                          (f"datasets.{self.dataset}.bpe, or a changed "
                           f"{_relative(folder / 'bpe')} model file")))
        for done, before, after, step, keys in steps:
            if not (before.is_file() and after.is_file()):
                continue
            source, made = read_lines(before), read_lines(after)
            if len(source) != len(made):  # lines dropped there: not comparable
                continue
            source, made = source[:lines], made[:lines]
            for n, (ours, theirs) in enumerate(zip(step(source), made, strict=True),
                                               start=1):
                if ours != theirs:
                    ours, theirs = _where_they_differ(ours, theirs)
                    raise InputError(
                        f"the config's text settings do not make the run's files: "
                        f"line {n} of {_relative(before)} {done} here is "
                        f"{ours!r}, but {theirs!r} in {_relative(after)} "
                        f"({keys}): give the --configfile the run was made with",
                        "--configfile")


def _where_they_differ(a: str, b: str, width: int = 40) -> tuple[str, str]:
    """The two lines from a little before their first difference ('...' where
    cut)."""
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                 min(len(a), len(b)))
    start = max(0, first - 10)

    def cut(text: str) -> str:
        part = text[start:start + width]
        return ("..." if start else "") + part + ("..." if len(text) > start + width
                                                  else "")
    return cut(a), cut(b)


def workflow_config(configfiles: list[Path]) -> dict:
    """config.yaml of the working folder with `configfiles` laid over it, as
    Snakemake merges them, checked and completed as the workflow's start-up does."""
    if not BASE_CONFIG.is_file():
        raise InputError("not found in the working folder: run the command where "
                         "the workflow runs (the repository folder)", BASE_CONFIG)
    config = read_config_file(BASE_CONFIG)
    for path in configfiles:
        if not path.is_file():
            raise InputError("config file not found", path)
        _update(config, read_config_file(path))
    experiment.start(config, [BASE_CONFIG, *configfiles])
    return config


def _update(config: dict, override: dict) -> None:
    """Snakemake's merge of a config file: mappings key by key, the rest replaced."""
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            _update(config[key], value)
        else:
            config[key] = value


def _relative(path: Path) -> str:
    """`path` relative to the working folder where it lies inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_input(name: str) -> list[str]:
    """Lines of a file or of stdin ('-'), checked as every stage reads text;
    empty lines are kept (`translate_text` gives each an empty line)."""
    if name != "-":
        return read_lines(name)
    if sys.stdin is None:
        raise InputError("closed: nothing to read (give --input FILE)", STDIN)
    return [check_text(decode_line(raw, STDIN, n), STDIN, n)
            for n, raw in enumerate(sys.stdin.buffer, start=1)]


def sentences(text: list[str], docs: bool, where: str) -> list[int]:
    """The 1-based numbers of the input lines that hold a sentence: an empty
    line (or one of invisible format characters only) gets an empty line,
    untranslated, so paragraphs keep their lines. A document-level model's
    line is read in its document's context, so there an empty line is refused."""
    numbers = []
    for n, line in enumerate(text, start=1):
        if not blank(line):
            numbers.append(n)
        elif docs:
            raise InputError(f"{blank_line_error(line, where, n).message}; a "
                             "document-level model reads each line in its document's "
                             "context: remove the line and its line of --docs", where, n)
    return numbers


def check_lengths(lines: list[str], limit: int | None, where: str,
                  numbers: list[int]) -> None:
    """Refuse a line longer, in the tokens the model reads (subwords or words),
    than the model's position table (`numbers`: each line's input line)."""
    for n, line in zip(numbers, lines, strict=True):
        if limit is not None and len(line.split()) > limit:
            raise InputError(f"line has {len(line.split())} tokens as the model "
                             f"reads it, more than {limit} (its longest input)",
                             where, n)


def decode_options(run: Run, args: argparse.Namespace, label: str) -> argparse.Namespace:
    """phrasenmt.translate's options for this run, as the workflow gives them."""
    decode = run.config["decode"]
    argv = ["--checkpoint", str(run.checkpoint()), "--input", label,
            "--output", args.output if args.output != "-" else os.devnull,
            *run.search_args(),
            "--max-len-a", str(decode["max_len_a"]),
            "--max-len-b", str(decode["max_len_b"]),
            "--batch-size", str(args.batch_size or decode["batch_size"]),
            "--device", args.device or wfruns.device(run.config, run.decoder),
            "--precision", args.precision or wfruns.precision(run.config, run.decoder)]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    if args.docs is not None:
        argv += ["--docs", str(args.docs)]
    return translate.translate_parser().parse_args(argv)


def translate_text(args: argparse.Namespace) -> list[str]:
    """Tokenize, segment, translate and detokenize the input lines."""
    run = Run(args.run, args.configfile, args.model)
    label = STDIN if args.input == "-" else args.input
    options = decode_options(run, args, label)
    run.check_text_settings()
    text = read_input(args.input)
    numbers = sentences(text, args.docs is not None, label)
    lines = run.subwords(run.tokenize([text[n - 1] for n in numbers]))
    side = run.side_inputs(lines)
    loaded = translate.load(options, lambda payload: run.check_model_file(
        payload, options.checkpoint))
    reads = set(getattr(loaded[0], "side_inputs", ()))
    if reads != set(side):
        raise InputError(f"the model reads side inputs {sorted(reads)}, but the "
                         f"config's {run.model} {sorted(side)}: give the "
                         "--configfile the run was made with", options.checkpoint)
    if getattr(loaded[0], "context_sides", ()) and args.docs is None:
        # this command has no --context (phrasenmt.translate's explicit contexts)
        raise InputError("the model reads document context: give --docs FILE, "
                         "one document id per input line", "--docs")
    check_lengths(lines, translate.max_input_tokens(loaded[0]), label, numbers)
    hyps, _ = translate.decode_lines(options, loaded, lines, side) if lines else ([], None)
    translate.warn_unknown_input(lines, loaded[1], label)  # once the input is valid
    if run.raw:  # as the detokenize rule's --sentencepiece
        out = [join_unsegmented(" ".join(h.split())) for h in hyps]
    else:
        out = detokenize(hyps, run.tgt) if hyps else []
    translated = dict(zip(numbers, out, strict=True))
    return [translated.get(n, "") for n in range(1, len(text) + 1)]


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.output == "-" and sys.stdout is None:  # before hours of decoding
        raise InputError("closed: nowhere to write (give --output FILE)", STDOUT)
    out = translate_text(args)
    if args.output == "-":
        try:
            sys.stdout.write("".join(line + "\n" for line in out))
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            raise InputError(err.strerror or str(err), STDOUT) from None
    else:
        write_lines(args.output, out)
    return 0


if __name__ == "__main__":
    run_cli(main)
