"""Registry of real datasets: where their files live, checksums, splits, languages."""

from __future__ import annotations

from dataclasses import dataclass, field

from phrasenmt.io import InputError


@dataclass(frozen=True)
class Dataset:
    """A downloadable corpus and what `phrasenmt.data.prepare` makes of it."""

    name: str
    # files are fetched from base_url + relative path; a mirror folder holds the
    # same relative paths, so `wget -x`-style copies work as mirrors
    base_url: str
    # relative path -> sha256 hex digest, or None where no digest is known
    files: dict[str, str | None]
    # languages every split has; a direction is any (src, tgt) pair in `directions`
    languages: tuple[str, ...]
    directions: tuple[tuple[str, str], ...]
    # evaluation splits written by prepare (the dev split first, then test sets)
    eval_splits: tuple[str, ...]
    # training split(s) written by prepare (empty for test-only resources)
    train_splits: tuple[str, ...] = ("train",)
    # key of the function in phrasenmt.data.prepare that builds the raw splits
    preparer: str = ""
    # True when the published text is already Moses-tokenized (clean --pretokenized)
    pretokenized: bool = False
    description: str = ""
    # per-split notes (e.g. which upstream file a split comes from)
    notes: dict[str, str] = field(default_factory=dict)
    # clean-stage settings of the published recipe (clean.py option -> value)
    clean_defaults: dict[str, object] = field(default_factory=dict)
    # True when prepare writes real document ids ({split}.docs: talks, <doc>s);
    # otherwise every line is its own document and document-level models on the
    # dataset are a configuration error
    documents: bool = False
    # what else a user can do on an offline machine (added to the download's
    # failure message after the mirror hint)
    offline: str = ""

    def url(self, path: str) -> str:
        """Return the download URL of one relative file path."""
        return self.base_url + path


def _all_directions(langs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Every ordered pair of distinct languages."""
    return tuple((a, b) for a in langs for b in langs if a != b)


_M30K_RAW = "data/task1/raw/"
_M30K_SHA256 = {
    "train.de": "726e39b2fa9eb9ffb6dc763fb35a179f80fae06ffc5d28b6ace5faa883de28a6",
    "train.en": "d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f",
    "train.fr": "622e75069e9f4c577425c4f277116ce66e63a2401c0a2312d90073cb12379a3c",
    "val.de": "f0cba2f995189cf5770f29a8a9a537a3ad3f51657ad873405082ff6863a5e75a",
    "val.en": "14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28",
    "val.fr": "ca3106f1a72390591d25f6c45cb4cd39dec4cd3f123e099748a3ce5256c160e9",
    "test_2016_flickr.de":
        "9204244e408ccb38d2a55cfcd344df15005fc42a07a6e55ca6c52b6ababb8cc8",
    "test_2016_flickr.en":
        "611d361c6334bc7246101d48097c13cf5c4413c5befc793cc629934359d532d9",
    "test_2016_flickr.fr":
        "6d326e188d259fb1d04ac19eae3af956559b3a0b93d7635e56c90987c40c8b90",
    "test_2017_flickr.de":
        "a2c89666db00c495cd8513b9d708d5a3acc205d7de312ef2bf5fb7ebc1540aee",
    "test_2017_flickr.en":
        "76a444ee25172e72695cddb13ae4a3bda59430617be88e0bb46b60504f054074",
    "test_2017_flickr.fr":
        "3ba671ceb2299f3304ffafefea7a833d08632fbaf0ba18546f8a2ec2391af496",
    "test_2017_mscoco.de":
        "799e4854c25d601cb6cb6be29eabe5667734c61ace2f495e03e429031a0bc338",
    "test_2017_mscoco.en":
        "aab300bfb4427697987e02cd0aacd44bfe8aa50456231b6474c08038bbed2b58",
    "test_2017_mscoco.fr":
        "754f3072ba9f124569ba5258b32730fc1d214bbf8e0c6dfb2b74401676220db0",
    "test_2018_flickr.de":
        "ddd0130c7d97482dc5197a02141dae8dd79f20f03586c480d675c09a32daf608",
    "test_2018_flickr.en":
        "ef4f4844037d4c5dea75c9a8ed5fd78905967a26f67c255e230cc9780032654d",
    "test_2018_flickr.fr":
        "fb2b83fcceb937a4f7e3e93c1c51c22aba92f1e342391e6b5ba392b16a920501",
}
# split name written by prepare -> file stem in the multi30k repository
MULTI30K_SPLITS = {
    "train": "train",
    "dev": "val",
    "test_2016_flickr": "test_2016_flickr",
    "test_2017_flickr": "test_2017_flickr",
    "test_2017_mscoco": "test_2017_mscoco",
    "test_2018_flickr": "test_2018_flickr",
}

MULTI30K = Dataset(
    name="multi30k",
    base_url="https://github.com/multi30k/dataset/raw/master/",
    files={f"{_M30K_RAW}{key}.gz": digest for key, digest in _M30K_SHA256.items()},
    languages=("en", "de", "fr"),
    directions=_all_directions(("en", "de", "fr")),
    eval_splits=("dev", "test_2016_flickr", "test_2017_flickr",
                 "test_2017_mscoco", "test_2018_flickr"),
    preparer="multi30k",
    description="Multi30k task 1 (image captions), raw text; 29000/1014 train/dev",
    notes={"dev": "val", "test_2018_flickr": "1071 lines, all three languages"},
)

IWSLT14 = Dataset(
    name="iwslt14",
    base_url="http://dl.fbaipublicfiles.com/fairseq/data/iwslt14/",
    files={"de-en.tgz": None},
    languages=("de", "en"),
    directions=(("de", "en"), ("en", "de")),
    eval_splits=("dev", "test"),
    preparer="iwslt14",
    description="IWSLT 2014 TED de-en, split as fairseq's prepare-iwslt14.sh",
    notes={"dev": "every 23rd line of train.tags",
           "test": "dev2010 + TEDX.dev2012 + tst2010 + tst2011 + tst2012",
           "docs": "train/dev: <talkid> of train.tags; test: SET#docid"},
    clean_defaults={"lowercase": True, "max_len": 175, "max_ratio": 1.5},
    documents=True,
)

# IWSLT 2017 TED en-de as released by WIT3 (2017-01-trnted). The sha256 of the
# archive is not known to us (None: download checks nothing, records the digest).
IWSLT17_ARCHIVE = "2017-01-trnted/texts/en/de/en-de.tgz"
IWSLT17_TESTS = ("tst2010", "tst2011", "tst2012", "tst2013", "tst2014", "tst2015")

IWSLT17_EN_DE = Dataset(
    name="iwslt17_en_de",
    base_url="https://wit3.fbk.eu/archive/",
    files={IWSLT17_ARCHIVE: None},
    languages=("en", "de"),
    directions=(("en", "de"), ("de", "en")),
    eval_splits=("dev", *IWSLT17_TESTS),
    preparer="iwslt17",
    description="IWSLT 2017 TED en-de (WIT3 2017-01-trnted), with talk documents",
    notes={"train": "text lines of train.tags.en-de (tag lines dropped)",
           "dev": "IWSLT17.TED.dev2010", "tst2010": "IWSLT17.TED.tst2010 (etc.)",
           "docs": "train: <talkid>; dev/tests: <doc docid>"},
    clean_defaults={"lowercase": False, "max_len": 175, "max_ratio": 1.5},
    documents=True,
)

# fairseq prepare-wmt14en2de.sh (default, not --icml17): host-prefixed paths
WMT14_TRAIN = {
    "statmt.org/wmt13/training-parallel-europarl-v7.tgz": "europarl-v7.de-en",
    "statmt.org/wmt13/training-parallel-commoncrawl.tgz": "commoncrawl.de-en",
    "data.statmt.org/wmt17/translation-task/training-parallel-nc-v12.tgz":
        "news-commentary-v12.de-en",
}
WMT14_DEV_ARCHIVE = "data.statmt.org/wmt17/translation-task/dev.tgz"
WMT14_TEST_ARCHIVE = "statmt.org/wmt14/test-full.tgz"

WMT14_EN_DE = Dataset(
    name="wmt14_en_de",
    base_url="http://",
    files={**{path: None for path in WMT14_TRAIN},
           WMT14_DEV_ARCHIVE: None, WMT14_TEST_ARCHIVE: None},
    languages=("en", "de"),
    directions=(("en", "de"), ("de", "en")),
    eval_splits=("dev", "newstest2014"),
    preparer="wmt14",
    description="WMT14 en-de: europarl v7 + commoncrawl + news-commentary v12",
    notes={"dev": "newstest2012 + newstest2013 (sgm)",
           "newstest2014": "test-full newstest2014-deen sgm, 3003 lines"},
    clean_defaults={"lowercase": False, "max_len": 250, "max_ratio": 1.5},
)

IWSLT15_EN_VI = Dataset(
    name="iwslt15_en_vi",
    base_url="https://nlp.stanford.edu/projects/nmt/data/iwslt15.en-vi/",
    files={f"{stem}.{lang}": None for stem in ("train", "tst2012", "tst2013")
           for lang in ("en", "vi")},
    languages=("en", "vi"),
    directions=(("en", "vi"), ("vi", "en")),
    eval_splits=("dev", "tst2013"),
    preparer="iwslt15",
    pretokenized=True,
    description="IWSLT15 en-vi as released by Stanford NMT (Moses-tokenized)",
    notes={"dev": "tst2012"},
)

LINGEVAL97 = Dataset(
    name="lingeval97",
    base_url="https://raw.githubusercontent.com/rsennrich/lingeval97/master/",
    files={"lingeval97.json": None},
    languages=("en", "de"),
    directions=(("en", "de"),),
    eval_splits=("lingeval97",),
    train_splits=(),
    preparer="lingeval97",
    description="LingEval97 contrastive en->de pairs (Sennrich 2017)",
    notes={"lingeval97": "reference first, then each contrastive variant"},
    offline="or leave the agreement analysis out: `lingeval: false` in the dataset's "
            "config",
)

DATASETS: dict[str, Dataset] = {
    d.name: d for d in (MULTI30K, IWSLT14, IWSLT17_EN_DE, WMT14_EN_DE, IWSLT15_EN_VI,
                        LINGEVAL97)
}


def dataset_names() -> list[str]:
    """Names of all registered datasets."""
    return sorted(DATASETS)


def get_dataset(name: str) -> Dataset:
    """Look a dataset up by name; an unknown name lists the known ones."""
    if name not in DATASETS:
        raise InputError(
            f"unknown dataset {name!r}; known datasets: {', '.join(dataset_names())}")
    return DATASETS[name]


def eval_splits(name: str) -> list[str]:
    """Evaluation split names (dev first, then test sets) of a dataset."""
    return list(get_dataset(name).eval_splits)


def has_documents(name: str) -> bool:
    """True when the dataset's splits carry real document ids (not one per line)."""
    return get_dataset(name).documents


def download_files(name: str) -> list[str]:
    """Relative paths of every file the download step fetches for a dataset."""
    return list(get_dataset(name).files)


def check_direction(name: str, src: str, tgt: str) -> None:
    """Raise InputError unless the dataset offers the src->tgt direction."""
    ds = get_dataset(name)
    if (src, tgt) not in ds.directions:
        offered = ", ".join(f"{a}-{b}" for a, b in ds.directions)
        raise InputError(
            f"dataset {name!r} has no {src}-{tgt} direction; it offers {offered}")
