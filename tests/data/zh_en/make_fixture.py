"""Write the small zh-en fixture of this folder: raw Chinese (no spaces between
words) and raw English, from a small seeded grammar. Rerun to regenerate:

    .venv/bin/python tests/data/zh_en/make_fixture.py
"""

from __future__ import annotations

import random
from pathlib import Path

SUBJECTS = [("我", "I", 1), ("你", "you", 1), ("他", "he", 3), ("她", "she", 3),
            ("我们", "we", 1), ("他们", "they", 1), ("老师", "the teacher", 3),
            ("学生们", "the students", 1), ("医生", "the doctor", 3),
            ("我的朋友", "my friend", 3)]
VERBS = [("喜欢", "like"), ("买", "buy"), ("吃", "eat"), ("写", "write"),
         ("需要", "need"), ("看", "read")]
OBJECTS = [("苹果", "apples"), ("书", "books"), ("面包", "bread"), ("信", "letters"),
           ("新衣服", "new clothes"), ("中文报纸", "Chinese newspapers"),
           ("米饭", "rice"), ("蛋糕", "cake")]
TIMES = [("每天", "every day"), ("经常", "often"), ("现在", "now"), ("", "")]
PLACES = [("在学校", "at school"), ("在家", "at home"), ("在北京", "in Beijing"),
          ("在上海", "in Shanghai"), ("", "")]
SPLITS = {"train": 400, "dev": 60, "test": 60}


def clause(rng: random.Random) -> tuple[str, str]:
    """One Chinese clause and its English translation."""
    zs, es, person = rng.choice(SUBJECTS)
    zv, ev = rng.choice(VERBS)
    zo, eo = rng.choice(OBJECTS)
    zt, et = rng.choice(TIMES)
    zp, ep = rng.choice(PLACES)
    verb = ev + "s" if person == 3 else ev
    english = " ".join(w for w in (es, verb, eo, ep, et) if w)
    return zs + zt + zp + zv + zo, english


def sentence(rng: random.Random) -> tuple[str, str]:
    """One sentence pair: one clause, or two joined by 'and' / '，而且'."""
    zh, en = clause(rng)
    if rng.random() < 0.3:
        zh2, en2 = clause(rng)
        zh, en = f"{zh}，而且{zh2}", f"{en}, and {en2}"
    return zh + "。", en[0].upper() + en[1:] + "."


def main() -> None:
    """Write {split}.zh and {split}.en next to this script."""
    rng = random.Random(20261129)
    here = Path(__file__).parent
    for split, n in SPLITS.items():
        pairs = [sentence(rng) for _ in range(n)]
        for k, lang in enumerate(("zh", "en")):
            (here / f"{split}.{lang}").write_text(
                "".join(p[k] + "\n" for p in pairs), encoding="utf-8")


if __name__ == "__main__":
    main()
