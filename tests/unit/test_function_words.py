"""Which listed language a text's function words say it is in
(`phrasenmt.text.function_words`), as the local-corpus checks use it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from phrasenmt.synthetic.builder import GrammarConfig
from phrasenmt.synthetic.corpus import build_corpus
from phrasenmt.synthetic.documents import Limits
from phrasenmt.text import function_words as fw

# Six sentences of each language, the same in each (written for these tests);
# repeated, they give a file of well over MIN_WORDS words.
ENGLISH = [
    ("The meeting with the new team is on Monday morning, and we will talk about "
     "the plan for the year."),
    ("If you have any questions about the report, you can send them to me before "
     "the end of the week."),
    "She said that they were not sure whether the train would arrive on time.",
    "This is one of the best books that I have read in a long time.",
    "We could not open the file because it was too large for the old computer.",
    "There are many people in the city who work from home at least two days a week.",
]
GERMAN = [
    ("Die Besprechung mit dem neuen Team ist am Montagmorgen, und wir werden über "
     "den Plan für das Jahr sprechen."),
    ("Wenn Sie Fragen zu dem Bericht haben, können Sie sie mir bis zum Ende der "
     "Woche schicken."),
    "Sie sagte, dass sie nicht sicher waren, ob der Zug pünktlich ankommen würde.",
    "Das ist eines der besten Bücher, die ich seit langer Zeit gelesen habe.",
    "Wir konnten die Datei nicht öffnen, weil sie für den alten Computer zu groß war.",
    ("Es gibt viele Menschen in der Stadt, die mindestens zwei Tage in der Woche "
     "von zu Hause arbeiten."),
]
FRENCH = [
    ("La réunion avec la nouvelle équipe est lundi matin, et nous allons parler du "
     "plan pour l'année."),
    ("Si vous avez des questions sur le rapport, vous pouvez me les envoyer avant "
     "la fin de la semaine."),
    "Elle a dit qu'ils n'étaient pas sûrs que le train arriverait à l'heure.",
    "C'est un des meilleurs livres que j'ai lus depuis longtemps.",
    ("Nous n'avons pas pu ouvrir le fichier parce qu'il était trop gros pour le "
     "vieil ordinateur."),
    ("Il y a beaucoup de gens dans la ville qui travaillent à la maison au moins "
     "deux jours par semaine."),
]
DANISH = [
    "Mødet med det nye hold er mandag morgen, og vi vil tale om planen for året.",
    ("Hvis du har spørgsmål om rapporten, kan du sende dem til mig inden udgangen "
     "af ugen."),
    "Hun sagde, at de ikke var sikre på, om toget ville komme til tiden.",
    "Det er en af de bedste bøger, som jeg har læst i lang tid.",
    "Vi kunne ikke åbne filen, fordi den var for stor til den gamle computer.",
    "Der er mange mennesker i byen, som arbejder hjemme mindst to dage om ugen.",
]
SWEDISH = [
    "Mötet med det nya laget är på måndag morgon, och vi ska tala om planen för året.",
    ("Om du har frågor om rapporten, kan du skicka dem till mig före slutet av "
     "veckan."),
    "Hon sa att de inte var säkra på om tåget skulle komma i tid.",
    "Det är en av de bästa böckerna som jag har läst på länge.",
    "Vi kunde inte öppna filen eftersom den var för stor för den gamla datorn.",
    "Det finns många människor i staden som arbetar hemifrån minst två dagar i veckan.",
]
REPEATS = 10  # 60 lines, about 900 words
MIRROR = Path("/work/shared/data/multi30k/data/task1/raw")


def test_text_in_its_own_language_looks_like_no_other():
    for lines, lang in ((ENGLISH, "en"), (GERMAN, "de"), (FRENCH, "fr")):
        prof = fw.profile(lines * REPEATS)
        assert prof.words >= fw.MIN_WORDS
        assert prof.looks_like(lang) is None, lang


@pytest.mark.parametrize("lines, declared, actual", [
    (GERMAN, "en", "de"),  # an en->de source file that holds the German side
    (ENGLISH, "de", "en"),  # a target file that holds the English source
    (FRENCH, "de", "fr"),  # a dev.de that is French
    (GERMAN, "eng", "de"),  # a three-letter code of a listed language
])
def test_text_in_another_listed_language_looks_like_it(lines, declared, actual):
    prof = fw.profile(lines * REPEATS)
    assert prof.looks_like(declared) == actual
    assert prof.rate(actual) > fw.MIN_RATE > prof.rate(declared)


def test_close_languages_are_told_apart_by_the_words_they_do_not_share():
    """Danish and Swedish share half their function words; the words only
    one list has decide (MIN_RATIO), both ways."""
    danish, swedish = fw.profile(DANISH * 12), fw.profile(SWEDISH * 12)
    assert danish.looks_like("da") is None and swedish.looks_like("sv") is None
    assert danish.looks_like("sv") == "da" and swedish.looks_like("da") == "sv"
    assert danish.rate("sv") > fw.MIN_RATE  # the shared words alone would pass


def test_a_file_of_two_languages_is_not_said_to_be_one_of_them():
    """Two thirds English, one third German, declared de: not clearly English."""
    mixed = fw.profile((ENGLISH * 2 + GERMAN) * 5)
    assert mixed.rate("en") > 2 * mixed.rate("de")
    assert mixed.looks_like("de") is None and mixed.looks_like("en") is None


def test_a_sample_too_short_is_not_judged():
    """Under MIN_WORDS words (a short or mostly numeric file) nothing is said;
    the same text, longer, is judged."""
    short = GERMAN * 2
    assert fw.profile(short).words < fw.MIN_WORDS
    assert fw.profile(short).looks_like("en") is None
    numbers = [f"{n} {n * 7} {n * 13}.5 %" for n in range(1000)] + GERMAN * 2
    assert fw.profile(numbers).looks_like("en") is None
    assert fw.profile(GERMAN * REPEATS).looks_like("en") == "de"


def test_only_the_first_sample_lines_are_scored():
    """A file's first SAMPLE_LINES lines are its sample, whatever follows."""
    lines = ENGLISH * (fw.SAMPLE_LINES // len(ENGLISH) + 1) + GERMAN * 1000
    assert fw.profile(lines).looks_like("en") is None
    assert fw.profile(lines[fw.SAMPLE_LINES:]).looks_like("en") == "de"


@pytest.mark.parametrize("declared", ["sk", "xx", "he", "ja"])
def test_a_declared_language_without_a_list_is_not_judged(declared):
    assert fw.known(declared) is None
    assert fw.profile(GERMAN * REPEATS).looks_like(declared) is None


def test_a_language_without_a_list_looks_like_no_listed_one():
    """Text in a language that is not listed is not said to be a listed one
    by the few words it shares with them (Latin: "in", "a", "et", "non")."""
    latin = ["Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae.",
             "Hi omnes lingua, institutis, legibus inter se differunt.",
             "Horum omnium fortissimi sunt Belgae, propterea quod a cultu absunt.",
             "Qua de causa Helvetii quoque reliquos Gallos virtute praecedunt.",
             "Eorum una pars, quam Gallos obtinere dictum est, initium capit a flumine.",
             "Apud Helvetios longe nobilissimus fuit et ditissimus Orgetorix."]
    prof = fw.profile(latin * REPEATS)
    assert prof.words >= fw.MIN_WORDS
    assert [lang for lang in fw.FUNCTION_WORDS if prof.looks_like(lang)] == []


def test_a_list_of_names_is_not_a_language():
    """Place names that repeat one listed word ("Al", Dutch for "already")
    hold too few different words of its list (MIN_DISTINCT)."""
    names = [f"Al {name}" for name in ("Anbar", "Basrah", "Buraymi", "Fayyum",
                                       "Jahra", "Janub", "Khums", "Marj")] * 40
    prof = fw.profile(names)
    assert prof.words >= fw.MIN_WORDS and prof.rate("nl") > fw.MIN_RATE
    assert prof.looks_like("en") is None


def test_printf_conversions_entities_and_identifiers_are_not_words():
    """`%s`, `%1$lu`, `&amp;` and `key_id` would otherwise count as the Czech
    words "s", "a" and the like."""
    assert fw.profile(["%s: %1$lu of %d &amp; key_id <b>x</b> l'homme 0x%3$lx"],
                      1).counts == {"of": 1, "l": 1}


def test_turkish_capital_dotted_i_and_romanian_cedilla_letters_match():
    assert fw.profile(["İçin ve şi"], 1).counts == {"için": 1, "ve": 1, "și": 1}


def test_swapped_needs_both_sides_in_the_other_language():
    en, de, fr = (fw.profile(lines * REPEATS) for lines in (ENGLISH, GERMAN, FRENCH))
    assert fw.swapped(de, en, ("en", "de"))
    assert not fw.swapped(en, de, ("en", "de"))
    assert not fw.swapped(de, de, ("en", "de"))  # both German: one side is wrong
    assert not fw.swapped(de, fr, ("en", "de"))
    assert not fw.swapped(de, en, ("en", "xx"))  # a language without a list


def test_the_synthetic_corpus_is_in_its_own_languages(tmp_path):
    """The generator's English and German look like themselves, and swapped
    like each other's."""
    build_corpus(tmp_path, 1, {"train": 600}, "en-de", GrammarConfig(), Limits(),
                 (3, 8))
    en = fw.profile((tmp_path / "train.en").read_text().splitlines())
    de = fw.profile((tmp_path / "train.de").read_text().splitlines())
    assert en.words >= fw.MIN_WORDS and de.words >= fw.MIN_WORDS
    assert en.looks_like("en") is None and de.looks_like("de") is None
    assert fw.swapped(de, en, ("en", "de"))


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no Multi30k mirror on this machine")
def test_the_multi30k_mirror_is_in_its_own_languages():
    """Every 2,000-line sample of every file of the mirror (en, de, fr) looks
    like its own language, and its en-de pairs swapped are refused."""
    texts = {}
    for path in sorted(MIRROR.glob("*.gz")):
        lang = path.name.split(".")[-2]
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            texts[path.name] = (lang, fh.read().splitlines())
    assert {lang for lang, _ in texts.values()} == {"en", "de", "fr"}
    for name, (lang, lines) in texts.items():
        for start in range(0, len(lines), fw.SAMPLE_LINES):
            prof = fw.profile(lines[start:start + fw.SAMPLE_LINES])
            assert prof.looks_like(lang) is None, (name, start)
    en, de = texts["train.en.gz"][1], texts["train.de.gz"][1]
    assert fw.swapped(fw.profile(de), fw.profile(en), ("en", "de"))
