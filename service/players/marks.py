"""Which combining marks a name's keys keep (names.py): a mark is an accent, left out
(`Adà` looks like `Ada`), but for those that make another letter or syllable:

- the few that Unicode TS #39's data makes a character that is no mark, drawn as it
  beside their letter (the Telugu, Kannada, Malayalam and Sinhala anusvaras as `o`, the
  Oriya visarga as `8`, Tamil's vowel sign AI as `ன`): `roంt` looks like `root`;
- the Brahmic scripts' dependent vowel signs, viramas, stackers, medial and subjoined
  consonants (Unicode's Indic_Syllabic_Category), on a letter of a script that has such
  signs: `राम` (Ram) and `रमा` (Rama) are two names, Myanmar's `မြ` is not `မ`. On a
  letter of another script (Latin `a` with Devanagari's `ा`) they are left out as accents
  are. Any such script's letter keeps them, not only their own script's, because TS #39's
  data makes one script's letter or sign another's (Lao's signs Thai's, Gujarati's
  Devanagari's, Kannada's letters Telugu's): a sign read with its own letter only would
  be dropped beside a lookalike letter, and `ปູ` would pass for a name other than `ปู`.

Spellings of a syllable that are drawn alike are read as one: an independent vowel as the
letter A with its vowel sign (`ओ` as `अो`, which Unicode's "do not use" tables name), a
run of marks on one letter in one order (Myanmar's `ကုိ` and `ကို`), a mark written twice
as once (`มาลีี`).
"""

from __future__ import annotations

import unicodedata
from typing import Final

import icu

_SPOOF = icu.SpoofChecker()
_NFD = icu.Normalizer2.getNFDInstance()
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


def _syllabic_scripts() -> frozenset[int]:
    """The scripts that have marks of SYLLABLE (ICU's script codes), Common and
    Inherited aside."""
    codes = {code for mark in _members(SYLLABLE) for code in icu.Script.getScriptExtensions(mark)}
    return frozenset(codes - {icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED})


def _independent_vowels() -> dict[str, str]:
    """Each Brahmic script's independent vowel letter as its letter A with the vowel sign
    of the same name (DEVANAGARI LETTER O as LETTER A and VOWEL SIGN O), by Unicode's
    names."""
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
            table[letter] = a + sign
    return table


DRAWN: Final = _drawn_marks()
_SYLLABIC: Final = _syllabic_scripts()
_AS_SIGNS: Final = str.maketrans(_independent_vowels())


def unmarked(text: str) -> str:
    """`text`, decomposed (NFD), without the marks its keys leave out, and its syllables
    spelt one way (above)."""
    kept: list[str] = []
    run: set[str] = set()
    syllabic = False
    for ch in _NFD.normalize(_NFD.normalize(text).translate(_AS_SIGNS)):
        if not MARK.contains(ch):
            kept.extend(sorted(run))
            run.clear()
            kept.append(ch)
            syllabic = icu.Script.getScript(ch).getScriptCode() in _SYLLABIC
        elif DRAWN.contains(ch) or (syllabic and SYLLABLE.contains(ch)):
            run.add(ch)
    kept.extend(sorted(run))
    return "".join(kept)
