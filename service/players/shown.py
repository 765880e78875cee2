"""Text other people or devices are shown (a player's name, a device's): which characters
it may not hold, because nobody sees them or they make it pass for another text, and where
a joiner is part of how it is drawn. The character data is ICU's (PyICU). Which names look
alike is names.py."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Final

import icu
from pydantic import AfterValidator, StrictStr

# Unicode categories no name may hold: control (Cc), format (Cf: bidirectional marks and
# overrides, zero-width joiners and spaces), private use (Co), surrogates (Cs), unassigned
# (Cn), and the line and paragraph separators (Zl, Zp: a name in two lines passes for two
# rows of a board); with them one player could pass for another on a board.
_NOT_IN_NAMES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
# the variation selectors of emoji (U+FE0E text, U+FE0F emoji presentation), which phones'
# keyboards put after ❤, ☺ or ✌: a hint to the font, dropped there, not refused; anywhere
# else one is an invisible character (Default_Ignorable_Code_Point), refused (names.py)
_PRESENTATION = ("\ufe0e", "\ufe0f")
_KEYCAP, _KEYCAP_BASES = "\u20e3", frozenset("0123456789#*")  # the keycap emoji: 1️⃣ #️⃣
# the zero-width joiner and non-joiner are format characters, refused but where they join:
# the joiner two emoji into one (👨‍👩‍👧, 👩🏽‍💻: after a pictograph or its skin tone, before a
# pictograph); either one a virama to the letter after it, as a Brahmic script's spelling
# asks (Sinhala's conjuncts, චන්ද්‍රිකා; Kannada's ರಾಜ್‌ಕುಮಾರ್); the non-joiner two Arabic
# letters (Persian's علی‌رضا). PyICU's data.
_JOINER, _NON_JOINER = "\u200d", "\u200c"
_JOINS_AFTER = icu.UnicodeSet("[[:Extended_Pictographic:][:Emoji_Modifier:]]")
_JOINS_BEFORE = icu.UnicodeSet("[:Extended_Pictographic:]")
_VIRAMA = icu.UnicodeSet("[[:InSC=Virama:][:InSC=Invisible_Stacker:]]")
_LETTER = icu.UnicodeSet("[:L:]")
_ARABIC_LETTER = icu.UnicodeSet("[[:sc=Arab:]&[:L:]]")
for _set in (_JOINS_AFTER, _JOINS_BEFORE, _VIRAMA, _LETTER, _ARABIC_LETTER):
    _set.freeze()


def joins(text: str, i: int) -> bool:
    """Whether text[i] is a joiner or a non-joiner where it joins (above): it shows in how
    its neighbours are drawn."""
    if text[i] not in (_JOINER, _NON_JOINER) or not 0 < i < len(text) - 1:
        return False
    before, after = text[i - 1], text[i + 1]
    if _VIRAMA.contains(before):
        return _LETTER.contains(after)
    if text[i] == _JOINER:
        return _JOINS_AFTER.contains(before) and _JOINS_BEFORE.contains(after)
    return _ARABIC_LETTER.contains(before) and _ARABIC_LETTER.contains(after)


def _without_presentation(text: str) -> str:
    """`text` without the presentation selectors that follow an emoji, or a keycap's base
    before its enclosing keycap (1️⃣: `1`, U+FE0F, U+20E3)."""
    if "\ufe0e" not in text and "\ufe0f" not in text:
        return text
    return "".join(ch for i, ch in enumerate(text)
                   if not (ch in _PRESENTATION and i and _after_emoji(text, i)))


def _after_emoji(text: str, i: int) -> bool:
    before = text[i - 1]
    if _JOINS_BEFORE.contains(before):
        return True
    return before in _KEYCAP_BASES and text[i + 1:i + 2] == _KEYCAP


# the longest text shown_text reads at all, spaces around it included
_MOST_UNTRIMMED: Final = 400


def shown_text(what: str, most: int) -> object:
    """The type of text other people or devices are shown: trimmed, 1 to `most`
    characters, none of them one that could make it pass for another."""

    def check(text: str) -> str:
        if len(text) > _MOST_UNTRIMMED:  # (before any work on it)
            raise ValueError(f"{what} is 1 to {most} characters after trimming spaces,"
                             f" and {_MOST_UNTRIMMED} at most before")
        # (checked before trimming: a control or line-breaking character at an end is
        # refused as one inside is, not trimmed as a space; what is left to trim is spaces)
        text = _without_presentation(text)
        for i, ch in enumerate(text):
            if unicodedata.category(ch) in _NOT_IN_NAMES and not joins(text, i):
                raise ValueError(
                    f"{what} cannot contain control, format (bidirectional or zero-width),"
                    f" line-breaking, private-use or unassigned characters such as"
                    f" U+{ord(ch):04X}"
                )
        text = text.strip()
        if not 1 <= len(text) <= most:
            raise ValueError(f"{what} is 1 to {most} characters after trimming spaces")
        return text

    return Annotated[StrictStr, AfterValidator(check)]
