"""Players' names: when two of them look alike, and which characters no name may hold
because nobody sees them. The character data and the confusables are ICU's (PyICU).

A name has three keys, and two names look alike when any one is equal (`name_key`,
`shape_key`, `glyph_key`). All are made of the name without its spaces and its combining
marks (`I an` with a thin space, `Ada  Lovelace` and `Adà Lovelace` look like `Ian` and
`Ada Lovelace`; the marks that make another letter or syllable are kept, marks.py: `roంt`
looks like `root`, `राम` and `रमा` are two names), then its confusable skeleton (Unicode
TS #39, section 4: Cyrillic `а` and Latin `a` share one):

- `name_key` folds case and compatibility forms first (NFKC_Casefold, as TS #39 advises for
  comparisons that ignore case): `ADA` and fullwidth `ａｄａ` look like `ada`;
- `shape_key` takes the skeleton of the name as written, then folds case: a capital that
  looks like another letter only as a capital is caught (`Ian` and `lan`, `0scar` and
  `Oscar`, `BiII` and `Bill`), which folding first loses (`I` becomes `i`, which does not
  look like `l`);
- `glyph_key` takes the skeleton of the characters as typed, before compatibility forms
  are folded, then folds case: a symbol whose compatibility form looks like another letter
  than the symbol does is caught (Greek lunate `ϲ` is drawn as `c` but its form is `ς`;
  long `ſ` is drawn as `f` but its form is `s`; halfwidth `￨` is drawn as `l`).

`name_key` is TS #39's skeleton as Unicode's data has it. The other two also read as
drawn what that data leaves apart: the Latin small capitals as their letters (`ᴀᴅᴀ`
looks like `ada`), in the name and in its skeleton (that of Cyrillic `в` is `ʙ`); single
vertical strokes as a bar (`ada│` looks like `adal`); the small Cyrillic palochka `ӏ`,
which the data makes an `i` (`kӏwi` looks like `kiwi` by `name_key`), as its capital, a
bar like `l` and `I` (`heӏӏo` looks like `hello`).

The database keeps each player's keys under UNIQUE indexes (`players_name_key`,
`players_shape_key`): of two concurrent creations of lookalike names only one commits, and
the other's unique violation is the 409 `name-taken` (unique_name).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import asyncpg
import icu

from service.base.errors import Conflict
from service.players.marks import MARK, SYLLABLE, syllabic, unmarked
from service.players.shown import joins

# the indexes that hold players' keys unique (migrations 0008, 0017 and 0022)
NAME_KEY_INDEXES: Final = frozenset(
    {"players_name_key", "players_shape_key", "players_glyph_key"}
)
MOST_MARKS: Final = 2  # combining marks on one character, at most
MOST_SIGNS: Final = 4  # a Brahmic syllable's signs on one letter, at most

_FOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_NFKC = icu.Normalizer2.getNFKCInstance()
_NFD = icu.Normalizer2.getNFDInstance()
_NFC = icu.Normalizer2.getNFCInstance()
_SPOOF = icu.SpoofChecker()
# Unicode's Default_Ignorable_Code_Point (the Hangul fillers U+115F, U+1160, U+3164 and
# U+FFA0 among them, and the variation selectors), and the symbols that render as
# nothing: the Braille blank U+2800 and the musical null notehead U+1D159
_INVISIBLE = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:]\\u2800\\U0001D159]")
_INVISIBLE.freeze()


# Arabic's tatweel, which only lengthens the join between two letters (`مـحـمـد` is
# `محمد`). (N'Ko's lajanyalan is drawn as the line it lengthens, and TS #39's data makes
# it a low line: `maߺia` looks like `ma_ia`.)
_STRETCHES: Final = "\u0640"
_LEFT_OUT: Final = dict.fromkeys(map(ord, "\u200d\u200c" + _STRETCHES))


# the dots that make Hebrew's SHIN a shin or a sin, which count as the letter's own, as
# in the letters that hold them (U+FB2A to U+FB2D): `מְנַשֶּׁה`, Menashe, is a name
_SHIN_DOTS: Final = "\u05c1\u05c2"


class NameTaken(Conflict):
    """The name looks like an existing player's."""

    slug = "name-taken"


def _plain(text: str, *, spelt: bool = True) -> str:
    """`text` without its spaces (a thin or a hair space shows as next to nothing), its
    joiners and non-joiners (a font without the joined emoji shows them apart; a joiner in
    a Brahmic word changes a conjunct's shape, not its letters), the stroke that stretches
    a join (_STRETCHES) and its combining marks but those marks.py keeps (`spelt`: its
    syllables spelt one way)."""
    return unmarked("".join(text.translate(_LEFT_OUT).split()), spelt=spelt)


def _small_capitals() -> dict[str, str]:
    """The Latin small capitals (`ᴀ`, `ʙ`, `ɪ`, `ꜱ`, …), which are their letters' capitals
    drawn at a small letter's height: each as its letter (or two, `ᴁ`), by its Unicode
    name. TS #39's data leaves them apart, and `ᴀᴅᴀ` passed for a name of its own."""
    table = {}
    for low, high in ((0x0250, 0x02B0), (0x1D00, 0x1DC0), (0xA720, 0xA800), (0x10780, 0x107C0)):
        for code in range(low, high):
            letters = unicodedata.name(chr(code), "").removeprefix("LATIN LETTER SMALL CAPITAL ")
            if len(letters) <= 2 and letters.isascii() and letters.isalpha():
                table[chr(code)] = letters.lower()
    return table


# single vertical strokes that TS #39's data does not make a vertical line: box drawing's
# (light, heavy, dashed, mixed), the line and bracket extensions, the light vertical bar,
# the one-eighth blocks, the Hangzhou numeral one and the CJK stroke U+4E28
_BARS: Final = "\u2502\u2503\u2506\u2507\u250a\u250b\u254e\u254f\u257d\u257f\u23d0\u23aa" \
    "\u2758\u258f\u2595\u3021\u4e28"
# characters drawn as another whose skeleton is not theirs: the small palochka as its
# capital (TS #39's data makes it `i`); the small capitals as their letters, and so the
# skeletons of the small capitals K and M (kra `ĸ`, turned w `ʍ`), which Cherokee's `ꮶ`
# and `ꮇ` share; the bars above as a vertical line (whose skeleton is `l`); the tone six
# `ƅ` as `b`; Greek's reversed lunate epsilon `϶` as Cyrillic `э`, the small capital
# turned M `ꟺ` as `ш`; Arabic's African FEH, QAF and NOON as the letters they are drawn
# as at a word's start (`ࢼاطمة` as `فاطمة`), BEH with three dots below as PEH;
# Sinhala's lith digit eight as RA, Javanese digit nine as YA
_DRAWN_AS: Final = str.maketrans({
    "\u04cf": "\u04c0", **_small_capitals(), "\u0138": "k", "\u028d": "m",
    **dict.fromkeys(_BARS, "|"), "\u0185": "b", "\u03f6": "\u044d", "\ua7fa": "\u0448",
    "\u08bb": "\u06a2", "\u08bc": "\u0641", "\u08bd": "\u0646", "\u0752": "\u067e",
    "\u0dee": "\u0dbb", "\ua9d9": "\ua9aa",
})


def _skeleton(text: str) -> str:
    """TS #39's skeleton of `text` read as drawn: the characters of _DRAWN_AS as what they
    are drawn as, before the skeleton and in it (the skeleton of Cyrillic `в` is the small
    capital `ʙ`, drawn as `b`), and without the marks it may add, until nothing changes."""
    key = text
    for _ in range(4):  # (twice at most, for what Unicode's data holds)
        again = unmarked(str(_SPOOF.getSkeleton(0, key.translate(_DRAWN_AS))), skeleton=True)
        if again == key:
            break
        key = again
    return key


def name_key(name: str) -> str:
    """What a name looks like, case folded first, by TS #39's skeleton as Unicode's data
    has it, its syllables as written (the other keys read them spelt one way): equal for
    names that look alike."""
    return str(_SPOOF.getSkeleton(0, _plain(_FOLD.normalize(name), spelt=False)))


def shape_key(name: str) -> str:
    """What a name looks like as written, case folded after: equal for names that look
    alike, where a capital looks like another letter (`I` and `l`)."""
    return _FOLD.normalize(_skeleton(_plain(_NFKC.normalize(name))))


def glyph_key(name: str) -> str:
    """What a name's characters look like as typed, case folded after: equal for names
    that look alike, where a symbol's compatibility form is another letter than the one
    it is drawn as (`ϲ`, `ſ`)."""
    return _FOLD.normalize(_skeleton(_plain(name)))


def marked(name: str) -> str | None:
    """The first character of `name` that carries more than MOST_MARKS combining marks
    (marks stacked over and under a line's neighbours), or one mark twice, or None. A
    letter written as one (ặ, ᾧ: a script's own) is one whatever it holds; marks added to
    it count with those it holds (á with two more marks is a with three). A Brahmic
    syllable's vowel signs, viramas and consonants written as marks are its letters, not
    marks stacked on it (Myanmar's ကျော်, Tibetan's སྒྲོལ), up to MOST_SIGNS of them."""
    run, signs, base, seen = 0, 0, "", set()
    for ch in _NFC.normalize(name):
        if not MARK.contains(ch):  # (`seen`: the marks it holds, if any)
            run, signs, base, seen = 0, 0, ch, set(_NFD.normalize(ch))
            continue
        if ch in seen:  # (beside the first or not: Thai's `ดิ์ิ` is drawn as `ดิ์`)
            return base
        seen.add(ch)
        if base == "\u05e9" and ch in _SHIN_DOTS:  # (its letter's: `שּׁ` is one, U+FB2C)
            continue
        if SYLLABLE.contains(ch) and syllabic(base):
            signs += 1
            if signs > MOST_SIGNS:
                return base
            continue
        if run == 0:  # the marks the letter holds, written out
            run = sum(1 for part in _NFD.normalize(base) if MARK.contains(part))
        run += 1
        if run > MOST_MARKS:
            return base
    return None


def invisible(name: str) -> str | None:
    """The first character of `name` that nobody sees, or None (a joiner between two emoji
    is seen: it makes them one)."""
    for i, ch in enumerate(name):
        if _INVISIBLE.contains(ch) and not joins(name, i):
            return ch
    return None


def shown(name: str, what: str = "a name") -> str:
    """A name (`what`) whose every character shows: pydantic's check of a device's name."""
    ch = invisible(name)
    if ch is not None:
        raise ValueError(f"{what} cannot contain invisible characters such as U+{ord(ch):04X}")
    return name


# letters written left to right (Latin, Greek, Cyrillic, the Brahmic scripts, CJK, …)
# and right to left (Hebrew, Arabic, Syriac, Thaana, N'Ko, …): Unicode's bidirectional
# classes L, and R and AL
_LEFT_TO_RIGHT = icu.UnicodeSet("[:bc=L:]")
_LEFT_TO_RIGHT.freeze()
_RIGHT_TO_LEFT = icu.UnicodeSet("[[:bc=R:][:bc=AL:]]")
_RIGHT_TO_LEFT.freeze()


def two_directions(name: str) -> bool:
    """Whether `name` holds letters written left to right and letters written right to
    left. Such a name is not drawn in the order it is typed (each right-to-left run is
    drawn backwards, Unicode's bidirectional algorithm), while its keys read it as typed:
    Latin `Pab`, Hebrew `סו` and `WKQ` are drawn as `PabוסWKQ`, which looks like
    `PabloWKQ`, with keys of their own. Names of one direction, digits and signs beside
    them, are drawn in one order for one order typed (as IDNA's bidi rule, RFC 5893,
    holds a domain name's labels)."""
    return any(map(_LEFT_TO_RIGHT.contains, name)) and any(map(_RIGHT_TO_LEFT.contains, name))


def visible(name: str) -> str:
    """A name whose every character shows, none of them under a stack of marks, whose
    first is no mark (a name of marks alone shows as next to nothing), and whose letters
    are written in one direction: pydantic's check of a new player's name."""
    shown(name)
    if two_directions(name):
        raise ValueError(
            "a name is written in one direction: it cannot hold both letters written right"
            " to left (Hebrew, Arabic, …) and letters written left to right (Latin, …)"
        )
    if name and MARK.contains(_NFC.normalize(name)[0]):
        raise ValueError(
            "a name cannot begin with a combining mark: it has no character to sit on"
        )
    if marked(name) is not None:
        raise ValueError(
            f"a name cannot stack more than {MOST_MARKS} combining marks on one character"
            f" (or a script's {MOST_SIGNS} vowel and consonant signs), nor one mark twice"
        )
    return name


@contextmanager
def unique_name(name: str) -> Iterator[None]:
    """Around a statement that stores `name` with its key: the unique index's refusal
    becomes the 409 `name-taken` (the one place that says so)."""
    try:
        yield
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name not in NAME_KEY_INDEXES:
            raise
        raise NameTaken(
            f"the name {name!r} looks like another player's (compared without case, width"
            " or lookalike letters from other scripts); choose another"
        ) from None
