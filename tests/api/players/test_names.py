"""No player can pass for another: names that look like an existing player's are 409
`name-taken` (NFKC, case folding, then the confusable skeleton of Unicode TS #39), names
with invisible characters are 400, and the database's unique index decides, so lookalike
names created at once do not both pass; players older than the rule keep their names."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
from aiohttp.test_utils import TestClient

from service.base.keys import BACKEND_KEY

from ..helpers import auth, create, created, get, instance, new_player

LOOKALIKES = {
    "the same name": "ada",
    "a Cyrillic a": "\u0430da",
    "fullwidth letters": "\uff41\uff44\uff41",
    "capitals": "ADA",
    "spaces around it": "  Ada ",
}
INVISIBLE = {
    "Hangul filler": "ada\u3164",
    "Braille blank": "ada\u2800",
    "musical null notehead": "ada\U0001d159",
    "a musical null notehead inside": "a\U0001d159da",
    "halfwidth Hangul filler": "ada\uffa0",
    "combining grapheme joiner": "ada\u034f",
    "variation selector 1": "ada\ufe00",
    "only a Hangul filler": "\u3164",
}


async def test_a_name_that_looks_like_a_players_is_taken(client: TestClient) -> None:
    ada = await new_player(client, "ada")
    for what, name in LOOKALIKES.items():
        status, problem = await create(client, name)
        assert status == 409, (what, problem)
        assert str(problem["type"]).endswith("/name-taken"), (what, problem)
        assert "looks like another player's" in str(problem["detail"])
    # a name that only looks different is a new player; the first one is untouched
    await created(client, "bob", "adam", "\u0430\u0434\u0430")  # Cyrillic "ада" reads "ада"
    me = await get(client, "/v1/players/me", headers=auth(ada))
    assert me["name"] == "ada"


# (a player's name, a name that looks like it as written): a capital that looks like
# another letter, runs of spaces, a mark under a letter
LOOKALIKES_AS_WRITTEN = [
    ("lan", "Ian"), ("Bill", "BiII"), ("Wil", "WiI"), ("AdaLovelace", "AdaLoveIace"),
    ("Oscar", "0scar"), ("Ada Lovelace", "Ada  Lovelace"), ("Ian", "I\u2009an"),
    ("Bob", "B\u200aob"),
    ("Ada Lovelace", "Ada Lovelacẹ"),
    # a symbol drawn as a letter its compatibility form is not (a Greek lunate sigma is
    # drawn as c, its form is ς; a long s as f; halfwidth bars as l), a small palochka
    ("oscar", "os\u03f2ar"), ("Carl", "\u03f9arl"), ("fred", "\u017fred"),
    ("bill", "bi\uffe8\uffe8"), ("hello", "he\u04cf\u04cfo"),
    # small capitals, a box-drawing bar and the CJK stroke drawn as l, the tone six as b
    ("ada", "\u1d00\u1d05\u1d00"), ("adal", "ada\u2502"), ("adal", "ada\u4e28"),
    ("adal", "ada\u23d0"), ("adal", "ada\u3021"), ("adal", "ada\u2758"), ("adal", "ada\u258f"),
    ("bob", "\u0185ob"),
    # letters whose skeleton is a small capital (Cyrillic ve, en with descender, Latin
    # turned r with long leg, Cherokee): read as that capital's letter; and one small
    # capital whose skeleton is another's (Cyrillic em, small capital M)
    ("bat", "\u0432at"), ("zorro", "\u1d22\u1d0f\uab71\uab71\u1d0f"), ("hanna", "\u04a3anna"),
    ("bat", "\u13fcat"), ("\u1d0dax", "\u043cax"), ("max", "\u1d0dax"),
    # TS #39's data: the small palochka is an i (drawn as a bar, it is an l above)
    ("kiwi", "k\u04cfwi"),
    # marks drawn beside their letter as a letter or a digit (Telugu, Kannada, Malayalam
    # and Sinhala anusvaras as o, the Oriya visarga as 8): read as drawn, not left out
    ("root", "ro\u0c02t"), ("cool", "co\u0c82l"), ("bob", "b\u0d02b"), ("moon", "mo\u0d82n"),
    ("agent8", "agent\u0b03"),
    # Tamil's vowel sign AI is drawn as the letter NNNA beside its consonant (TS #39's data)
    ("\u0b95\u0ba9", "\u0b95\u0bc8"),
    # a vowel sign or a letter of another script that TS #39's data makes this one's (Lao's
    # UU on a Thai letter, Gujarati's U on Devanagari, a Kannada YA among Telugu letters)
    ("\u0e1b\u0e39", "\u0e1b\u0eb9"),
    ("\u0915\u0941\u092e\u093e\u0930", "\u0915\u0ac1\u092e\u093e\u0930"),
    ("\u0c2a\u0c4d\u0c30\u0c3f\u0c2f\u0c3e", "\u0c2a\u0c4d\u0c30\u0c3f\u0caf\u0c3e"),
    # one syllable spelt two ways: an independent vowel and the letter A with its sign,
    # two signs drawn as one (Devanagari's O, Khmer's OO), Myanmar's signs in either order
    ("\u0913\u092e", "\u0905\u094b\u092e"),
    ("\u1000\u102d\u102f\u1000\u102d\u102f", "\u1000\u102f\u102d\u1000\u102f\u102d"),
    ("\u0915\u094b\u092e\u0932", "\u0915\u093e\u0947\u092e\u0932"),
    ("\u179f\u17c4\u1797\u17b6", "\u179f\u17c1\u17b6\u1797\u17b6"),
    # independent vowels TS #39's data makes another's (Telugu's and Kannada's AA, AA with
    # the sign E and O, Malayalam's II and I with the AU length mark)
    ("\u0c06\u0c28\u0c02\u0c26\u0c4d", "\u0c86\u0c28\u0c02\u0c26\u0c4d"),
    ("\u0913\u092e", "\u0906\u0947\u092e"),
    ("\u0d08\u0d36\u0d4d\u0d35\u0d7c", "\u0d07\u0d57\u0d36\u0d4d\u0d35\u0d7c"),
    # a mark drawn as a letter among a letter's signs (Kannada's anusvara as a Cyrillic o,
    # Devanagari's visarga as a colon); a letter that TS #39's data makes one with a letter
    # of such a script, with that script's sign (Latin o and Myanmar's TA, Glagolitic and
    # Javanese); a letter whose skeleton is a Latin one with a slash
    ("\u0c89\u0caa\u0cc7\u0c82\u0ca6\u0ccd\u0cb0", "\u0c89\u0caa\u0cc7\u043e\u0ca6\u0ccd\u0cb0"),
    ("\u0926\u0941\u0903\u0916", "\u0926\u0941:\u0916"),
    ("\u1010\u1004\u103a", "o\u102c\u1004\u103a"),
    ("\ua9b2\ua992\ua9b8\ua9b1\ua9c0", "\ua9b2\u2c3f\ua9b8\ua9b1\ua9c0"),
    ("\u00d8scar", "Oscar"),
    # a mark TS #39's data makes one with a script's sign (Arabic's U+08EA and the
    # Devanagari anusvara, both a dot above); TS #39's own reading of a syllable spelt
    # another way (Tamil's A with the sign AA and RA with U)
    ("\u0906\u0928\u0902\u0926", "\u0906\u0928\u08ea\u0926"),
    ("\u0b85\u0bb0\u0bc1\u0ba3\u0bcd", "\u0b85\u0bbe\u0bc1\u0ba3\u0bcd"),
    # Cherokee's small letters whose skeleton is a small capital's (K and M)
    ("Emma", "Em\uab87a"),
    ("Ank", "An\uabb6"),
]


async def test_a_name_that_looks_like_a_players_as_written_is_taken(
    client: TestClient,
) -> None:
    for first, second in LOOKALIKES_AS_WRITTEN:
        for taken, lookalike in ((first, second), (second, first)):
            status, body = await create(client, taken)
            assert status == 201, body
            status, problem = await create(client, lookalike)
            assert status == 409 and str(problem["type"]).endswith("/name-taken"), (
                taken, lookalike, problem)
            await client.app[BACKEND_KEY].store.pool.execute(
                "DELETE FROM device_tokens; DELETE FROM players")
    # names that differ where a reader sees it are two players
    for name in ("lan", "ian", "Jan"):
        status, body = await create(client, name)
        assert status == 201, body


# names apart by a Brahmic script's vowel sign or virama, which makes another syllable:
# Ram and Rama, Prabhu and Babu, karm and karam (Devanagari, Tamil)
APART_BY_A_VOWEL_SIGN = [
    ("\u0930\u093e\u092e", "\u0930\u092e\u093e"),
    ("\u0baa\u0bbf\u0bb0\u0baa\u0bc1", "\u0baa\u0bbe\u0baa\u0bc1"),
    ("\u0915\u0930\u094d\u092e", "\u0915\u0930\u092e"),
    # Kannada and Malayalam, whose letters and signs TS #39's data makes another script's;
    # Myanmar's medial and Tibetan's subjoined consonants (Myint and Min, Lhamo and Lamo)
    ("\u0c9c\u0caf\u0cbe", "\u0c9c\u0caf"),
    ("\u0d2e\u0d3f\u0d28\u0d3f", "\u0d2e\u0d40\u0d28"),
    ("\u1019\u103c\u1004\u1037\u103a", "\u1019\u1004\u103a\u1038"),
    ("\u0f63\u0fb7\u0f0b\u0f58\u0f7c", "\u0f63\u0f0b\u0f58\u0f7c"),
    # Myanmar letters TS #39's data makes Latin ones (Tin and Win, Toe and Tu)
    ("\u1010\u1004\u103a", "\u101d\u1004\u103a\u1038"),
    ("\u1010\u102d\u102f\u1038", "\u1010\u1030"),
    # a script's tone marks, killers and bindus (U Thant and U Than, Thai's Parn and Pan,
    # Dam and Da, Hindi's hans and has)
    # a letter whose skeleton ends with the sign that follows it (Telugu's Rama and Ramu)
    ("\u0c30\u0c3e\u0c2e", "\u0c30\u0c3e\u0c2e\u0c41"),
    ("\u1026\u1038\u101e\u1014\u1037\u103a", "\u1026\u1038\u101e\u1014\u103a\u1038"),
    ("\u0e1b\u0e48\u0e32\u0e19", "\u0e1b\u0e32\u0e19"),
    ("\u0e14\u0e33", "\u0e14\u0e32"),
    ("\u0939\u0902\u0938", "\u0939\u0938"),
    # marks that make another letter: Arabic's dots, kana's voicing marks
    ("\u0633\u06cc\u0645\u0627", "\u0634\u06cc\u0645\u0627"), ("たいき", "だいき"),
]


async def test_names_apart_by_a_vowel_sign_are_two_players(client: TestClient) -> None:
    """A vowel sign is no accent: names apart by one are two players; on a letter of
    another script it is left out, as an accent is, and such a name looks like the name
    without it."""
    for pair in APART_BY_A_VOWEL_SIGN:
        for name in pair:
            status, body = await create(client, name)
            assert status == 201, (name, body)
    status, body = await create(client, "ab")
    assert status == 201, body
    # Devanagari's vowel sign AA on a Latin a; an acute over a Devanagari syllable
    for name in ("a\u093eb", "\u0930\u093e\u0301\u092e"):
        status, problem = await create(client, name)
        assert status == 409 and str(problem["type"]).endswith("/name-taken"), (name, problem)


async def test_names_a_script_spells_with_its_signs_and_joiners_are_names(
    client: TestClient,
) -> None:
    """A Brahmic syllable's signs are its letters, not marks stacked on it (Myanmar's Kyaw
    and Shwe, Tibetan's Dolma, Gurmukhi's Shanti), and a joiner or non-joiner after a
    virama, or a non-joiner between Arabic letters, is spelling (Sinhala's Chandrika,
    Kannada's Rajkumar, Persian's Alireza): each is a name, kept as written."""
    await created(
        client,
        "\u1000\u103b\u1031\u102c\u103a",
        "\u101b\u103d\u103e\u1031",
        "\u0f66\u0f92\u0fb2\u0f7c\u0f63\u0f0b\u0f58",
        "\u0a38\u0a3c\u0a3e\u0a02\u0a24\u0a3f",
        "\u0da0\u0db1\u0dca\u0daf\u0dca\u200d\u0dbb\u0dd2\u0d9a\u0dcf",
        "\u0cb0\u0cbe\u0c9c\u0ccd\u200c\u0c95\u0cc1\u0cae\u0cbe\u0cb0\u0ccd",
        "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627",
    )
    # elsewhere either one is an invisible character
    for name in ("ada\u200cbob", "\u0915\u200c\u0937", "ada\u200d"):
        status, problem = await create(client, name)
        assert status == 400 and "U+200" in str(problem["detail"]), (name, problem)


async def test_players_apart_by_a_vowel_sign_get_their_keys(db_url: str) -> None:
    """Migration 0030: the younger of two players apart by a vowel sign, left without
    keys by the rule before it, gets its own; the older keeps its keys."""
    from alembic import command

    from service.database.migrate import alembic_config

    ram, rama = APART_BY_A_VOWEL_SIGN[0]
    async with instance(db_url) as client:
        for name in (ram, rama):
            status, body = await create(client, name)
            assert status == 201, body
    conn = await asyncpg.connect(db_url)
    try:
        before = await conn.fetchrow("SELECT name_key, shape_key, glyph_key FROM players"
                                     " WHERE name = $1", ram)
        await conn.execute("UPDATE players SET name_key = NULL, shape_key = NULL,"
                           " glyph_key = NULL WHERE name = $1", rama)
        config = alembic_config(db_url)
        await asyncio.to_thread(command.downgrade, config, "0029")
        await asyncio.to_thread(command.upgrade, config, "head")
        keys = {row["name"]: tuple(row[1:]) for row in await conn.fetch(
            "SELECT name, name_key, shape_key, glyph_key FROM players")}
    finally:
        await conn.close()
    assert keys[ram] == tuple(before)
    assert None not in keys[rama] and keys[rama] != keys[ram], keys
    async with instance(db_url) as client:
        status, problem = await create(client, rama)
        assert status == 409 and str(problem["type"]).endswith("/name-taken"), problem


async def test_marks_stacked_on_a_letter_are_400(client: TestClient) -> None:
    status, problem = await create(client, "Zá̂̃̄lgo")
    assert status == 400 and "marks" in str(problem["detail"]), problem
    # marks added to a letter that holds some count with them (NFC would hide one)
    for name in ("a\u0301\u0302\u0303", "e\u0323\u0302\u0301\u0300", "\u00e1\u0302\u0303"):
        status, problem = await create(client, name)
        assert status == 400 and "marks" in str(problem["detail"]), (name, problem)
    # a mark written twice (on a Latin letter, a Thai one, beside it or not); a Thai sign
    # stacked 26 times, Tibetan's subjoined letters 15 times, 10 vowel signs on one
    # Devanagari letter, a Thai sign on a Latin letter
    for name in ("\u00e1\u0301", "\u0e21\u0e32\u0e25\u0e35\u0e35", "\u0e01" + "\u0e47" * 26,
                 "\u0e14\u0e34\u0e4c\u0e34", "\u0f40" + "\u0f90" * 15,
                 "\u0915\u093e\u093f\u0940\u0941\u0942\u0943\u0947\u0948\u094b\u094c",
                 "Ada\u0e38\u0e38\u0e38"):
        status, problem = await create(client, name)
        assert status == 400 and "marks" in str(problem["detail"]), (name, problem)
    # two marks on one letter, and a script's letters written as one, are names
    for name in ("Việt Nam", "Vie\u0323\u0302t", "\u1f67\u03bd"):
        status, body = await create(client, name)
        assert status == 201, (name, body)


async def test_a_name_in_two_lines_is_400(client: TestClient) -> None:
    # a line or paragraph separator would show one name as two rows of a board
    for name in ("ada\u2028bob", "ada\u2029bob", "ada\u0085bob", "ada\nbob"):
        status, problem = await create(client, name)
        assert status == 400, (name, problem)
        assert f"U+{ord(name[3]):04X}" in str(problem["detail"]), (name, problem)
    # at an end too: such a character is refused, not trimmed as a space would be
    for name in ("ada\u0085", "ada\u001f", "ada\r\n", "\tada", "ada\u2028"):
        status, problem = await create(client, name)
        assert status == 400, (name, problem)
        assert "such as U+" in str(problem["detail"]), (name, problem)
    status, problem = await create(client, "ab\u0378")  # (no character yet)
    assert status == 400 and "unassigned characters such as U+0378" in problem["detail"]


async def test_invisible_characters_are_400(client: TestClient) -> None:
    for what, name in INVISIBLE.items():
        status, problem = await create(client, name)
        assert status == 400, (what, problem)
        assert str(problem["type"]).endswith("/validation"), (what, problem)
        assert "invisible characters" in str(problem["detail"]), (what, problem)
    # none of them made a player: the name is still free
    await new_player(client, "ada")


async def test_a_name_cannot_begin_with_a_combining_mark(client: TestClient) -> None:
    """A mark has nothing to sit on at a name's start; marks alone show as next to
    nothing (and would all share one empty key)."""
    for name in ("\u0301", "\u0301\u0301", " \u0301", "\u0301ada"):
        status, problem = await create(client, name)
        assert status == 400, (name, problem)
        assert "combining mark" in str(problem["detail"]), (name, problem)
    status, body = await create(client, "Ada\u0300")  # a mark on a letter is a name
    assert status == 201, body

async def test_an_emojis_presentation_selector_is_dropped_not_refused(
    client: TestClient,
) -> None:
    """Phones' keyboards follow ❤ with U+FE0F (draw it as an emoji): the name is taken
    without it, and one that differs only by it looks like it; after a letter it is
    refused."""
    status, body = await create(client, "Ana \u2764\ufe0f")
    assert status == 201, body
    assert body["name"] == "Ana \u2764"
    status, problem = await create(client, "Ana \u2764\ufe0e")
    assert status == 409 and str(problem["type"]).endswith("/name-taken"), problem
    # a keycap as phones write it (1, U+FE0F, the enclosing keycap U+20E3)
    for name in ("Ana 1\ufe0f\u20e3", "Bo #\ufe0f\u20e3"):
        status, body = await create(client, name)
        assert status == 201, (name, body)
        assert body["name"] == name.replace("\ufe0f", "")
    # anywhere but after an emoji it is an invisible character (API.md: 400)
    for name in ("Bo\ufe0f", "B\ufe0eo", "\ufe0fBo"):
        status, problem = await create(client, name)
        assert status == 400, (name, problem)
        assert "invisible characters such as U+FE0" in str(problem["detail"]), (name, problem)


async def test_a_joiner_is_taken_only_between_two_emoji(client: TestClient) -> None:
    """U+200D joins emoji into one (a family, a coder with a skin tone); anywhere else it
    is an invisible character, refused."""
    for name in ("Dad \U0001F468\u200d\U0001F469\u200d\U0001F467",
                 "Kim \U0001F469\U0001F3FD\u200d\U0001F4BB"):
        status, body = await create(client, name)
        assert status == 201, body
        assert body["name"] == name
    # the emoji apart look like them joined where a font lacks the joined one
    status, problem = await create(client, "Dad \U0001F468\U0001F469\U0001F467")
    assert status == 409 and str(problem["type"]).endswith("/name-taken"), problem
    for name in ("Bo\u200d\U0001F469", "\U0001F469\u200dBo", "\U0001F469\u200d"):
        status, problem = await create(client, name)
        assert status == 400 and "U+200D" in str(problem["detail"]), (name, problem)

async def test_lookalike_names_created_at_once_make_one_player(db_url: str) -> None:
    names = ["ada", "ADA", "\u0430da", "\uff41\uff44\uff41", "Ada", "aDa", "adA", "AdA"]
    async with instance(db_url) as a, instance(db_url) as b:
        answers = await asyncio.gather(
            *(create(a if i % 2 else b, name) for i, name in enumerate(names))
        )
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] + [409] * (len(names) - 1), answers
    conn = await asyncpg.connect(db_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM players") == 1
    finally:
        await conn.close()


async def test_players_older_than_the_rule_keep_their_names(db_url: str) -> None:
    """Migration 0008 gives existing players their keys; of existing lookalikes the
    oldest holds the key (so new lookalikes are refused) and the others keep their
    names and tokens."""
    from alembic import command

    from service.database.migrate import alembic_config
    from service.players.accounts import hash_token

    config = alembic_config(db_url)
    await asyncio.to_thread(command.downgrade, config, "0007")
    t0 = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    old = {"ADA": t0 + timedelta(minutes=1), "ada": t0, "bob": t0 + timedelta(minutes=2),
           "oscar": t0 + timedelta(minutes=3), "os\u03f2ar": t0 + timedelta(minutes=4)}
    ids = {name: uuid.uuid4() for name in old}
    conn = await asyncpg.connect(db_url)
    try:
        for name, created in old.items():
            await conn.execute(
                "INSERT INTO players (id, name, created_at) VALUES ($1, $2, $3)",
                ids[name], name, created,
            )
            await conn.execute(
                "INSERT INTO device_tokens (id, player_id, token_hash, device)"
                " VALUES (gen_random_uuid(), $1, $2, 'phone')",
                ids[name], hash_token(f"token-of-{name}"),
            )
        await asyncio.to_thread(command.upgrade, config, "head")
        keys = dict(await conn.fetch("SELECT name, name_key FROM players"))
        assert keys == {"ada": "ada", "ADA": None, "bob": "bob", "oscar": "oscar",
                        "os\u03f2ar": "osoar"}
        shapes = dict(await conn.fetch("SELECT name, shape_key FROM players"))
        assert shapes == {"ada": "ada", "ADA": None, "bob": "bob", "oscar": "oscar",
                          "os\u03f2ar": "os\u03c3ar"}
        # (the lunate sigma looks like c only as drawn: migration 0022's key)
        glyphs = dict(await conn.fetch("SELECT name, glyph_key FROM players"))
        assert glyphs == {"ada": "ada", "ADA": None, "bob": "bob", "oscar": "oscar",
                          "os\u03f2ar": None}
    finally:
        await conn.close()
    async with instance(db_url) as client:
        younger = await get(client, "/v1/players/me",
                            headers={"Authorization": "Bearer token-of-ADA"})
        assert younger["name"] == "ADA"
        for name in ("\u0430da", "BOB"):
            status, problem = await create(client, name)
            assert status == 409 and str(problem["type"]).endswith("/name-taken"), problem
