"""Which combining marks a name's keys keep (names.py): a mark is an accent, left out
(`Adà` looks like `Ada`), but for those that make another letter or syllable:

- the few that Unicode TS #39's data makes a character that is no mark, drawn as it
  beside their letter (the Telugu, Kannada, Malayalam and Sinhala anusvaras as `o`, the
  Oriya visarga as `8`, Tamil's vowel sign AI as `ன`): `roంt` looks like `root`;
- the marks of the scripts that spell syllables with them (the Brahmic scripts, Thai,
  Lao, Myanmar, Khmer, Tibetan, …: those with dependent vowel signs, viramas or stackers,
  Unicode's Indic_Syllabic_Category), their tone marks, bindus and killers too, on a
  letter of such a script: `राम` (Ram) and `रमा` (Rama) are two names, Myanmar's `မြ` is
  not `မ`, Thai's `ป่าน` not `ปาน`. Any such script's letter keeps them, not only their
  own script's, because TS #39's data makes one script's letter or sign another's (Lao's
  signs Thai's, Gujarati's Devanagari's, Kannada's letters Telugu's), and so does a letter
  of another script that the data makes one with such a letter (Latin `o` and Myanmar's
  `တ`): a sign read with its own letter only would be dropped beside a lookalike letter,
  and `ปູ` would pass for a name other than `ปู`. On other letters (Latin `a` with
  Devanagari's `ा`) they are left out as accents are, and so are accents (Inherited
  marks) on any letter;
- the marks that make another letter of a script that has no syllables, where they make
  one: Arabic's dots (`شیما`, Shima, is not `سیما`, Sima; its vowel signs and hamza are
  accents), and the kana's voicing marks (`だいき`, Daiki, is not `たいき`, Taiki). On
  a letter they make no other letter of they are accents too (`Ada゙`, `ま゙` and `م`
  with three dots look like `Ada`, `ま` and `م`).

Spellings of a letter or a syllable that are drawn alike are read as one: a few letters
of the Brahmic scripts spelt as another with a sign (Bengali's `র` as `ব` with a nukta),
the letter A with a vowel sign as the independent vowel (`अो` as `ओ`, which Unicode's
"do not use" tables name), two vowel signs drawn as one as it (`ाे` as `ो`), a run of
marks on one letter in one order (Myanmar's `ကုိ` and `ကို`), a mark written twice as
once (a name that holds one, `มาลีี`, is refused anyway: names.marked).
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from typing import Final

import icu

_SPOOF = icu.SpoofChecker()
_NFD = icu.Normalizer2.getNFDInstance()
_NFC = icu.Normalizer2.getNFCInstance()
MARK: Final = icu.UnicodeSet("[:M:]")
MARK.freeze()
SYLLABLE: Final = icu.UnicodeSet(
    "[[:M:]&[[:InSC=Vowel_Dependent:][:InSC=Virama:][:InSC=Invisible_Stacker:]"
    "[:InSC=Consonant_Medial:][:InSC=Consonant_Subjoined:]]]"
)
SYLLABLE.freeze()


def _members(chars: icu.UnicodeSet) -> list[str]:
    found, it = [], icu.UnicodeSetIterator(chars)
    while it.next():
        found.append(it.getString())
    return found


def _drawn_marks() -> icu.UnicodeSet:
    """The marks TS #39's data makes a character that is no mark (above)."""
    drawn = icu.UnicodeSet()
    for mark in _members(MARK):
        if any(not MARK.contains(ch) for ch in str(_SPOOF.getSkeleton(0, mark))):
            drawn.add(mark)
    drawn.freeze()
    return drawn


def _script(ch: str) -> int:
    return int(icu.Script.getScript(ch).getScriptCode())


def _syllabic_scripts() -> frozenset[int]:
    """The scripts that have marks of SYLLABLE (ICU's script codes), Common and
    Inherited aside."""
    codes = {code for mark in _members(SYLLABLE) for code in icu.Script.getScriptExtensions(mark)}
    return frozenset(codes - {icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED})


def _skeleton_of(text: str) -> str:
    return str(_SPOOF.getSkeleton(0, text))


ARABIC: Final = _script("\u0628")
# Arabic's vowel signs and hamza, and the marks TS #39's data draws them as (below)
_ARABIC_VOWELS: Final = frozenset(
    ch for code in [*range(0x064B, 0x0658), *range(0x065D, 0x0660), 0x0670]
    for ch in (chr(code), *_skeleton_of(chr(code)))
)


def _arabic_letters() -> dict[str, frozenset[str]]:
    """Per letter as TS #39's data draws it, the marks (sorted, as a string) with which it
    draws another Arabic letter (`ش` as `س` with three dots); the vowel signs and the
    hamza, which Arabic writes or leaves out, and the marks the data draws them as, are
    accents, not counted (U+064B-U+0657, U+065D-U+065F, U+0670: `ۇ`, drawn as `و` with
    a damma, is `و`; the small v and the dot of Kurdish and African letters, U+0658-U+065C,
    are no vowels)."""
    letters: dict[str, set[str]] = {}
    for letter in _members(icu.UnicodeSet("[[:sc=Arabic:]&[:L:]&[:NFKC_QC=Yes:]]")):
        drawn = _skeleton_of(letter)
        base, marks = drawn[0], "".join(sorted(ch for ch in drawn[1:] if ch not in _ARABIC_VOWELS))
        if (marks and _script(base) == ARABIC
                and all(MARK.contains(ch) for ch in drawn[1:])):
            letters.setdefault(base, set()).add(marks)
    return {base: frozenset(marks) for base, marks in letters.items()}


def _voiced() -> dict[str, frozenset[str]]:
    """Per voicing mark (U+3099, U+309A), the kana it makes another of (`た` of `だ`, `は`
    of `ぱ`), as TS #39's data draws them (`ハ` as Han's `八`: `八゙` is drawn as `バ`)."""
    voiced: dict[str, set[str]] = {"\u3099": set(), "\u309a": set()}
    for kana in _members(icu.UnicodeSet("[[[:sc=Hira:][:sc=Kana:]]&[:L:]]")):
        for mark, of in voiced.items():
            if len(_NFC.normalize(kana + mark)) == 1:
                of.add(_skeleton_of(kana))
    return {mark: frozenset(of) for mark, of in voiced.items()}


def _drawn_as_voicing() -> dict[str, str]:
    """The marks drawn as a voicing mark: those TS #39's data gives its skeleton (the ring
    above for the handakuten), and those drawn as the double acute, for the dakuten."""
    classes = {_skeleton_of("\u3099"): "\u3099", _skeleton_of("\u309a"): "\u309a",
               _skeleton_of("\u030b"): "\u3099"}
    return {mark: classes[drawn] for mark in _members(MARK)
            if (drawn := _skeleton_of(mark)) in classes}


def _independent_vowels() -> dict[str, str]:
    """Each Brahmic script's letter A with a vowel sign (decomposed) as the independent
    vowel letter of the same name: DEVANAGARI LETTER A with VOWEL SIGN O as LETTER O, a
    spelling Unicode's "do not use" tables name (by Unicode's names). Not the other way:
    TS #39's data knows the letters (Telugu's `ఆ` and Kannada's `ಆ` are one)."""
    by_name = {}
    for low, high in ((0x0900, 0x1100), (0x1700, 0x1A00), (0x1B00, 0x1C80), (0x11000, 0x11D80)):
        for code in range(low, high):
            if name := unicodedata.name(chr(code), ""):
                by_name[name] = chr(code)
    table = {}
    for name, letter in by_name.items():
        script, _, vowel = name.partition(" LETTER ")
        sign, a = by_name.get(f"{script} VOWEL SIGN {vowel}"), by_name.get(f"{script} LETTER A")
        if vowel and vowel != "A" and sign and a:
            table[_NFD.normalize(a + sign)] = letter
    return table


# vowel signs drawn as two others side by side, which NFD does not decompose: the two (in
# the order of their code points, as unmarked sorts a letter's marks) are read as the one.
# Devanagari's and Gujarati's O, AU and candra O (`ा` with `े`, `ै`, `ॅ`), Devanagari's
# short O (`ा` with `ॆ`); Khmer's OO and OE (`េ` with `ា`, `ី`)
_TWO_PART: Final = {
    "\u093e\u0947": "\u094b", "\u093e\u0948": "\u094c", "\u093e\u0945": "\u0949",
    "\u093e\u0946": "\u094a",
    "\u0abe\u0ac7": "\u0acb", "\u0abe\u0ac8": "\u0acc", "\u0abe\u0ac5": "\u0ac9",
    "\u17b6\u17c1": "\u17c4", "\u17b8\u17c1": "\u17be",
}
# Khmer's shifters, drawn below as the vowel sign U when a vowel sign above is on their
# letter too (`ស៊ី` and `សុី`), whatever else it holds (a reahmuk)
_SHIFTERS: Final = frozenset("\u17c9\u17ca")
_ABOVE: Final = frozenset("\u17b7\u17b8\u17b9\u17ba")
# letters spelt two ways that are drawn alike, which neither NFD nor TS #39's data makes one
# (the joiner some of them hold is left out before: names._plain), read as the second
# spelling: Bengali's RA as BA with a nukta (`রাহুল` and `ব়াহুল`), and as Assamese's RA
# beside a virama (a reph or a ra-phala, `অর্ণব`), its khanda TA as TA with a virama
# (`উৎপল`); Tamil's SRI with SHA (`ஶ்ரீ`), and its two-part vowel signs with their parts
# the other way round (`மோகன்`); Malayalam's chillus as their letters with a virama
# (`സൽമാൻ`), NTA with the chillu N (`ആന്റണി`); Oriya's subjoined VA and WA (`ବିଶ୍ୱନାଥ`);
# Gurmukhi's tippi as the bindi (drawn alike after most vowel signs, and one spelling
# for the other elsewhere) and RRA as DDA with a nukta; Mon's NGA as Myanmar's;
# Khmer's QAQ and QAA as the letter QA and QA with AA (Unicode's "do not use"), its
# subjoined DA and TA (`ឧត្តម`)
_DRAWN_ALIKE: Final = {
    "\u09ac\u09bc": "\u09b0", "\u09f0\u09cd": "\u09b0\u09cd", "\u09cd\u09f0": "\u09cd\u09b0",
    "\u09ce": "\u09a4\u09cd", "\u0bb6\u0bcd\u0bb0\u0bc0": "\u0bb8\u0bcd\u0bb0\u0bc0",
    "\u0bbe\u0bc6": "\u0bc6\u0bbe", "\u0bbe\u0bc7": "\u0bc7\u0bbe", "\u0bd7\u0bc6": "\u0bc6\u0bd7",
    **{chillu: letter + "\u0d4d" for chillu, letter in zip(
        "\u0d54\u0d55\u0d56\u0d7a\u0d7b\u0d7c\u0d7d\u0d7e\u0d7f",
        "\u0d2e\u0d2f\u0d34\u0d23\u0d28\u0d30\u0d32\u0d33\u0d15", strict=True)},
    "\u0d7b\u0d4d\u0d31": "\u0d28\u0d4d\u0d31", "\u0b4d\u0b35": "\u0b4d\u0b71",
    "\u0a70": "\u0a02", "\u0a21\u0a3c": "\u0a5c", "\u105a": "\u1004",
    "\u17a3": "\u17a2", "\u17a4": "\u17a2\u17b6", "\u17d2\u178a": "\u17d2\u178f",
}
# Tibetan's CA, CHA and JA with the TSA-PHRU (which NFD writes after their vowel sign),
# drawn as TSA, TSHA and DZA (`བསྟན་འཛིན`, Tenzin)
_TSA_PHRU: Final = re.compile("([\u0f45-\u0f47])([\u0f71-\u0f84\u0f86\u0f87]*)\u0f39")
DRAWN: Final = _drawn_marks()
_SYLLABIC: Final = _syllabic_scripts()
_ARABIC_LETTERS: Final = _arabic_letters()
# the marks Arabic letters are drawn with (the dots, the small v, the small tah, …)
_DOT_MARKS: Final = frozenset(ch for marks in _ARABIC_LETTERS.values() for m in marks for ch in m)
_VOICED: Final = _voiced()
_AS_VOICING: Final = _drawn_as_voicing()
VOICING: Final = frozenset(_VOICED)
# the spellings read as another: the letter A with a vowel sign, and _DRAWN_ALIKE
_SPELT_AS: Final = {**_independent_vowels(), **_DRAWN_ALIKE}
_SPELLING: Final = re.compile("|".join(map(re.escape, sorted(_SPELT_AS, key=len)[::-1])))


def syllabic(letter: str) -> bool:
    """Whether `letter` is of a script that has marks of SYLLABLE."""
    return icu.Script.getScript(letter).getScriptCode() in _SYLLABIC


def _of_syllabic_scripts() -> tuple[icu.UnicodeSet, frozenset[str]]:
    """The marks of the scripts that have marks of SYLLABLE (their tone marks, killers,
    bindus, nuktas too: a reader of the script sees each; an accent of any script is
    Inherited, not theirs), and the skeletons of those scripts' other characters."""
    marks, skeletons = icu.UnicodeSet(), set()
    for code in _SYLLABIC:
        for ch in _members(icu.UnicodeSet(f"[:scx={icu.Script(code).getShortName()}:]")):
            if MARK.contains(ch):  # (an accent that the script uses too is Inherited)
                if icu.Script.getScript(ch).getScriptCode() == code:
                    marks.add(ch)
            else:
                skeletons.add(str(_SPOOF.getSkeleton(0, ch)))
    marks.freeze()
    return marks, frozenset(skeletons)


def _with_lookalikes(signs: icu.UnicodeSet, skeletons: frozenset[str]) -> icu.UnicodeSet:
    """`signs` and the marks TS #39's data makes one with them, or with the marks in the
    skeletons of those scripts' characters (U+0307, a dot above, for the Devanagari
    anusvara; the dot below in that of Telugu's SSA): kept as the sign they pass for, or
    `आन\u08eaद` would pass for a name other than `आनंद`."""
    wanted = {ch for text in (*skeletons, *(str(_SPOOF.getSkeleton(0, m)) for m in _members(signs)))
              for ch in text if MARK.contains(ch)}
    found = icu.UnicodeSet()
    found.addAll(signs)
    for mark in _members(MARK):
        if all(ch in wanted for ch in str(_SPOOF.getSkeleton(0, mark))):
            found.add(mark)
    found.freeze()
    return found


_OWN_SIGNS, _SKELETONS = _of_syllabic_scripts()
_SIGNS: Final = _with_lookalikes(_OWN_SIGNS, _SKELETONS)


@functools.cache
def _keeps_signs(letter: str) -> bool:
    """Whether the marks of those scripts (_OWN_SIGNS) after `letter` are kept: a letter
    of those scripts, or one that TS #39's data makes one with such a letter (Latin `o`
    and Myanmar's `တ`, a Glagolitic letter and a Javanese one): `oာင်` looks like `တာင်`,
    not like `oင်`. (The accents among _SIGNS, a dot above, are kept only after a letter
    of those scripts: `ŏ` still looks like `o`.)"""
    return syllabic(letter) or str(_SPOOF.getSkeleton(0, letter)) in _SKELETONS


@functools.cache
def _arabic_marks(letter: str, marks: str) -> str:
    """Those of `marks` on the Arabic `letter` that the keys keep: of its marks drawn as
    dots and the like (_DOT_MARKS, each drawing once), the most with which it draws
    another Arabic letter (_ARABIC_LETTERS), as TS #39's data draws both (a caron on `و`
    is the small v of `ۆ`); none when there are none (a breve on `م`). The others, vowel
    signs and accents, are accents (three dots with a grave accent on `س` are `ش`)."""
    dots: list[str] = []
    for mark in marks:
        drawn = _skeleton_of(mark)
        if set(drawn) <= _DOT_MARKS and drawn not in map(_skeleton_of, dots):
            dots.append(mark)
    for size in range(len(dots), 0, -1):
        for some in itertools.combinations(dots, size):
            drawn = _skeleton_of(letter + "".join(some))
            found = "".join(sorted(ch for ch in drawn[1:] if MARK.contains(ch)
                                   and ch not in _ARABIC_VOWELS))  # fmt: skip
            if found in _ARABIC_LETTERS.get(drawn[:1], ()):
                return "".join(some)
    return ""


@functools.cache
def _voicing(letter: str, mark: str) -> str:
    """The voicing mark `mark` is on `letter` ("" for none): one drawn as such a mark (a
    ring above, a double acute), on a kana it makes another of (_VOICED)."""
    voicing = _AS_VOICING.get(mark, "")
    return voicing if _skeleton_of(letter) in _VOICED.get(voicing, ()) else ""


def _spelt(marks: list[str]) -> str:
    """A letter's marks one way: in the order of their code points, two that are drawn as
    one as it (a mark twice stays twice: a name holding one is refused, names.marked, but
    the skeleton of a letter may end with the sign that follows it, `మ` with `ు`, and
    `రాము` is not `రామ`), a Khmer shifter as U where it is drawn as it (_SHIFTERS)."""
    if _ABOVE.intersection(marks):
        marks = ["\u17bb" if mark in _SHIFTERS else mark for mark in marks]
    run = "".join(sorted(marks))
    for two, one in _TWO_PART.items():
        run = run.replace(two, one)
    return run


def unmarked(text: str, *, skeleton: bool = False, spelt: bool = True) -> str:
    """`text`, decomposed (NFD), without the marks its keys leave out, and its syllables
    spelt one way (above; `spelt` False: as written, for TS #39's own reading of them). A
    mark drawn as a character (DRAWN) is one: it ends the run of marks before it, which
    are not sorted across it. `skeleton`: `text` is TS #39's skeleton of a key's text,
    whose marks after a letter of those scripts were kept before, and stay, whatever the
    data made them (the Devanagari anusvara a dot above, Thai's nikhahit a ring: `हंस` is
    not `हस`); after another letter, they are left out as before the skeleton (that of
    `Ø` is `o` with a slash, which looks like `O`)."""
    kept: list[str] = []
    run: list[str] = []
    dots: list[str] = []  # the marks of an Arabic letter, kept or not as a whole
    own = near = keeps_all = arabic = False
    letter = ""
    text = _NFD.normalize(text)
    if spelt:
        text = _NFD.normalize(_SPELLING.sub(lambda a: _SPELT_AS[a[0]], text))
        text = _TSA_PHRU.sub(lambda a: chr(ord(a[1]) + 0x14) + a[2], text)
    for ch in text:
        if not MARK.contains(ch) or DRAWN.contains(ch):
            if dots:
                run.extend(_arabic_marks(letter, "".join(dots)))
                dots.clear()
            kept.append(_spelt(run) if spelt else "".join(run))
            run.clear()
            kept.append(ch)
            if not MARK.contains(ch):
                own, near, letter = syllabic(ch), _keeps_signs(ch), ch
                keeps_all, arabic = skeleton and own, _script(ch) == ARABIC
        elif keeps_all or (own and _SIGNS.contains(ch)) or (near and _OWN_SIGNS.contains(ch)):
            run.append(ch)
        elif arabic:
            dots.append(ch)
        elif (voicing := _voicing(letter, ch)) and not VOICING & set(run):
            run.append(voicing)  # (one a letter: a ring over a dakuten, or two, are accents)
    if dots:
        run.extend(_arabic_marks(letter, "".join(dots)))
    kept.append(_spelt(run) if spelt else "".join(run))
    return "".join(kept)
