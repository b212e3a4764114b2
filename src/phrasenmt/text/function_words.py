"""Which language a text's most frequent words say it is in: function words.

A split of the user's own corpus can hold the wrong language in a script that
the declared language shares (`phrasenmt.text.scripts` catches only another
script): an en->de run given `train.de` as its source and `train.en` as its
target trains in the wrong direction, and a `dev.de` that is French scores
every model against French. Articles, prepositions, conjunctions, pronouns and
auxiliaries make up a large share of the words of any text in a language and
few of another's, so the share of a text's words that are in each language's
list below tells them apart. Closely related languages share many of them
(Danish and Swedish, Czech and Polish, Russian and Ukrainian): a word that is
frequent in two languages is in both lists, so that text in a listed language
scores at least as high on its own list as on a neighbour's.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import regex

from phrasenmt.text.scripts import SAMPLE_LINES

# About 40-60 of the most frequent function words of each language, lowercase
# (Romanian with its comma-below letters, Turkish with dotless i).
_WORDS = {
    "en": "the of and to a in is that it for on with as was be by at are this "
          "from or an not have has had but they you he she we his her their which "
          "will can would there were been if all so one do does did no my your "
          "its our than then also into about more when what who them these those",
    "de": "der die das und in den von zu mit sich des auf für ist im dem nicht ein "
          "eine einer einem einen als auch es an werden aus er hat dass sie nach "
          "wird bei um am sind noch wie über so zum war haben nur oder aber vor "
          "zur bis mehr durch man ich wir ihr kann diese wenn kein keine",
    "fr": "de la le et les des en un une du est que qui dans pour pas au sur par "
          "ne se ce il elle ils plus sont avec son sa ses aux ou mais nous vous "
          "je on être a été cette comme tout leur y d l qu n votre vos cet",
    "es": "de la que el en y a los se del las un por con no una su para es al lo "
          "como más o pero sus le ya fue este ha sí porque esta entre cuando muy "
          "sin sobre también me hasta hay donde desde todo nos ni ese eso esto "
          "yo él ella estos usted",
    "it": "di e il la che in a per un del non è una da sono con si le al i lo "
          "della gli ha come ma più anche nel alla dei se questo ci ne o tra "
          "delle sua suo essere stato questa quando io molto hanno dal nella "
          "sulla sul l dell all degli",
    "pt": "de a o que e do da em um para é com não uma os no se na por mais as "
          "dos como mas foi ao ele das tem à seu sua ou ser quando muito há nos "
          "já está eu também só pelo pela até isso ela entre era sem mesmo aos "
          "ter seus nas esse eles você este esta",
    "nl": "de en van het een in is dat op te zijn met voor niet die aan er om ook "
          "als bij maar door dan of uit nog wordt werd was hij zij ze we wij je "
          "ik naar over kan worden deze dit geen al heeft hebben meer tot zo u",
    "cs": "a se na v je že to s z do o i k ve pro jako by ale jsou jeho po tak "
          "jak které který která jen už od být bude byl byla bylo není jsem ze "
          "za při nebo až jejich tento této tím jsme mu co aby podle",
    "pl": "w i na z się nie do to że jest o a jak po co tak za od ale czy jego być "
          "przez dla już tylko jej może są był była było ich oraz lub bardzo "
          "przy także ten ta te który która które go mnie jestem więc gdy tym "
          "tego ze we",
    "ro": "de și în a la cu care o pe nu din se un este că mai sau pentru ca ce "
          "au fost sunt lui să ale al ei el ea prin până dar iar fi cel cea după "
          "acest această între le mă vă ne am ar unei unui",
    "tr": "ve bir bu da de için ile olarak çok daha en gibi ne o olan ama ya veya "
          "kadar sonra her ki mi mı mu mü var yok ben sen biz siz onlar şu ise "
          "değil göre tüm bunu ona onun diye nasıl neden hem",
    "fi": "ja on ei se että oli ole hän mutta kun tai myös niin kuin jos ovat "
          "sen mitä tämä joka ne nyt vain sitä siitä jo ollut olla hänen me he "
          "minä sinä te tässä siinä voi kanssa jotka kaikki vielä mukaan sekä "
          "eikä koska",
    "sv": "och i att det som en på är av för med till den har de inte om ett var "
          "jag sig men han hon vi ni från så kan eller vid under efter också bara "
          "när nu sin sitt hade skulle alla detta där man",
    "da": "og i at det en den til er som på de med har for af ikke der var jeg "
          "sig men han hun vi et om fra så kan eller ved efter også kun når nu "
          "sin sit havde skulle alle dette hvor man",
    "et": "ja on ei et see oli ka kui ta mis aga siis nii või kes seda mida olla "
          "ole oma kõik veel üle pärast nagu selle need mina sina meie teie nad "
          "tema juba ainult ning väga kas kus vaid kuid",
    "lv": "un ir ar uz par no kas ka ne lai tas tā bet vai arī jau to pie tik kā "
          "bija būt var šo šī tie viņš viņa mēs jūs es tu viņi nav līdz pēc "
          "starp kur tikai vēl ļoti nekā kad",
    "lt": "ir yra kad su į iš bet ar o tai jis ji jie mes jūs aš tu kaip nuo už "
          "per apie tik dar jau buvo būti gali ne nėra kur kai labai to šis ši "
          "tas ta po prie iki",
    "hu": "a az és hogy nem is egy van meg de ez csak már még mint azt ki el be "
          "fel le volt lesz kell ha vagy pedig mert minden ezt itt ott én te ő "
          "mi ti ők nagyon sem után alatt között",
    "vi": "của và là có không các những được trong cho với này một để người đã "
          "khi từ thì cũng sẽ đến về như tôi bạn nó họ chúng ta ra vào lại nhưng "
          "hoặc nếu bị đó nào rằng theo tại trên sau trước còn hay phải đang rất "
          "nhiều",
    "id": "yang dan di ini itu dengan untuk tidak dari dalam akan pada juga ke "
          "ada saya kami kita mereka anda dia ia oleh atau bisa dapat sudah "
          "telah karena jika kalau tetapi tapi seperti lebih sebagai adalah "
          "bahwa harus belum sangat saat hanya masih para sebuah seorang apa "
          "bagaimana kepada tersebut",
    "ru": "и в не на что я с он как по это а то к но из у за о же так все она его "
          "от было мы для вы бы ты уже только или если еще да при были их ее ни "
          "до когда нет быть есть этот который",
    "uk": "і в у на не що з я до як та а це за по від він вона ми ви вони його "
          "її але для є було бути чи так із же те при про коли вже тільки або "
          "ще ні де який яка яке цей ця",
    "bg": "и в на да се не от за е с че по са като това ще но той тя те ние вие "
          "аз ти го му им си към при след до или както има беше бил още така "
          "само много които който която което този тази тези",
}
FUNCTION_WORDS = {lang: frozenset(words.split()) for lang, words in _WORDS.items()}
# ISO 639-2 and -3 codes of the same languages
_ALIASES = {"eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr",
            "spa": "es", "ita": "it", "por": "pt", "nld": "nl", "dut": "nl",
            "ces": "cs", "cze": "cs", "pol": "pl", "ron": "ro", "rum": "ro",
            "tur": "tr", "fin": "fi", "swe": "sv", "dan": "da", "est": "et",
            "lav": "lv", "lit": "lt", "hun": "hu", "vie": "vi", "ind": "id",
            "rus": "ru", "ukr": "uk", "bul": "bg"}
_LANGS = tuple(FUNCTION_WORDS)
# each listed word: the indices (in _LANGS) of the languages whose list has it
_INDEX: dict[str, tuple[int, ...]] = {}
for _i, _lang in enumerate(_LANGS):
    for _word in FUNCTION_WORDS[_lang]:
        _INDEX[_word] = (*_INDEX.get(_word, ()), _i)

# What makes a sample look like another language than declared. Real text of
# every listed language (the Multi30k mirror, the gettext catalogs of the
# listed languages, the synthetic corpora) stays far from them:
#   PYTHONPATH=src python experiments/language_check_margins.py ...
# (docs/results/2026-12-06-language-check.md).
MIN_WORDS = 500  # words of a sample below which nothing is judged
MIN_RATE = 0.12  # share of the words that another language's list must hold
MIN_RATIO = 5.0  # words only its list has, to words only the declared language's has
MIN_DISTINCT = 8  # different words of its list the sample must hold (not a name list)
# a word: a run of letters, not one of a printf conversion (%s, %1$lu), an
# entity (&amp;), an HTML tag or an identifier (key_id, utf8)
_WORD = regex.compile(r"(?<![\p{L}\p{M}\p{N}%\\&$_*{<>/])[\p{L}\p{M}]+"
                      r"(?![\p{L}\p{M}\p{N}_$])")
# Romanian written with the cedilla letters of old encodings; Turkish capital
# dotted I, which str.lower() makes i + U+0307
_FOLD = str.maketrans({"ş": "ș", "ţ": "ț", "\u0307": None})


def known(lang: str) -> str | None:
    """The two-letter code of `lang` where its function words are listed."""
    code = _ALIASES.get(lang, lang)
    return code if code in FUNCTION_WORDS else None


@dataclass(frozen=True)
class Profile:
    """How often a sample holds each listed word, and how many words it has."""

    words: int  # all words (letter runs) of the sample
    counts: dict[str, int]  # each listed word of the sample -> its count

    @functools.cached_property
    def hits(self) -> dict[str, int]:
        """Language code -> the sample's words in its list."""
        hits = dict.fromkeys(_LANGS, 0)
        for word, count in self.counts.items():
            for i in _INDEX[word]:
                hits[_LANGS[i]] += count
        return hits

    def rate(self, lang: str) -> float:
        """The share of the sample's words in `lang`'s list."""
        return self.hits.get(known(lang) or lang, 0) / self.words if self.words else 0.0

    def distinct(self, lang: str) -> int:
        """How many different words of `lang`'s list the sample holds."""
        return sum(word in FUNCTION_WORDS[lang] for word in self.counts)

    def only(self, lang: str, other: str) -> int:
        """The sample's words in `lang`'s list and not in `other`'s."""
        mine, theirs = FUNCTION_WORDS[lang], FUNCTION_WORDS[other]
        return sum(count for word, count in self.counts.items()
                   if word in mine and word not in theirs)

    def looks_like(self, lang: str) -> str | None:
        """The other listed language the sample clearly is in, for a text
        declared as `lang`: the one whose list holds the most of its words,
        where they make up MIN_RATE of the sample with MIN_DISTINCT different
        words, and the words of its list that `lang`'s lacks are MIN_RATIO
        times those of `lang`'s list that its lacks; None where that is
        `lang`, `lang` is not listed, or the sample has fewer than MIN_WORDS
        words."""
        code = known(lang)
        if code is None or self.words < MIN_WORDS:
            return None
        best = max(_LANGS, key=lambda other: (self.hits[other], other == code))
        if (best == code or self.hits[best] < MIN_RATE * self.words
                or self.distinct(best) < MIN_DISTINCT
                or self.only(best, code) < MIN_RATIO * self.only(code, best)):
            return None
        return best


def swapped(source: Profile, target: Profile, langs: tuple[str, str]) -> bool:
    """Whether a split's source sample clearly looks like its target language
    and its target sample like its source language (`Profile.looks_like`)."""
    src, tgt = known(langs[0]), known(langs[1])
    return (src is not None and tgt is not None and source.looks_like(src) == tgt
            and target.looks_like(tgt) == src)


def profile(lines: Iterable[str], sample: int = SAMPLE_LINES) -> Profile:
    """The function-word counts of the first `sample` lines."""
    counts: Counter = Counter()
    for n, line in enumerate(lines):
        if n == sample:
            break
        counts.update(_WORD.findall(line.lower().translate(_FOLD)))
    return Profile(sum(counts.values()),
                   {word: count for word, count in counts.items() if word in _INDEX})
