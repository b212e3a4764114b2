"""A `local` dataset: the user's own parallel files, each split with an optional
docs file (one document id per line, a document's lines contiguous).

    python -m phrasenmt.data.prepare local --in F --out F [--docs-for TEXT]
    python -m phrasenmt.data.prepare docs --text F --split NAME --out F

`local` checks (UTF-8) and copies one file; with `--docs-for` the file is a docs
file, checked against the line count of TEXT and for contiguous documents.
Every text file is copied in Unicode normalisation form C (NFC: a base letter
and its combining accent composed, combining marks in canonical order), so that
training text, references and translations spell the same word with the same
code points whatever editor wrote them (macOS writes "é" as e + U+0301); the
log says how many lines that changed, and how many bidirectional control
characters the reader removed (`phrasenmt.io.check_text`).
`docs` writes the ids of a split without a docs file: every line its own
document (`NAME-000000`, ...). The whole-dataset mode (`--dataset local`) lives
in `phrasenmt.data.prepare` and calls `prepare_local` here.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.data.archives import line_docs, one_line, write_pair
from phrasenmt.data.documents import read_docs
from phrasenmt.io import (
    InputError,
    atomic_open,
    check_text,
    decode_line,
    describe_removed,
    output_set,
    read_lines,
    read_nonempty_lines,
    write_lines,
)
from phrasenmt.log import get_logger
from phrasenmt.text.function_words import Profile, profile, swapped
from phrasenmt.text.scripts import (
    LANGUAGE_SCRIPTS,
    SAMPLE_LINES,
    script_mix,
    script_name,
    visual_order_warning,
)

_log = get_logger(__name__)

LocalSplit = tuple[Path, Path, Path | None]  # source, target, docs (optional)
Lines = tuple[list[str], list[str], list[str]]
SIDES = ("src", "tgt")
ROLES = {"src": "source", "tgt": "target"}


def parse_test(spec: str) -> tuple[str, LocalSplit]:
    """Parse NAME=SRC,TGT[,DOCS] into (name, (src, tgt, docs or None))."""
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)=([^,]+),([^,]+)(?:,([^,]+))?", spec)
    if not m:
        raise InputError(f"--test expects NAME=SRC_FILE,TGT_FILE[,DOCS_FILE], got "
                         f"{spec!r}")
    docs = Path(m.group(4)) if m.group(4) else None
    return m.group(1), (Path(m.group(2)), Path(m.group(3)), docs)


def nfc(line: str) -> str:
    """A line in Unicode normalisation form C."""
    return line if line.isascii() else unicodedata.normalize("NFC", line)


def nfc_lines(lines: list[str]) -> tuple[list[str], int]:
    """The lines in Unicode normalisation form C, and how many that changed."""
    out = [nfc(line) for line in lines]
    return out, sum(a is not b and a != b for a, b in zip(lines, out, strict=True))


def kept_lines(path: Path) -> Iterator[str]:
    """One user file's lines as `text_lines` keeps them (checked UTF-8, the
    bidirectional controls removed, on one line, in NFC), one at a time: for
    the start-up's checks, which read only as far as they need."""
    try:
        with open(path, "rb") as fh:
            for n, raw in enumerate(fh, start=1):
                yield nfc(one_line(check_text(decode_line(raw, path, n), path, n)))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path) from None


def text_lines(path: Path, log: Callable[[str], None],
               allow_empty: bool = True) -> list[str]:
    """One user file's lines as the workflow keeps them: on one line each,
    in NFC; the bidirectional controls removed and the lines NFC changed are
    logged (`log`) with the file's name. Without `allow_empty` (a dev or test
    split, whose every line is translated and scored) a line with nothing to
    translate raises, naming the user's file and what the line held."""
    removed: Counter = Counter()
    lines = read_nonempty_lines(path, "sentences", removed=removed,
                                allow_empty=allow_empty)
    if removed:
        log(f"{path}: removed {describe_removed(removed)}")
    lines, changed = nfc_lines([one_line(line) for line in lines])
    log(f"{path}: {changed} of {len(lines)} lines changed by Unicode NFC normalisation")
    return lines


def percent(share: float) -> str:
    """A share as a message writes it: "97 %"."""
    return f"{round(100 * share)} %"


def check_scripts(path: Path, lines: list[str], pair: list[str], side: str,
                  langs: tuple[str, str]) -> None:
    """Raise, naming `path`, when the `side` ("src" or "tgt") of a split and
    the other side `pair` are each mostly in the script of the other's
    language: source and target swapped. Said only where the two languages'
    scripts are known and differ (en-he, not en-de); one side alone in the
    other's script (transliterated text) is not a swap."""
    other_side = SIDES[1 - SIDES.index(side)]
    lang, other = langs[SIDES.index(side)], langs[SIDES.index(other_side)]
    mix = script_mix(lines, lang, other)
    if mix is None or not mix.looks_other():
        return
    pair_mix = script_mix(pair, other, lang)
    if pair_mix is None or not pair_mix.looks_other():
        return
    own, theirs = LANGUAGE_SCRIPTS[lang], LANGUAGE_SCRIPTS[other]
    raise InputError(
        f"{percent(mix.share(mix.other))} of its letters are {script_name(theirs)}, "
        f"the script of the {ROLES[other_side]} language {other}, and "
        f"{percent(mix.share(mix.own))} {script_name(own)}: source and target "
        "swapped?", path)


def _shares(prof: Profile, looks: str, lang: str, words: str = "") -> str:
    """"38 % de, 2 % en": the shares of a sample's words in two lists
    (`words`: what they are a share of, after the first)."""
    first = f"{percent(prof.rate(looks))} {words}{looks}"
    return (f"{first} function words, {percent(prof.rate(lang))} {lang} ones" if words
            else f"{first}, {percent(prof.rate(lang))} {lang}")


def check_languages(path: Path, mine: Profile, pair: Path, theirs: Profile,
                    side: str, langs: tuple[str, str]) -> None:
    """Raise, naming `path` and the split's other file `pair` (their function
    words: `mine`, `theirs`), when the source's are clearly the target
    language's and the target's the source language's
    (`phrasenmt.text.function_words`): source and target swapped in one
    script (en-de), where `check_scripts` sees nothing. Said only where both
    languages have a list."""
    src, tgt = (mine, theirs) if side == "src" else (theirs, mine)
    if not swapped(src, tgt, langs):
        return
    lang, other = (langs if side == "src" else langs[::-1])
    raise InputError(
        f"looks like {other}, not {lang} ({_shares(mine, other, lang, 'of its words are ')}), "
        f"and {pair} like {lang}, not {other} ({_shares(theirs, lang, other)}): "
        "source and target swapped?", path)


def _language_message(path: object, prof: Profile, side: str, lang: str) -> str | None:
    """What is wrong with a `side` ("src" or "tgt") file declared in `lang`
    whose function words (`prof`) are clearly another listed language's, or
    None (also where `lang` has no list or the file is too short to judge)."""
    looks = prof.looks_like(lang)
    if looks is None:
        return None
    return (f"{path}: looks like {looks}, not {lang}, the {ROLES[side]} language "
            f"({_shares(prof, looks, lang, 'of its words are ')}): the wrong file, "
            "or a wrong language code?")


def language_warning(path: object, prof: Profile, side: str, lang: str) -> str | None:
    """The one warning line of `_language_message`, or None."""
    message = _language_message(path, prof, side, lang)
    return None if message is None else f"warning: {message}"


def warn_language(path: Path, prof: Profile, side: str, lang: str) -> None:
    """A warning (the run goes on) for a file in another language than declared."""
    message = _language_message(path, prof, side, lang)
    if message is not None:
        _log.warning(message)


def warn_visual_order(path: Path, lines: list[str], lang: str) -> None:
    """A warning (the run goes on) for Hebrew lines stored in visual order."""
    message = visual_order_warning(path, lines, lang)
    if message is not None:
        _log.warning(message)


def file_profile(path: Path) -> Profile:
    """The function words of a file's first lines (`first_lines`), counted
    once per process while the file is unchanged (start-up asks twice)."""
    try:
        stat = Path(path).stat()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path) from None
    return _file_profile(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _file_profile(path: str, mtime_ns: int, size: int) -> Profile:
    return profile(first_lines(Path(path)))


def first_lines(path: Path, n: int = SAMPLE_LINES) -> list[str]:
    """The first `n` lines of the other side of a split, for `check_scripts`
    (its own job checks it as a whole: here a bad byte is replaced)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return list(itertools.islice(fh, n))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path) from None


def read_local(splits: dict[str, LocalSplit],
               log: Callable[[str], None] = print,
               langs: tuple[str, str] | None = None,
               language_check: bool = True) -> dict[str, Lines]:
    """Read and check every split (UTF-8, line counts, document ids, with
    `langs` the script of each side: `check_scripts`, and with
    `language_check` its language too: `check_languages`) first."""
    data = {}
    for name, (a, b, docs) in splits.items():
        evaluated = name != "train"  # every line of it is translated and scored
        src = text_lines(a, log, allow_empty=not evaluated)
        tgt = text_lines(b, log, allow_empty=not evaluated)
        if len(src) != len(tgt):
            raise InputError(f"has {len(src)} lines but {b} has {len(tgt)}; parallel "
                             "files must match", a)
        if langs is not None:
            check_scripts(a, src, tgt, "src", langs)
            profiles = {"src": profile(src), "tgt": profile(tgt)}
            if language_check:
                check_languages(a, profiles["src"], b, profiles["tgt"], "src", langs)
            for path, lines, side in ((a, src, "src"), (b, tgt, "tgt")):
                lang = langs[SIDES.index(side)]
                warn_visual_order(path, lines, lang)
                if language_check:
                    warn_language(path, profiles[side], side, lang)
        ids = read_docs(docs, len(src), a) if docs else line_docs(name, len(src))
        data[name] = (src, tgt, ids)
    return data


def prepare_local(splits: dict[str, LocalSplit], outdir: Path, src: str, tgt: str,
                  log: Callable[[str], None] = print,
                  language_check: bool = True) -> dict[str, int]:
    """Write {split}.{src}/.{tgt}/.docs of the user's files; nothing on bad input."""
    counts = {}
    with output_set():  # every split's files, or none
        for name, (a, b, ids) in read_local(splits, log, (src, tgt),
                                            language_check).items():
            counts[name] = write_pair(outdir / f"{name}.{src}",
                                      outdir / f"{name}.{tgt}", (a, b))
            write_lines(outdir / f"{name}.docs", ids)
            log(f"{name}: {counts[name]} lines")
    return counts


def local_splits(args: argparse.Namespace) -> dict[str, LocalSplit]:
    """Collect and check the --train/--dev/--test files of `--dataset local`."""
    given = [args.train_src, args.train_tgt, args.dev_src, args.dev_tgt]
    if None in given or not args.test:
        raise InputError("--dataset local needs --train-src, --train-tgt, --dev-src, "
                         "--dev-tgt and at least one --test NAME=SRC,TGT[,DOCS]")
    splits: dict[str, LocalSplit] = {
        "train": (args.train_src, args.train_tgt, args.train_docs),
        "dev": (args.dev_src, args.dev_tgt, args.dev_docs)}
    for name, files in map(parse_test, args.test):
        if name in splits:
            raise InputError(f"split name {name!r} given twice")
        splits[name] = files
    for files in splits.values():
        for path in files[:2]:  # existence, UTF-8 and a sentence first
            read_nonempty_lines(path, "sentences")
    return splits


def copy_checked(src: Path, out: Path, allow_empty: bool = True,
                 pair: tuple[Path, str, tuple[str, str]] | None = None,
                 language_check: bool = True) -> int:
    """Copy one user file after checking it exists and is valid UTF-8, in NFC
    (`text_lines`: what changed goes to the log); without `allow_empty`, a
    line with nothing to translate raises naming `src`. `pair`: the split's
    other file, the side `src` is ("src" or "tgt") and the pair's languages,
    for `check_scripts` and, with `language_check`, `check_languages`."""
    lines = text_lines(src, _log.info, allow_empty)
    if pair is not None:
        other, side, langs = pair
        other_lines = first_lines(other)
        check_scripts(src, lines, other_lines, side, langs)
        mine = profile(lines) if language_check else None
        if mine is not None:
            check_languages(src, mine, other, profile(other_lines), side, langs)
        warn_visual_order(src, lines, langs[SIDES.index(side)])
        if mine is not None:
            warn_language(src, mine, side, langs[SIDES.index(side)])
    with atomic_open(out) as fh:
        fh.writelines(line + "\n" for line in lines)
    return len(lines)


def copy_docs(docs: Path, text: Path, out: Path) -> int:
    """Copy a docs file after checking its line count against `text` and its ids."""
    ids = read_docs(docs, len(read_lines(text)), text)
    write_lines(out, ids)
    return len(ids)


def build_parser() -> argparse.ArgumentParser:
    """Interface of the `local` and `docs` subcommands of phrasenmt.data.prepare."""
    p = ArgumentParser(prog="python -m phrasenmt.data.prepare",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    loc = sub.add_parser("local", help="check (UTF-8) and copy one file")
    loc.add_argument("--in", required=True, type=Path, metavar="IN")
    loc.add_argument("--out", required=True, type=output_file)
    loc.add_argument("--docs-for", type=Path, metavar="TEXT",
                     help="IN is a docs file for TEXT: check line count and ids")
    loc.add_argument("--evaluation", action="store_true",
                     help="IN is a dev or test side: every line must hold text")
    loc.add_argument("--pair", type=Path, metavar="FILE",
                     help="the split's other file: refuse IN when each side is "
                     "in the script of the other's language (with --side, --langs)")
    loc.add_argument("--side", choices=SIDES, help="the side IN is (with --pair)")
    loc.add_argument("--langs", nargs=2, metavar=("SRC", "TGT"),
                     help="the languages of the pair (with --pair)")
    loc.add_argument("--no-language-check", dest="language_check",
                     action="store_false",
                     help="(with --pair) neither refuse IN when the two files' "
                     "function words say source and target are swapped, nor warn "
                     "when IN's say it is in another language than its own")
    one = sub.add_parser("docs", help="ids of a split without documents")
    one.add_argument("--text", required=True, type=Path, help="the split's text")
    one.add_argument("--split", required=True, help="split name (id prefix)")
    one.add_argument("--out", required=True, type=output_file)
    return p


def script_pair(args: argparse.Namespace) -> tuple[Path, str, tuple[str, str]] | None:
    """(--pair, --side, --langs) for `check_scripts`, or None without them."""
    given = [args.pair, args.side, args.langs]
    if all(value is None for value in given):
        if not args.language_check:
            raise InputError("--no-language-check goes with --pair, --side and "
                             "--langs, whose check it turns off")
        return None
    if None in given:
        raise InputError("--pair, --side and --langs go together: give all three "
                         "or none")
    return args.pair, args.side, tuple(args.langs)


def main(argv: list[str]) -> int:
    """Run the `local` or `docs` subcommand."""
    args = build_parser().parse_args(argv)
    if args.command == "docs":
        n = len(read_lines(args.text))
        write_lines(args.out, line_docs(args.split, n))
    elif args.docs_for is not None:
        n = copy_docs(getattr(args, "in"), args.docs_for, args.out)
    else:
        n = copy_checked(getattr(args, "in"), args.out, not args.evaluation,
                         script_pair(args), args.language_check)
    _log.info(f"{args.out}: {n} lines")
    return 0
