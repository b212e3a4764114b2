"""Tests for raw split preparation (multi30k, iwslt14, wmt14, local) and stats."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from phrasenmt.data import clean, datasets, prepare, stats
from phrasenmt.io import InputError, read_lines
from tests.unit.test_function_words import ENGLISH as ENGLISH_PROSE
from tests.unit.test_function_words import FRENCH as FRENCH_PROSE
from tests.unit.test_function_words import GERMAN as GERMAN_PROSE
from tests.unit.test_function_words import REPEATS

MIRROR = Path("/work/shared/data/multi30k")


def _quiet(_msg: str) -> None:
    pass


def _tgz(path: Path, members: dict[str, str]) -> None:
    """Write a .tgz with text members."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


@pytest.mark.skipif(not MIRROR.is_dir(), reason="shared multi30k mirror absent")
def test_multi30k_from_mirror(tmp_path):
    assert prepare.main(["--dataset", "multi30k", "--download-dir", str(MIRROR),
                         "--outdir", str(tmp_path), "--src", "en",
                         "--tgt", "de"]) == 0
    expected = {"train": 29000, "dev": 1014, "test_2016_flickr": 1000,
                "test_2017_flickr": 1000, "test_2017_mscoco": 461,
                "test_2018_flickr": 1071}
    for split, n in expected.items():
        for lang in ("en", "de"):
            assert len(read_lines(tmp_path / f"{split}.{lang}")) == n
    assert not list(tmp_path.glob("*.fr"))
    first = read_lines(tmp_path / "train.en")[0]
    assert first.startswith("Two young, White males")  # raw, untokenized


def test_direction_must_be_offered(tmp_path):
    with pytest.raises(InputError, match="no en-vi direction"):
        prepare.main(["--dataset", "multi30k", "--download-dir", str(tmp_path),
                      "--outdir", str(tmp_path / "o"), "--src", "en",
                      "--tgt", "vi"])


def _iwslt_train(lang: str, n: int) -> str:
    """A train.tags file: talk headers and n sentences (sentence 5 empty)."""
    head = ["<url>http://www.ted.com/talks/x.html</url>",
            "<keywords>talks, science</keywords>", "<talkid>1</talkid>",
            f"<title>Title {lang}</title>",
            f"<description>About {lang}</description>"]
    body = ["" if i == 5 else f"{lang} sentence {i}" for i in range(1, n + 1)]
    return "\n".join(head + body) + "\n"


def _iwslt_xml(name: str, lang: str) -> str:
    return ('<refset>\n<doc docid="1">\n<seg id="1"> ' + f"{name} {lang} it’s one"
            + ' </seg>\n<seg id="2">' + f"{name} {lang} two" + "</seg>\n</doc>\n")


def test_iwslt14_follows_fairseq_rules(tmp_path):
    members = {f"de-en/train.tags.de-en.{lang}": _iwslt_train(lang, 60)
               for lang in ("de", "en")}
    for name in prepare.IWSLT14_TEST + ("IWSLT14.TED.dev2011",):
        for lang in ("de", "en"):
            members[f"de-en/{name}.de-en.{lang}.xml"] = _iwslt_xml(name, lang)
    _tgz(tmp_path / "dl" / "de-en.tgz", members)
    counts = prepare.prepare_dataset("iwslt14", tmp_path / "dl", tmp_path / "raw",
                                     "de", "en", log=_quiet)
    # 2 title/description lines + 60 sentences - 1 empty = 61 pairs
    assert counts == {"train": 61 - 2, "dev": 2, "test": 10}
    train = read_lines(tmp_path / "raw/train.de")
    assert train[:2] == ["Title de", "About de"]
    assert not any("<" in line for line in train)
    kept = ["Title de", "About de"] + [f"de sentence {i}" for i in range(1, 61)
                                       if i != 5]
    assert read_lines(tmp_path / "raw/dev.de") == [kept[22], kept[45]]
    assert read_lines(tmp_path / "raw/dev.en") == [
        s.replace("de ", "en ", 1) for s in (kept[22], kept[45])]
    test = read_lines(tmp_path / "raw/test.en")
    assert test[0] == "IWSLT14.TED.dev2010 en it's one"
    assert [t.split()[0] for t in test[::2]] == list(prepare.IWSLT14_TEST)


def _sgm(lines: list[str]) -> str:
    segs = [f'<seg id="{i}">{s}</seg>' for i, s in enumerate(lines, 1)]
    return '<srcset setid="x">\n<doc docid="d">\n' + "\n".join(segs) + "\n</doc>\n"


def test_wmt14_concatenates_corpora_and_sgm(tmp_path):
    dl = tmp_path / "dl"
    for rel, corpus in prepare.WMT14_TRAIN.items():
        folder = "" if corpus.startswith("commoncrawl") else "training/"
        _tgz(dl / rel, {f"{folder}{corpus}.{lang}": f"{corpus} {lang} 1\n"
                        f"{corpus} {lang} 2\n" for lang in ("en", "de")})
    _tgz(dl / prepare.WMT14_DEV_ARCHIVE, {
        f"dev/{name}-{kind}.{lang}.sgm": _sgm([f"{name} {lang}"])
        for name in ("newstest2012", "newstest2013") for kind in ("src", "ref")
        for lang in ("en", "de")})
    _tgz(dl / prepare.WMT14_TEST_ARCHIVE, {
        f"test-full/newstest2014-deen-{kind}.{lang}.sgm": _sgm(["a", "b", "c"])
        for kind in ("src", "ref") for lang in ("en", "de")})
    counts = prepare.prepare_dataset("wmt14_en_de", dl, tmp_path / "raw", "en",
                                     "de", log=_quiet)
    assert counts == {"train": 6, "dev": 2, "newstest2014": 3}
    assert read_lines(tmp_path / "raw/dev.de") == ["newstest2012 de",
                                                   "newstest2013 de"]
    assert read_lines(tmp_path / "raw/train.en")[2] == "commoncrawl.de-en en 1"


def test_missing_download_says_how_to_get_it(tmp_path):
    with pytest.raises(InputError, match="phrasenmt.data.download") as err:
        prepare.prepare_dataset("iwslt15_en_vi", tmp_path, tmp_path / "o", "en",
                                "vi", log=_quiet)
    assert "train.en" in str(err.value)


def test_lingeval97_expands_contrastive_variants(tmp_path):
    entries = [{"source": "A b .", "reference": "R1", "origin": "x.1",
                "errors": [{"type": "t", "contrastive": "C1"},
                           {"type": "u", "contrastive": "C2"}]},
               {"source": "S2", "reference": "R2", "errors": []}]
    (tmp_path / "lingeval97.json").write_text(json.dumps(entries))
    prepare.prepare_dataset("lingeval97", tmp_path, tmp_path / "o", "en", "de",
                            log=_quiet)
    assert read_lines(tmp_path / "o/lingeval97.de") == ["R1", "C1", "C2", "R2"]
    assert read_lines(tmp_path / "o/lingeval97.en") == ["A b ."] * 3 + ["S2"]
    assert (tmp_path / "o/lingeval97.json").is_file()


def _local_args(tmp_path: Path, test_tgt: Path) -> list[str]:
    files = {}
    for name in ("train", "dev", "test"):
        for lang in ("xx", "yy"):
            files[name, lang] = tmp_path / f"in.{name}.{lang}"
            files[name, lang].write_text(f"{name} {lang} 1\n{name} {lang} 2\n")
    return ["--dataset", "local", "--outdir", str(tmp_path / "out"),
            "--src", "xx", "--tgt", "yy",
            "--train-src", str(files["train", "xx"]),
            "--train-tgt", str(files["train", "yy"]),
            "--dev-src", str(files["dev", "xx"]), "--dev-tgt", str(files["dev", "yy"]),
            "--test", f"mytest={files['test', 'xx']},{test_tgt}"]


def test_local_files_are_copied(tmp_path):
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    assert prepare.main(args) == 0
    assert read_lines(tmp_path / "out/mytest.yy") == ["test yy 1", "test yy 2"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "dev.docs", "dev.xx", "dev.yy", "mytest.docs", "mytest.xx", "mytest.yy",
        "train.docs", "train.xx", "train.yy"]
    # no docs files given: every line is its own document
    assert read_lines(tmp_path / "out/train.docs") == ["train-000000",
                                                       "train-000001"]


@pytest.mark.parametrize("extra, message", [
    (["--download-dir", "d"], "--download-dir: not read with --dataset local; drop it"),
    (["--split", "dev"], "--split: not read with --dataset local; drop it"),
])
def test_local_refuses_the_options_of_a_registered_dataset(tmp_path, extra, message):
    with pytest.raises(InputError, match=message):
        prepare.main([*_local_args(tmp_path, tmp_path / "in.test.yy"), *extra])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("extra, message", [
    (["--outdir", "o", "--src", "en", "--tgt", "fr", "--train-src", "t"],
     "--train-src: not read with --dataset multi30k without --split; drop it"),
    (["--outdir", "o", "--src", "en", "--tgt", "fr", "--out", "x"],
     "--out: not read with --dataset multi30k without --split; drop it"),
    (["--split", "dev", "--lang", "fr", "--out", "x", "--outdir", "o"],
     "--outdir: not read with --dataset multi30k with --split; drop it"),
])
def test_a_registered_dataset_refuses_options_it_does_not_read(tmp_path, extra,
                                                               message):
    with pytest.raises(InputError, match=message):
        prepare.main(["--dataset", "multi30k", "--download-dir", str(tmp_path),
                      *extra])


def test_local_mismatch_and_bad_utf8_name_the_file(tmp_path):
    short = tmp_path / "short.yy"
    short.write_text("only one line\n")
    with pytest.raises(InputError, match="parallel files must match"):
        prepare.main(_local_args(tmp_path, short))
    bad = tmp_path / "bad.yy"
    bad.write_bytes(b"fine\n\xff\xfe broken\n")
    with pytest.raises(InputError) as err:
        prepare.main(_local_args(tmp_path, bad))
    assert f"{bad}:2:" in str(err.value) and "UTF-8" in str(err.value)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_stats_counts_tokens_and_types(tmp_path):
    (tmp_path / "a.en").write_text("a b c\na a\n")
    (tmp_path / "a.de").write_text("x@@ y\nz\n")
    stats.main(["--lang-pair", "en-de", "--split", "train", str(tmp_path / "a.en"),
                str(tmp_path / "a.de"), "--out", str(tmp_path / "s.tsv")])
    rows = [line.split("\t") for line in read_lines(tmp_path / "s.tsv")]
    assert rows[0] == list(stats.COLUMNS)
    assert rows[1] == ["train", "src", "en", "2", "5", "3", "2.5", "3", ""]  # in_train: n/a
    assert rows[2] == ["train", "tgt", "de", "2", "3", "3", "1.5", "2", ""]


@pytest.mark.skipif(not MIRROR.is_dir(), reason="shared multi30k mirror absent")
def test_single_split_mode(tmp_path):
    out = tmp_path / "dev.fr"
    assert prepare.main(["--dataset", "multi30k", "--download-dir", str(MIRROR),
                         "--split", "dev", "--lang", "fr", "--out", str(out)]) == 0
    assert len(read_lines(out)) == 1014
    with pytest.raises(InputError, match="no split 'nope'"):
        prepare.main(["--dataset", "multi30k", "--download-dir", str(MIRROR),
                      "--split", "nope", "--lang", "fr", "--out", str(out)])


def test_local_single_file_copy(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo  \n")
    prepare.main(["local", "--in", str(tmp_path / "a.txt"), "--out",
                  str(tmp_path / "o/a.txt")])
    assert read_lines(tmp_path / "o/a.txt") == ["one", "two"]
    (tmp_path / "b.txt").write_bytes(b"ok\n\xff\n")
    with pytest.raises(InputError, match=r"b.txt:2: invalid UTF-8"):
        prepare.main(["local", "--in", str(tmp_path / "b.txt"), "--out",
                      str(tmp_path / "o/b.txt")])
    assert not (tmp_path / "o/b.txt").exists()


# --- document ids ---------------------------------------------------------------

def _talk(talkid: str, lang: str, lines: list[str], extra: bool = False) -> list[str]:
    """One talk of a train.tags file (IWSLT17 headers have more tag lines)."""
    head = [f"<url>http://www.ted.com/talks/{talkid}.html</url>",
            "<keywords>talks</keywords>"]
    head += ["<speaker>Someone</speaker>"] if extra else []
    head += [f"<talkid>{talkid}</talkid>", f"<title>T{talkid} {lang}</title>",
             f"<description>D{talkid} {lang}</description>"]
    head += ['<reviewer href="x">R</reviewer>', "<translator>X</translator>"] * extra
    return head + [f"{lang} {line}" for line in lines]


def _xml_docs(name: str, lang: str, docs: dict[str, int]) -> str:
    out = ['<refset setid="x" srclang="en">']
    for docid, n in docs.items():
        out.append(f'<doc docid="{docid}" genre="lectures">')
        out += [f'<seg id="{i}"> {name} {lang} {docid}.{i} </seg>'
                for i in range(1, n + 1)]
        out.append("</doc>")
    return "\n".join([*out, "</refset>"]) + "\n"


def test_iwslt14_docs_follow_talks_and_xml_docs(tmp_path):
    talks = {"1": [f"a{i}" for i in range(30)], "77": [f"b{i}" for i in range(20)]}
    members = {}
    for lang in ("de", "en"):
        lines = [x for t, body in talks.items() for x in _talk(t, lang, body)]
        lines[lines.index(f"{lang} a4")] = ""  # an empty sentence is dropped
        members[f"de-en/train.tags.de-en.{lang}"] = "\n".join(lines) + "\n"
        for name in prepare.IWSLT14_TEST:
            members[f"de-en/{name}.de-en.{lang}.xml"] = _xml_docs(
                name, lang, {"5": 2, "9": 1})
    _tgz(tmp_path / "dl/de-en.tgz", members)
    prepare.prepare_dataset("iwslt14", tmp_path / "dl", tmp_path / "raw", "de", "en",
                            log=_quiet)
    raw = tmp_path / "raw"
    # talk 1: title, description, 29 sentences; talk 77: title, description, 20
    kept = [("1", x) for x in ["T1 de", "D1 de"] + [f"de a{i}" for i in range(30)
                                                  if i != 4]]
    kept += [("77", x) for x in ["T77 de", "D77 de"] + [f"de b{i}" for i in range(20)]]
    dev = [kept[i] for i in range(22, len(kept), 23)]
    train = [p for i, p in enumerate(kept) if (i + 1) % 23]
    for split, rows in (("train", train), ("dev", dev)):
        assert read_lines(raw / f"{split}.de") == [x for _, x in rows]
        assert read_lines(raw / f"{split}.docs") == [d for d, _ in rows]
    docs = read_lines(raw / "test.docs")
    assert len(docs) == len(read_lines(raw / "test.en")) == 15
    assert docs[:3] == ["IWSLT14.TED.dev2010#5"] * 2 + ["IWSLT14.TED.dev2010#9"]
    assert len(set(docs)) == 10  # every set's documents stay distinct


def _iwslt17_archive(path: Path, tst_docs: dict[str, int]) -> None:
    members = {}
    for lang in ("en", "de"):
        lines = (_talk("1", lang, ["x1", "x2", "x3"], extra=True)
                 + _talk("2", lang, ["y1", "y2"], extra=True))
        members[f"en-de/train.tags.en-de.{lang}"] = "\n".join(lines) + "\n"
        for name in ("dev2010", *prepare.IWSLT17_TESTS):
            members[f"en-de/IWSLT17.TED.{name}.en-de.{lang}.xml"] = _xml_docs(
                name, lang, tst_docs)
    _tgz(path / prepare.IWSLT17_ARCHIVE, members)


def test_iwslt17_keeps_text_lines_with_talk_ids(tmp_path):
    _iwslt17_archive(tmp_path / "dl", {"535": 2, "536": 3})
    counts = prepare.prepare_dataset("iwslt17_en_de", tmp_path / "dl",
                                     tmp_path / "raw", "de", "en", log=_quiet)
    assert counts == {"train": 5, "dev": 5, **{t: 5 for t in prepare.IWSLT17_TESTS}}
    raw = tmp_path / "raw"
    assert read_lines(raw / "train.en") == ["en x1", "en x2", "en x3", "en y1",
                                            "en y2"]
    assert read_lines(raw / "train.docs") == ["1"] * 3 + ["2"] * 2
    assert read_lines(raw / "tst2013.docs") == ["tst2013#535"] * 2 + [
        "tst2013#536"] * 3
    assert read_lines(raw / "dev.de")[0] == "dev2010 de 535.1"
    assert datasets.has_documents("iwslt17_en_de")
    assert not datasets.has_documents("multi30k")


def test_single_split_docs_mode(tmp_path):
    _iwslt17_archive(tmp_path / "dl", {"7": 1})
    out = tmp_path / "o/train.docs"
    assert prepare.main(["--dataset", "iwslt17_en_de", "--download-dir",
                         str(tmp_path / "dl"), "--split", "train", "--lang", "docs",
                         "--out", str(out)]) == 0
    assert read_lines(out) == ["1"] * 3 + ["2"] * 2
    (tmp_path / "s").mkdir()
    for stem in ("train", "tst2012", "tst2013"):  # a dataset without documents
        for lang in ("en", "vi"):
            (tmp_path / f"s/{stem}.{lang}").write_text("a\nb\nc\n")
    prepare.main(["--dataset", "iwslt15_en_vi", "--download-dir",
                  str(tmp_path / "s"), "--split", "tst2013", "--lang", "docs",
                  "--out", str(out)])
    assert read_lines(out) == ["tst2013-000000", "tst2013-000001", "tst2013-000002"]


def test_talk_boundaries_must_agree(tmp_path):
    members = {"de-en/train.tags.de-en.de": "\n".join(
        _talk("1", "de", ["a", "b"]) + _talk("2", "de", ["c"])) + "\n",
        "de-en/train.tags.de-en.en": "\n".join(
        _talk("1", "en", ["a"]) + _talk("2", "en", ["b", "c"])) + "\n"}
    _tgz(tmp_path / "dl/de-en.tgz", members)
    with pytest.raises(InputError, match="talk boundaries differ at kept line 4"):
        prepare.prepare_dataset("iwslt14", tmp_path / "dl", tmp_path / "raw", "de",
                                "en", log=_quiet)
    assert not (tmp_path / "raw").exists()


def test_local_docs_are_checked_and_copied(tmp_path):
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    (tmp_path / "train.docs").write_text("talk1\ntalk1\n")
    (tmp_path / "test.docs").write_text("d1\nd2\n")
    args += ["--train-docs", str(tmp_path / "train.docs")]
    args[args.index("--test") + 1] += f",{tmp_path / 'test.docs'}"
    assert prepare.main(args) == 0
    assert read_lines(tmp_path / "out/train.docs") == ["talk1", "talk1"]
    assert read_lines(tmp_path / "out/mytest.docs") == ["d1", "d2"]
    assert read_lines(tmp_path / "out/dev.docs") == ["dev-000000", "dev-000001"]


@pytest.mark.parametrize("docs, message", [
    ("a\na\na\n", r"train.docs: has 3 lines but .*in.train.xx has 2"),
    ("a\n\n", r"train.docs:2: a document id must be one token"),
])
def test_bad_local_docs_write_nothing(tmp_path, docs, message):
    (tmp_path / "train.docs").write_text(docs)
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    args += ["--train-docs", str(tmp_path / "train.docs")]
    with pytest.raises(InputError, match=message):
        prepare.main(args)
    assert not (tmp_path / "out").exists()


def test_docs_file_copy_checks_ids(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("1\n2\n3\n")
    (tmp_path / "d").write_text("a\nb\na\n")
    with pytest.raises(InputError, match=r"d:3: document 'a' reappears after "
                                         r"document 'b'"):
        prepare.main(["local", "--in", str(tmp_path / "d"), "--docs-for", str(text),
                      "--out", str(tmp_path / "o.docs")])
    assert not (tmp_path / "o.docs").exists()
    (tmp_path / "d").write_text("a\nb\nb\n")
    prepare.main(["local", "--in", str(tmp_path / "d"), "--docs-for", str(text),
                  "--out", str(tmp_path / "o.docs")])
    assert read_lines(tmp_path / "o.docs") == ["a", "b", "b"]
    prepare.main(["docs", "--text", str(text), "--split", "dev", "--out",
                  str(tmp_path / "dev.docs")])
    assert read_lines(tmp_path / "dev.docs") == ["dev-000000", "dev-000001",
                                                 "dev-000002"]


def test_cleaning_drops_doc_ids_with_their_pairs(tmp_path):
    """Real datasets' docs flow through clean --sidecar like the synthetic ones."""
    _iwslt17_archive(tmp_path / "dl", {"1": 1})
    raw = tmp_path / "raw"
    prepare.prepare_dataset("iwslt17_en_de", tmp_path / "dl", raw, "en", "de",
                            log=_quiet)
    (raw / "train.en").write_text("a b\nen x2\none two three four five six\n"
                                  "en y1\nen y2\n")  # line 3: bad length ratio
    clean.main(["--src-in", str(raw / "train.en"), "--tgt-in", str(raw / "train.de"),
                "--src-out", str(tmp_path / "c.en"), "--tgt-out",
                str(tmp_path / "c.de"), "--src-lang", "en", "--tgt-lang", "de",
                "--filter", "--max-ratio", "2", "--sidecar", str(raw / "train.docs"),
                str(tmp_path / "c.docs"), "--stats", str(tmp_path / "s.tsv")])
    assert read_lines(tmp_path / "c.de") == ["de x1", "de x2", "de y1", "de y2"]
    assert read_lines(tmp_path / "c.docs") == ["1", "1", "2", "2"]


# --- Unicode normalisation and removed controls of a local corpus -----------------

def test_local_text_is_copied_in_nfc_and_the_log_says_how_many_lines_changed(
        tmp_path, capsys):
    """An English side written on macOS (e + U+0301) and a Hebrew reference with
    its dagesh typed before the qamats reach every stage in the same code points as
    NFC text; the log names the file and counts the lines changed and the
    bidirectional controls removed."""
    nfd = tmp_path / "test.en"
    nfd.write_text("Cafe\u0301 ok\nplain\n")
    marks = tmp_path / "test.he"  # bet + dagesh + qamats: NFC puts the qamats first
    marks.write_text("\u05d1\u05bc\u05b8\u200f\nשלום\n")
    for path, out in ((nfd, "o/test.en"), (marks, "o/test.he")):
        prepare.main(["local", "--in", str(path), "--out", str(tmp_path / out)])
    assert read_lines(tmp_path / "o/test.en") == ["Caf\u00e9 ok", "plain"]
    assert read_lines(tmp_path / "o/test.he") == ["\u05d1\u05b8\u05bc", "שלום"]
    err = capsys.readouterr().err
    assert f"{nfd}: 1 of 2 lines changed by Unicode NFC normalisation" in err
    assert f"{marks}: 1 of 2 lines changed by Unicode NFC normalisation" in err
    assert (f"{marks}: removed 1 bidirectional control character "
            "(1 U+200F RIGHT-TO-LEFT MARK)") in err


def test_whole_local_dataset_is_normalised_and_logged(tmp_path, capsys):
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    train = tmp_path / "in.train.xx"
    train.write_text("Cafe\u0301\u200e\nsecond\n")
    assert prepare.main(args) == 0
    assert read_lines(tmp_path / "out/train.xx")[0] == "Caf\u00e9"
    err = capsys.readouterr().err
    assert f"{train}: 1 of 2 lines changed by Unicode NFC normalisation" in err
    assert f"{train}: removed 1 bidirectional control character" in err


def test_an_evaluation_line_of_only_a_direction_mark_names_the_users_file(tmp_path):
    """A dev or test line that held only U+200F is refused where the user's
    file is read, naming that file (not the workflow's copy) and the mark."""
    user = tmp_path / "test.he"
    user.write_text("שלום\n\u200f\nעולם\n")
    with pytest.raises(InputError) as err:
        prepare.main(["local", "--in", str(user), "--out", str(tmp_path / "o/test.he"),
                      "--evaluation"])
    assert str(err.value) == (f"{user}:2: empty line: it holds only invisible format "
                              "characters (U+200F)")
    assert not (tmp_path / "o/test.he").exists()
    # a training side keeps the line: cleaning drops the pair as `empty`
    prepare.main(["local", "--in", str(user), "--out", str(tmp_path / "o/train.he")])
    assert read_lines(tmp_path / "o/train.he") == ["שלום", "", "עולם"]


def test_whole_local_dataset_refuses_an_empty_test_line(tmp_path):
    test_tgt = tmp_path / "in.test.yy"
    args = _local_args(tmp_path, test_tgt)
    test_tgt.write_text("one\n\u200e\u200f \n")
    with pytest.raises(InputError, match=rf"{test_tgt}:2: empty line: it holds only "
                                         r"invisible format characters \(U\+200E, U\+200F\)"):
        prepare.main(args)


# --- the script of each side: source and target swapped ------------------------

ENGLISH = ["The meeting with the new team is on Monday morning.",
           "Open the file in the editor and save it before you close it.",
           "Could not connect to the server: check your network settings.",
           "The printer is out of paper; add paper and try again."] * 5
# Hebrew with Latin names and code in it, as user interface text has
HEBREW = ["הפגישה עם הצוות החדש של Sarah ביום שני בבוקר.",
          "פתח את הקובץ ב-Emacs ושמור אותו לפני שתסגור אותו.",
          "לא ניתן להתחבר לשרת localhost: בדוק את הגדרות הרשת.",
          "אין נייר במדפסת; הוסף נייר ונסה שוב."] * 5
# Hebrew in Latin letters: one side alone in the other's script is no swap
TRANSLITERATED = ["Ha-pgisha im ha-tsevet he-hadash hi be-yom sheni ba-boker.",
                  "Ptah et ha-kovets ba-orekh u-shmor oto lifnei she-tisgor oto.",
                  "Lo nitan lehithaber la-sharat: bdok et hagdarot ha-reshet.",
                  "Ein neyar ba-madpeset; hosef neyar ve-nase shuv."] * 5
GERMAN = ["Die Besprechung mit dem neuen Team ist am Montagmorgen.",
          "Öffne die Datei im Editor und speichere sie vor dem Schließen.",
          "Keine Verbindung zum Server: prüfe die Netzwerkeinstellungen.",
          "Der Drucker hat kein Papier; lege Papier ein und versuche es erneut."] * 5


def _side(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _prepare_side(tmp_path: Path, text: list[str], pair: list[str], side: str,
                  langs: tuple[str, str]) -> int:
    """`prepare local` of one dev file, whose split's other file holds `pair`."""
    src = _side(tmp_path / "dev.a", text)
    other = _side(tmp_path / "dev.b", pair)
    return prepare.main(["local", "--in", str(src), "--out", str(tmp_path / "o/dev.a"),
                         "--evaluation", "--pair", str(other), "--side", side,
                         "--langs", *langs])


@pytest.mark.parametrize("side, text, pair, message", [
    ("src", HEBREW, ENGLISH, ("87 % of its letters are Hebrew, the script of the "
     "target language he, and 13 % Latin: source and target swapped?")),
    ("tgt", ENGLISH, HEBREW, ("100 % of its letters are Latin, the script of the "
     "source language en, and 0 % Hebrew: source and target swapped?")),
])
def test_a_split_with_source_and_target_swapped_is_refused(tmp_path, side, text,
                                                           pair, message):
    with pytest.raises(InputError) as err:
        _prepare_side(tmp_path, text, pair, side, ("en", "he"))
    assert str(err.value) == f"{tmp_path / 'dev.a'}: {message}"
    assert not (tmp_path / "o/dev.a").exists()


@pytest.mark.parametrize("side, text, pair, langs", [
    ("tgt", HEBREW, ENGLISH, ("en", "he")),  # Latin names in the Hebrew side
    ("src", ENGLISH, HEBREW, ("en", "he")),
    ("tgt", TRANSLITERATED, ENGLISH, ("en", "he")),  # one side in the other's script
    ("src", GERMAN, ENGLISH, ("en", "de")),  # one script: nothing to compare
    ("src", HEBREW, ENGLISH, ("en", "xx")),  # a script the table does not know
    ("src", HEBREW, ENGLISH, ("xx", "he")),
])
def test_sides_in_their_own_scripts_or_scripts_not_known_are_copied(tmp_path, side,
                                                                    text, pair, langs):
    assert _prepare_side(tmp_path, text, pair, side, langs) == 0
    assert read_lines(tmp_path / "o/dev.a") == text


def test_the_script_options_go_together(tmp_path):
    src = _side(tmp_path / "dev.en", ENGLISH)
    with pytest.raises(InputError, match="^--pair, --side and --langs go together"):
        prepare.main(["local", "--in", str(src), "--out", str(tmp_path / "o/dev.en"),
                      "--side", "src"])


def test_whole_local_dataset_refuses_a_swapped_dev_split(tmp_path):
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    for split, src, tgt in (("train", ENGLISH, HEBREW), ("dev", HEBREW, ENGLISH),
                            ("test", ENGLISH, HEBREW)):
        _side(tmp_path / f"in.{split}.xx", src)
        _side(tmp_path / f"in.{split}.yy", tgt)
    args[args.index("--src") + 1], args[args.index("--tgt") + 1] = "en", "he"
    with pytest.raises(InputError) as err:
        prepare.main(args)
    assert str(err.value) == (f"{tmp_path / 'in.dev.xx'}: 87 % of its letters are "
                              "Hebrew, the script of the target language he, and "
                              "13 % Latin: source and target swapped?")
    assert not (tmp_path / "out").exists()
    _side(tmp_path / "in.dev.xx", ENGLISH)  # put right: every split is written
    _side(tmp_path / "in.dev.yy", HEBREW)
    assert prepare.main(args) == 0
    assert read_lines(tmp_path / "out/dev.he") == HEBREW


# --- the language of each side by its function words ---------------------------

PROSE = {"en": ENGLISH_PROSE * REPEATS, "de": GERMAN_PROSE * REPEATS,
         "fr": FRENCH_PROSE * REPEATS}


@pytest.mark.parametrize("side, text, pair, message", [
    ("src", "de", "en", ("looks like de, not en (51 % of its words are de function "
     "words, 2 % en ones), and {pair} like en, not de (55 % en, 2 % de): source "
     "and target swapped?")),
    ("tgt", "en", "de", ("looks like en, not de (55 % of its words are en function "
     "words, 2 % de ones), and {pair} like de, not en (51 % de, 2 % en): source "
     "and target swapped?")),
])
def test_a_split_with_source_and_target_swapped_in_one_script_is_refused(
        tmp_path, side, text, pair, message):
    """en-de in one script: `train.en` holds the German and `train.de` the
    English; neither side's file is written."""
    with pytest.raises(InputError) as err:
        _prepare_side(tmp_path, PROSE[text], PROSE[pair], side, ("en", "de"))
    assert str(err.value) == (f"{tmp_path / 'dev.a'}: "
                              + message.format(pair=tmp_path / "dev.b"))
    assert not (tmp_path / "o/dev.a").exists()
    # --no-language-check: copied as it is
    src, other = tmp_path / "dev.a", tmp_path / "dev.b"
    assert prepare.main(["local", "--in", str(src), "--out", str(tmp_path / "o/dev.a"),
                         "--pair", str(other), "--side", side, "--langs", "en", "de",
                         "--no-language-check"]) == 0
    assert read_lines(tmp_path / "o/dev.a") == PROSE[text]


def test_a_side_in_another_listed_language_is_warned_of_and_copied(tmp_path, capsys):
    """A dev.de that is French: one warning naming the file, the declared and
    the found language with their shares; the file is copied as it is."""
    assert _prepare_side(tmp_path, PROSE["fr"], PROSE["en"], "tgt", ("en", "de")) == 0
    err = capsys.readouterr().err
    assert (f"warning: {tmp_path / 'dev.a'}: looks like fr, not de, the target "
            "language (48 % of its words are fr function words, 2 % de ones): the "
            "wrong file, or a wrong language code?") in err
    assert read_lines(tmp_path / "o/dev.a") == PROSE["fr"]
    src = tmp_path / "dev.a"
    assert prepare.main(["local", "--in", str(src), "--out", str(tmp_path / "o/dev.b"),
                         "--pair", str(tmp_path / "dev.b"), "--side", "tgt",
                         "--langs", "en", "de", "--no-language-check"]) == 0
    assert "looks like" not in capsys.readouterr().err


@pytest.mark.parametrize("text, pair, side, langs", [
    ("de", "en", "tgt", ("en", "de")),  # each in its own language
    ("en", "de", "src", ("en", "de")),
    ("de", "en", "tgt", ("en", "sk")),  # a language without a list: not judged
    ("en", "de", "src", ("xx", "de")),
])
def test_sides_in_their_own_languages_or_languages_not_listed_are_copied_silently(
        tmp_path, capsys, text, pair, side, langs):
    assert _prepare_side(tmp_path, PROSE[text], PROSE[pair], side, langs) == 0
    assert "looks like" not in capsys.readouterr().err


def test_a_short_file_is_not_judged(tmp_path, capsys):
    """Two dozen lines (under MIN_WORDS words) are copied without a word."""
    assert _prepare_side(tmp_path, GERMAN_PROSE * 4, ENGLISH_PROSE * 4, "src",
                         ("en", "de")) == 0
    assert "looks like" not in capsys.readouterr().err


def test_no_language_check_goes_with_pair(tmp_path):
    src = _side(tmp_path / "dev.en", ENGLISH)
    with pytest.raises(InputError, match="^--no-language-check goes with --pair"):
        prepare.main(["local", "--in", str(src), "--out", str(tmp_path / "o/dev.en"),
                      "--no-language-check"])


def test_whole_local_dataset_refuses_a_swapped_split_in_one_script(tmp_path, capsys):
    args = _local_args(tmp_path, tmp_path / "in.test.yy")
    for split, src, tgt in (("train", "de", "en"), ("dev", "en", "de"),
                            ("test", "en", "fr")):
        _side(tmp_path / f"in.{split}.xx", PROSE[src])
        _side(tmp_path / f"in.{split}.yy", PROSE[tgt])
    args[args.index("--src") + 1], args[args.index("--tgt") + 1] = "en", "de"
    with pytest.raises(InputError, match=rf"^{tmp_path / 'in.train.xx'}: looks like "
                       rf"de, not en .*, and {tmp_path / 'in.train.yy'} like en"):
        prepare.main(args)
    assert not (tmp_path / "out").exists()
    assert prepare.main([*args, "--no-language-check"]) == 0
    assert "looks like" not in capsys.readouterr().err
    _side(tmp_path / "in.train.xx", PROSE["en"])  # put right: the French test
    _side(tmp_path / "in.train.yy", PROSE["de"])  # side is warned of
    assert prepare.main(args) == 0
    assert (f"{tmp_path / 'in.test.yy'}: looks like fr, not de, the target "
            "language") in capsys.readouterr().err


def test_hebrew_in_visual_order_is_warned_of_and_copied(tmp_path, capsys):
    """Some catalogs store Hebrew reversed (visual order): its words begin with
    the final letters. A warning names the file, the count and the first line;
    logical-order Hebrew (every final letter at a word's end) gets none."""
    reversed_lines = [line[::-1] for line in HEBREW]
    mixed = HEBREW[:4] + reversed_lines[:5] + HEBREW[4:]
    assert _prepare_side(tmp_path, mixed, ENGLISH * 2, "tgt", ("en", "he")) == 0
    err = capsys.readouterr().err
    assert (f"warning: {tmp_path / 'dev.a'}: 5 of {len(mixed)} lines look like text in "
            "visual order") in err and "first line 5;" in err
    assert read_lines(tmp_path / "o/dev.a") == mixed  # the run goes on
    assert _prepare_side(tmp_path, HEBREW, ENGLISH, "tgt", ("en", "he")) == 0
    assert "visual order" not in capsys.readouterr().err
