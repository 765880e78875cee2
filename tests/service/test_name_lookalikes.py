"""Players' names checked against ICU, without a database: names that look alike are one
player, real names that differ are two (service/players/names.py and marks.py).

Two players cannot have names that share any one of three keys (`name_key`, `shape_key`,
`glyph_key`: each compared with the same key of the other name, by its own unique index,
NAME_KEY_INDEXES), and a new player's name is what NewPlayer accepts (1 to NAME_MAX
characters, none invisible, `visible`). So:

- characters that ICU's confusable data (Unicode TS #39) gives one skeleton, put in one
  frame, make names that share a key, and so do real Latin names written with Cyrillic or
  Greek lookalikes;
- the real names of tests/data/names_by_script.txt are names, and two of one script share
  no key;
- in the scripts that spell syllables with marks a vowel sign is a letter (`राम`, `रमा`),
  and a mark that makes another letter too (Arabic's dots, the kana's voicing marks),
  where it makes one, while an accent on a Latin, Greek, Cyrillic, Arabic or Hebrew
  letter is not (`José`, `Jose`).
"""

from __future__ import annotations

import itertools
import random
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import icu
import pydantic

from service.players import names
from service.players.schemas import NewPlayer

NAMES_FILE = Path(__file__).resolve().parents[1] / "data" / "names_by_script.txt"
KEY_NAMES = ("name_key", "shape_key", "glyph_key")
SHOWN = 20  # offenders a failure prints, at most
# a frame of Hebrew letters (mem, he), for the letters written right to left: a name holds
# letters of one direction (names.two_directions)
RIGHT_TO_LEFT_FRAME = "\u05de{}\u05d4"
HANGUL_SYLLABLES = icu.UnicodeSet("[[:Hangul_Syllable_Type=LV:][:Hangul_Syllable_Type=LVT:]]")
HANGUL_SAMPLED = 8

# pairs of real names (as the data file spells them) that share a key and that a reader
# may agree look alike: kept out of test_real_names_that_differ_are_two_players
KNOWN: dict[frozenset[str], str] = {
    # Hasan and Husen, Naseem and Naseema: Thaana's vowel marks are dropped as accents (a
    # choice left open: kept, they were drawn from Arabic's vowel signs, and from Thai's
    # and the Brahmic scripts' signs, and each made copies of the others' names)
    frozenset({"\u0780\u07a6\u0790\u07a6\u0782\u07b0", "\u0780\u07aa\u0790\u07ac\u0782\u07b0"}):
        "Thaana's fili are accents here",
    frozenset({"\u0782\u07a6\u0790\u07a9\u0789\u07b0", "\u0782\u07a6\u0790\u07a9\u0789\u07a7"}):
        "Thaana's fili are accents here",
    # Soraya and Pariya: ICU itself calls them confusable (name_key too), not the rule
    frozenset({"\u062b\u0631\u06cc\u0627", "\u067e\u0631\u06cc\u0627"}):
        "TS #39's data gives THEH and PEH one skeleton, ALEF MAKSURA with U+06DB",
}

# Latin letters and the Cyrillic and Greek letters ICU makes one with them
CYRILLIC = dict(zip("acdehijopqswxyABCEHIJKMOPSTXY",
                    "асԁеһіјорԛѕԝхуАВСЕНІЈКМОРЅТХҮ", strict=True))
GREEK = dict(zip("iopuvyABEHIKMNOPTXYZ", "ιορυνγΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", strict=True))

# names apart by a vowel sign (or a tone mark, virama, medial or subjoined consonant) of a
# script that spells syllables with marks, each a real name but a few: two names
APART_BY_A_SIGN = {
    "Devanagari": [("राम", "रमा"), ("कमल", "कमला"), ("गीत", "गीता")],
    "Bengali": [("কমল", "কমলা"), ("রাম", "রমা")],
    "Gurmukhi": [("ਕਮਲ", "ਕਮਲਾ"), ("ਪ੍ਰੀਤ", "ਪ੍ਰੀਤੀ")],
    "Gujarati": [("કમલ", "કમલા"), ("ગીત", "ગીતા")],
    "Oriya": [("କମଳ", "କମଳା"), ("ରାମ", "ରମା")],
    "Tamil": [("பிரபு", "பாபு"), ("கமல்", "கமலா"), ("ராஜா", "ராஜு")],
    "Telugu": [("రాజు", "రాజా"), ("రాము", "రామ")],
    "Kannada": [("ಜಯ", "ಜಯಾ"), ("ರಾಜು", "ರಾಜ")],
    "Malayalam": [("മിനി", "മീന"), ("രാജു", "രാജ")],
    "Sinhala": [("කමල්", "කමලා"), ("ගීතා", "ගීත")],
    "Thai": [("ป่าน", "ปาน"), ("ดำ", "ดา"), ("ปู", "ปี")],
    "Lao": [("ສຸກ", "ສັກ"), ("ນ້ອຍ", "ນອຍ")],
    "Myanmar": [("မြင့်", "မင်း"), ("ကျော်", "ကော်"), ("တိုး", "တူ")],
    "Khmer": [("សុខ", "សុខា"), ("ចាន់", "ចាន")],
    "Tibetan": [("ལྷ་མོ", "ལ་མོ"), ("སྒྲོལ་མ", "སྒྲོལ་མོ")],
    # (Thaana, which writes every vowel as a mark, is not among them: its fili are dropped
    # as accents are, see KNOWN)
}
# names apart by a mark that makes another letter, not an accent: Arabic's dots (SEEN and
# SHEEN, REH and JEH: Sima and Shima, Sami and Shami, Rina and Zhina), the kana's voicing
# marks (Taiki and Daiki, Kenta and Genta, Harry and Barry)
APART_BY_A_LETTERS_MARK = [
    ("سیما", "شیما"), ("سامي", "شامي"), ("رینا", "ژینا"),
    ("たいき", "だいき"), ("けんた", "げんた"), ("ハリー", "バリー"), ("ケンジ", "ゲンジ"),
    ("は", "ぱ"), ("ハン", "パン"), ("ひかちゅう", "ぴかちゅう"), ("و", "ۆ"),
]
# a mark a letter's keys keep, written where it makes no other letter, or written with
# a mark drawn as it, or as the letter's own: one name (the voicing mark on a Latin or an
# Arabic letter, a Thai or Thaana sign on a Latin `l` or an Arabic alef, a damma's
# lookalike or a breve on `م`, a caron for the small v of Kurdish `ێ` and `ۆ`, three dots
# drawn as U+06DB, Arabic's vowel signs on Thaana letters, a double acute on kana)
ONE_WITH_ITS_MARKS = [
    ("Ada", "Ada\u3099"), ("محمد", "محم\u3099د"), ("احمد", "ا\u07a6حمد"),
    ("Ella", "El\u0e47la"), ("Ivan", "1\u0e48van"), ("محمد", "م\u0313حمد"),
    ("محمد", "م\u0306حمد"), ("محمد", "م\u0615حمد"), ("نۇر", "نو\u08f3ر"),
    ("شێرکۆ", "شی\u030cرکو\u030c"), ("شێرکۆ", "شی\u065aرکو\u065a"),
    ("شیما", "س\u20dbیما"), ("شیما", "س\u06dbیما"), ("ژینا", "ر\u1ab4ینا"),
    ("ހަސަން", "ހ\u064eސ\u064eނ\u0652"), ("ހުސެން", "ހ\u064fސެން"),
    ("だいき", "た\u030bいき"), ("バ", "八\u3099"), ("バ", "八゛"), ("だ", "た゛"),
    # a voicing mark on a kana, a Han character or a sign it makes no other of; marks drawn
    # as it; an Arabic dot that makes another letter only with a second one; Thai's sign on
    # a Thaana letter, Thaana's on a Thai or Devanagari one
    ("まりな", "ま\u3099りな"), ("なお", "な\u309aお"), ("工藤", "工\u3099藤"),
    ("AC/DC", "AC/\u3099DC"), ("ぱく", "は\u0366く"), ("だいき", "た\u064bいき"),
    ("علی", "علی\u0307"), ("صابر", "ص\u0323ابر"), ("ހަސަން", "ހަ\u0e48ސަން"),
    ("สมชาย", "ส\u07a6มชาย"), ("राम", "र\u07a6ाम"),
    # a second voicing mark on a voiced kana; an Arabic letter's dots with an accent, or
    # drawn twice
    ("だいき", "だ\u030bいき"), ("だいき", "た\u3099\u030bいき"), ("ぱく", "ぱ\u030aく"),
    ("ばば", "ば\u309aば"), ("شیما", "س\u06db\u0300یما"), ("شیما", "س\u06db\u20dbیما"),
    ("کۆچ", "کو\u0306\u0300چ"), ("ڈاکٹر", "د\u0615\u0300اکٹر"),
]
# a letter spelt another way that is drawn alike (marks._DRAWN_ALIKE and _TSA_PHRU, and
# names._DRAWN_AS): Bengali's RA as BA with a nukta, Assamese's RA in a reph or a
# ra-phala, khanda TA as TA, a virama and a joiner; Tamil's SRI with SHA, its vowel signs'
# two parts the other way round; a Malayalam chillu as its letter, a virama and a joiner,
# NTA with the chillu; Oriya's subjoined VA for WA; Gurmukhi's tippi as the bindi, RRA as
# DDA with a nukta; Mon's NGA; Khmer's shifter drawn as U, QAA, subjoined DA; Tibetan's JA
# and CHA with the TSA-PHRU; Arabic's African QAF and NOON, BEH with three dots below;
# Sinhala's and Javanese's digits drawn as RA and YA; Greek's `϶` and the turned small
# capital M as Cyrillic's; or a tatweel lengthening a join: one name
DRAWN_ALIKE = [
    ("محمد", "م\u0640ح\u0640م\u0640د"), ("فاطمة", "فاط\u0640مة"),
    ("রাহুল", "\u09ac\u09bcাহুল"), ("চৌধুরী", "চৌধু\u09ac\u09bcী"), ("অর্ণব", "অ\u09f0্ণব"),
    ("সুব্রত", "সুব্\u09f0ত"), ("উৎপল", "উত্\u200dপল"), ("ஸ்ரீதேவி", "\u0bb6்ரீதேவி"),
    ("സൽമാൻ", "സല്\u200dമാൻ"), ("ਢਿੱਲੋਂ", "ਢਿੱਲੋ\u0a70"), ("ੜੀ", "ਡ\u0a3cੀ"),
    ("မြင့်", "မြ\u105a့်"),
    ("மோகன்", "ம\u0bbe\u0bc7கன்"), ("பொன்", "ப\u0bbe\u0bc6ன்"), ("கௌசல்யா", "க\u0bd7\u0bc6சல்யா"),
    ("ആന്റണി", "ആ\u0d7b\u0d4dറണി"), ("ବିଶ୍ୱନାଥ", "ବିଶ୍\u0b35ନାଥ"), ("ស៊ីថា", "ស\u17bbីថា"),
    ("ប៊ិះ", "ប\u17bbិះ"),
    ("អារុណ", "\u17a4រុណ"), ("ឧត្តម", "ឧត្\u178aម"), ("བསྟན་འཛིན", "བསྟན་འ\u0f47\u0f39ིན"),
    ("ཚེ་རིང", "\u0f46\u0f39ེ་རིང"), ("فاطمة", "\u08bcاطمة"), ("نور", "\u08bdور"),
    ("پرویز", "\u0752رویز"), ("කුමාර", "කුමා\u0dee"), ("ꦮꦶꦗꦪ", "ꦮꦶꦗ\ua9d9"),
    ("Эрдэнэ", "Эрд\u03f6н\u03f6"), ("Саша", "Са\ua7faа"),
]
# names apart by an accent (or stress mark, or niqqud and harakat): one name
APART_BY_AN_ACCENT = [
    ("José", "Jose"), ("Zoë", "Zoe"), ("François", "Francois"), ("Müller", "Muller"),
    ("Ștefan", "Stefan"), ("Núñez", "Nunez"), ("Renée", "Renee"),
    ("Ζωή", "Ζωη"), ("Ελένη", "Ελενη"), ("Αθηνά", "Αθηνα"), ("Ϊλιάδα", "Ιλιαδα"),
    ("Ёлка", "Елка"), ("Алёна", "Алена"), ("Ива\u0301н", "Иван"),
    ("مُحَمَّد", "محمد"), ("أحمد", "احمد"), ("عَلِيّ", "علي"),
    ("שָׂרָה", "שרה"), ("אוֹרִי", "אורי"), ("דָּוִד", "דוד"),
]


def _accepted(name: str) -> bool:
    """Whether a new player may take `name`, as written."""
    try:
        return NewPlayer.model_validate({"name": name}).name == name
    except pydantic.ValidationError:
        return False


def _keys(name: str) -> tuple[str, str, str]:
    return names.name_key(name), names.shape_key(name), names.glyph_key(name)


def _shared(a: tuple[str, ...], b: tuple[str, ...]) -> list[str]:
    """The keys two names share (each against the same key of the other)."""
    return [key for key, x, y in zip(KEY_NAMES, a, b, strict=True) if x == y]


def _shown(name: str) -> str:
    return f"{name!r} ({' '.join(f'U+{ord(ch):04X}' for ch in name)})"


def _members(chars: icu.UnicodeSet) -> list[str]:
    found, it = [], icu.UnicodeSetIterator(chars)
    while it.next():
        found.append(it.getString())
    return found


def _failing(offenders: list[str], checked: int, what: str) -> str:
    return f"{len(offenders)} of {checked} {what}:\n" + "\n".join(offenders[:SHOWN])


@cache
def _by_script() -> dict[str, list[str]]:
    """The data file's names by script, in its order."""
    groups: dict[str, list[str]] = {}
    script = None
    for line in NAMES_FILE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("##"):
            continue
        if line.startswith("#"):
            script = line.removeprefix("#").strip()
            groups[script] = []
        else:
            assert script is not None, f"{line!r} comes before any `# Script` line"
            groups[script].append(line)
    return groups


@cache
def _syllable_frame(script: int) -> tuple[str, str] | None:
    """A consonant and a dependent vowel sign of a script that spells syllables with marks
    (ICU's script code), or None for another script."""
    short = icu.Script(script).getShortName()
    consonants = _members(icu.UnicodeSet(f"[[:sc={short}:]&[:InSC=Consonant:]&[:Lo:]]"))
    signs = _members(icu.UnicodeSet(f"[[:sc={short}:]&[:InSC=Vowel_Dependent:]&[:M:]]"))
    return (consonants[0], signs[0]) if consonants and signs else None


def _lookalike_classes() -> Iterable[list[str]]:
    """The letters, marks and digits that TS #39's data gives one skeleton, with that
    skeleton as written (`rn` for `m`) when it is not one of them nor a canonical form of
    one (`e` with U+0301 for `é`): each class of two or more. A Hangul syllable's class
    is the syllable and its jamo with their lookalikes (`이` and `ᄋ丨`): one in
    HANGUL_SAMPLED of those (11,000) is kept, the same ones on every run."""
    spoof, sample = icu.SpoofChecker(), random.Random(39)
    by_skeleton: dict[str, list[str]] = defaultdict(list)
    for ch in _members(icu.UnicodeSet("[[:L:][:M:][:N:]]")):
        by_skeleton[str(spoof.getSkeleton(0, ch))].append(ch)
    for skeleton, chars in by_skeleton.items():
        if all(unicodedata.normalize("NFD", ch) != skeleton for ch in chars):
            chars.append(skeleton)
        if HANGUL_SYLLABLES.contains(chars[0]) and sample.randrange(HANGUL_SAMPLED):
            continue
        if len(chars) > 1:
            yield chars


def test_characters_icu_calls_confusable_make_one_name() -> None:
    """Every two names that differ only by two characters of one skeleton (ICU's
    confusable data over all letters, marks and digits: about 4,400 classes, 1,400 of them
    Hangul's) share a key: in the frame `ma…ia` (about 10,000 names, 25,200 pairs); for a
    class with a letter written right to left, in a frame of Hebrew letters (`מ…ה`, about
    1,400 names, 3,600 pairs); and, for a class with a letter of a script that spells
    syllables with marks, between that script's consonant and vowel sign (`क…ा`, about 750
    names, 4,200 pairs), where a sign is kept or dropped by the letter before it. Only
    names NewPlayer accepts are made (a name's letters go one way: `ma…ia` takes no
    Hebrew letter)."""
    offenders, checked = [], 0
    for chars in _lookalike_classes():
        frames = ["ma{}ia"]
        if any(names.two_directions("a" + ch) for ch in chars):  # (a letter right to left)
            frames.append(RIGHT_TO_LEFT_FRAME)
        for ch in chars:
            frame = ch and _syllable_frame(icu.Script.getScript(ch[0]).getScriptCode())
            if frame:
                frames.append(frame[0] + "{}" + frame[1])
                break
        for frame in frames:
            made = [(name, _keys(name)) for name in (frame.format(ch) for ch in chars)
                    if _accepted(name)]
            for (a, a_keys), (b, b_keys) in itertools.combinations(made, 2):
                checked += 1
                if not _shared(a_keys, b_keys):
                    offenders.append(f"{_shown(a)} and {_shown(b)}: {a_keys} {b_keys}")
    assert checked > 30_000, checked  # (ICU's data, not the rule, would have shrunk)
    assert not offenders, _failing(offenders, checked, "lookalike pairs share no key")


def test_real_names_with_cyrillic_or_greek_letters_are_one_name() -> None:
    """Each Latin name of the data file with every letter that has a Cyrillic (or Greek)
    lookalike replaced by it, and with each such letter alone replaced (about 250 names),
    shares a key with the name."""
    for table in (CYRILLIC, GREEK):  # (the tables hold ICU's lookalikes, no others)
        spoof = icu.SpoofChecker()
        assert all(spoof.getSkeleton(0, a) == spoof.getSkeleton(0, b) for a, b in table.items())
    offenders, checked = [], 0
    for name in _by_script()["Latin"]:
        disguised = {"".join(table.get(ch, ch) for ch in name) for table in (CYRILLIC, GREEK)}
        for i, ch in enumerate(name):
            disguised |= {name[:i] + table[ch] + name[i + 1:]
                          for table in (CYRILLIC, GREEK) if ch in table}
        for other in sorted(disguised - {name}):
            checked += 1
            if not _accepted(other) or not _shared(_keys(name), _keys(other)):
                offenders.append(f"{_shown(name)} and {_shown(other)}: {_keys(other)}")
    assert checked > 200, checked
    assert not offenders, _failing(offenders, checked, "disguised names are refused or apart")


def test_real_names_are_names() -> None:
    """Every name of the data file (about 900 of 32 scripts) is a name a new player may
    take, as written (a ZWNJ in Persian's `علی‌رضا`, a ZWJ in Sinhala's `චන්ද්‍රිකා`)."""
    groups = _by_script()
    assert len(groups) >= 30 and all(len(group) >= 14 for group in groups.values()), {
        script: len(group) for script, group in groups.items()}
    offenders, checked = [], 0
    for script, group in groups.items():
        assert len(set(group)) == len(group), f"a name of {script} is there twice"
        for name in group:
            checked += 1
            try:
                taken = NewPlayer.model_validate({"name": name}).name
            except pydantic.ValidationError as exc:
                offenders.append(f"{script} {_shown(name)}: {exc.errors()[0]['msg']}")
                continue
            if taken != name:
                offenders.append(f"{script} {_shown(name)} is taken as {_shown(taken)}")
    assert not offenders, _failing(offenders, checked, "real names are refused")


def test_real_names_that_differ_are_two_players() -> None:
    """Within each script of the data file, every two of its names (about 13,000 pairs)
    share no key, but the pairs of KNOWN."""
    offenders, checked, known = [], 0, set()
    for script, group in _by_script().items():
        keys = {name: _keys(name) for name in group}
        for a, b in itertools.combinations(group, 2):
            checked += 1
            if shared := _shared(keys[a], keys[b]):
                if frozenset({a, b}) in KNOWN:
                    known.add(frozenset({a, b}))
                else:
                    offenders.append(f"{script} {_shown(a)} and {_shown(b)} share {shared}:"
                                     f" {keys[a]}")
    assert known == set(KNOWN), f"KNOWN pairs that no longer share a key: {set(KNOWN) - known}"
    assert not offenders, _failing(offenders, checked, "pairs of real names share a key")


def test_vowel_signs_make_two_names() -> None:
    """In the scripts that spell syllables with marks, names apart by a vowel sign (or a
    tone mark, a virama, a medial or subjoined consonant) share no key."""
    offenders, checked = [], 0
    for script, pairs in APART_BY_A_SIGN.items():
        for a, b in pairs:
            checked += 1
            assert _accepted(a) and _accepted(b), (script, a, b)
            if shared := _shared(_keys(a), _keys(b)):
                offenders.append(f"{script} {_shown(a)} and {_shown(b)} share {shared}:"
                                 f" {_keys(a)}")
    assert not offenders, _failing(offenders, checked, "pairs apart by a sign share a key")


def test_marks_that_make_another_letter_make_two_names() -> None:
    """Names apart by Arabic's dots or the kana's voicing marks share no key: the letters
    are others (ICU's skeletons keep them apart), not the same letters with an accent."""
    offenders = []
    for a, b in APART_BY_A_LETTERS_MARK:
        assert _accepted(a) and _accepted(b), (a, b)
        if shared := _shared(_keys(a), _keys(b)):
            offenders.append(f"{_shown(a)} and {_shown(b)} share {shared}: {_keys(a)}")
    assert not offenders, _failing(offenders, len(APART_BY_A_LETTERS_MARK),
                                   "pairs apart by a letter's mark share a key")


def _apart(pairs: list[tuple[str, str]]) -> list[str]:
    """The pairs of names (each a name a new player may take) that share no key."""
    offenders = []
    for a, b in pairs:
        assert _accepted(a) and _accepted(b), (a, b)
        if not _shared(_keys(a), _keys(b)):
            offenders.append(f"{_shown(a)} and {_shown(b)}: {_keys(a)} {_keys(b)}")
    return offenders


def test_accents_make_one_name() -> None:
    """Names apart by accents on Latin, Greek, Cyrillic, Arabic or Hebrew letters (or a
    stress mark, harakat, niqqud) share a key; so does a syllable with an accent on it."""
    pairs = [*APART_BY_AN_ACCENT, ("रा\u0301म", "राम"), ("a\u093eb", "ab")]
    assert not (offenders := _apart(pairs)), _failing(offenders, len(pairs),
                                                      "accented pairs share no key")


def test_marks_a_key_keeps_do_not_make_a_copy_of_a_name() -> None:
    """A mark kept in the keys where it makes another letter (the kana's voicing marks,
    Arabic's dots, Thaana's vowels, the syllabic scripts' signs) makes no name of its own
    where it makes none, nor when written with a mark drawn as it: each copy of
    ONE_WITH_ITS_MARKS shares a key with its name."""
    assert not (offenders := _apart(ONE_WITH_ITS_MARKS)), _failing(
        offenders, len(ONE_WITH_ITS_MARKS), "copies share no key with their names")


def test_spellings_drawn_alike_are_one_name() -> None:
    """A letter spelt as another with a sign, or two letters, that are drawn alike (and a
    tatweel) makes no name of its own: each of DRAWN_ALIKE shares a key with its name. A
    sign written twice on a letter is refused, beside the first or not (Thai's `ดิ์ิ` is
    drawn as `ดิ์`)."""
    assert not (offenders := _apart(DRAWN_ALIKE)), _failing(
        offenders, len(DRAWN_ALIKE), "spellings share no key")
    for name in ("สมศักดิ\u0e4c\u0e34", "ยิ\u0e48\u0e34งลักษณ์", "ຄຳຫ\u0ec9\u0ebc\u0ec9າ"):
        assert not _accepted(name), _shown(name)
