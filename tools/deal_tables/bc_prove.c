/* bc_prove.c: an exhaustive search of a Beleaguered Castle position, small and fast.
 *
 *     gcc -O2 -std=gnu99 -pthread -o bc_prove tools/deal_tables/bc_prove.c
 *     bc_prove [--mb MB] [--stack-mb MB] [--states N] [--seconds S] [--evict] [--seed N]
 *              [--mix] [--threads N] [--suitless R] [--quiet] < board.txt
 *     bc_prove --moves < board.txt
 *
 * The position is read from stdin in Freecell Solver's board format, as the engine's
 * Position.board_text() writes it: an optional line "Foundations: H-A C-A D-A S-A", then one
 * line per row (column), buried card first, optionally after ":", cards as "TH" (rank
 * A23456789TJQK, suit SHDC); missing trailing rows are empty.  Every card exactly once.
 *
 * Output, one line, then a second one for a win:
 *
 *     solvable <states> comparisons=<C> maxdepth=<D> seconds=<s>
 *     line: t3-t5 t7-f ...            (engine moves, rows t1..t8, f the foundations)
 *     unsolvable <states> comparisons=<C> maxdepth=<D> seconds=<s>
 *     unknown <states> comparisons=<C> maxdepth=<D> seconds=<s> reason=<memory|states|seconds>
 *     relaxed-solvable <states> ...    (--suitless only: the relaxed game below can be won)
 *
 * <states> is the number of distinct positions stored; the winning line includes every move
 * to the foundations (replayed with autoplay off it wins).  With --moves the program prints
 * instead every legal move of the position (one line, the engine's notation: every empty row
 * separately), then the foundations once RULES.md's automatic moves are played ("H-5 C-4
 * D-5 S-6"), then the foundations once the search's automatic moves are played (below).
 *
 * The rules (RULES.md): only the top card of a row moves, one card per move, to its suit's
 * foundation (next rank), onto the top card of another row exactly one rank higher whatever
 * the suit, or into an empty row.  Won when all 52 cards are on the foundations.
 *
 * The search is a depth-first search with an explicit stack of 8-byte frames (the move that
 * led to the position, how many automatic moves followed it, and how many of its children
 * are still to visit; a move is undone by reversing it) and a visited set of 64-bit fingerprints.
 * A position is marked as seen when it is generated, and its generator visits it later, so
 * each position is expanded once.  The search is exhaustive: "unsolvable" means every
 * position reachable by the moves below was stored and none is won.
 *
 * Visited set: an open-addressing table of buckets of eight 64-bit entries (one cache line),
 * probed bucket after bucket.  A position has two independent 64-bit hashes H1 and H2; the
 * bucket comes from H1 and the entry stored is H2 (0 is written as 1).  A new position is
 * wrongly taken for a stored one only if its H2 equals the entry of a different position
 * met while probing: at most about one chance in 2^64 per comparison with an occupied
 * entry, so the chance that any "seen" was false in a run is at most about C / 2^64, C the
 * comparisons the program reports (it counts them).  (Two distinct positions sharing both
 * hashes: about n^2 / 2^129 for n positions, far smaller.)  A false "seen" could only make
 * a solvable position look unsolvable; a win is always a real line, and the caller replays
 * it through the engine.
 *
 * With --evict the table never fills up (the verdicts stay exact; only the time grows):
 * an entry lives in the bucket its H1 gives or the next one, and when both are full a new
 * position replaces an entry the search is done with.  Entries of positions on the path or
 * waiting on the move stack are pinned; the others carry a class, how many positions their
 * search stored (log base 8); four bits of the entry in all, so the fingerprint keeps 60
 * bits, and the bound above is C / 2^60.  Why the verdict stays exact: every position
 * ever stored is visited (it went on the move stack when stored) and has all its children
 * either stored then or found stored, and whatever was found stored was stored at some
 * time, so the positions visited are closed under the moves: all the reachable ones.  A
 * replaced position met again is stored and searched again, down to the positions still
 * stored, so the entry replaced is the one of the lowest class: the positions above big
 * searches stay.  On deal 2925 (3.1 million positions) a table holding a third of them
 * cost 10 % more work, a thirteenth 4.6 times the work; replacing instead the entries not
 * met again lately, a third had made it 68 times, unfinished.  The pins keep the path free
 * of repeats, so the search ends (but see below).  A window of sixteen pinned entries (a
 * path tens of millions deep with its waiting positions fills much of the table) gives up
 * a pinned one too: a waiting position may then be searched twice, and in principle a path
 * position below itself, so with --evict the search should have --seconds or --states; no
 * verdict changes (the argument above holds whatever is replaced).
 *
 * Hashes, independent of the order of the rows (rows are interchangeable): a row's hash is
 * the sum over its depth i of Z[card][i] (64-bit random numbers, one table per hash),
 * updated by one addition when a card comes or goes; the position's hash is the sum over the
 * rows of a bijective 64-bit mixer of the row's hash.  The foundations are implied by the
 * cards still in the rows, so they need no term.
 *
 * Pruning, each keeping every verdict exact:
 *  - automatic moves: a card of rank r goes to its foundation as soon as all four
 *    foundations hold r - 1 or more (RULES.md's rule).  No card still in play can be built
 *    on it (that takes a card of rank r - 1, and all four are up), so a winning line from
 *    the position before can drop every move of that card: with the card gone, each row is
 *    the same row less that card, its top is unchanged unless the card was the top (and then
 *    nothing could go on it), every empty row stays empty, so every other move stays legal.
 *  - more automatic moves: a card X of rank r that fits its foundation goes up too when all
 *    four foundations hold r - 2 or more.  Only a card Y of rank r - 1 could go on X.  Such
 *    a Y fits its foundation (which holds r - 2 and not Y) whenever it is free, and nothing
 *    can ever go on Y (every card of rank r - 2 is up).  Take a winning line from the
 *    position before; put X up first, drop the line's moves of X, replace each move of a
 *    Y onto X by that Y's move to its foundation and drop that Y's later moves.  At each
 *    step every row is the line's row less some of those cards (X, and the Ys already up;
 *    nothing but a Y ever lay on X, nothing on a Y), so every free card the line moves is
 *    still free, every card it builds on is still on top, every empty row is still empty,
 *    and the foundations of X's and the Ys' suits take the line's other cards as before
 *    (those come after X or the Y in the line).  The new line wins.
 *  - a row's only card never moves into an empty row: the position after it is the one
 *    before, rows permuted.
 *  - with several empty rows a card goes into the first one only: the positions after are
 *    the same, rows permuted.
 *  - a position whose every row runs strictly down in rank towards its top card is won: the
 *    lowest card left is on top of its row (each top is its row's lowest) and every lower
 *    card of its suit is up, so it can go up, and what remains is such a position again.
 *    The search stops there and appends those moves.
 * Rows are interchangeable in the rules, so merging positions that differ only in the
 * order of the rows (the hash above) loses nothing.
 *
 * Move order, to find wins early (the search still tries every move): moves to the
 * foundations, then onto other rows (from short rows first, those that empty a row or
 * uncover a card that can go up first), then into an empty row.
 *
 * Restarts: how soon a depth-first search meets a win depends very much on its move order,
 * with a long tail (deal 4032: 3.5 billion positions in the order above; with --seed 5,
 * 1947; with seeds 1 to 12 and 20 million positions each, 5 of the 12 win within 120000).
 * --seed N (not 0) shuffles the order within each of the three groups: each row's place in
 * the order gets a pseudo-random term that outweighs the ones above, and the rows a card may
 * go onto are taken from a pseudo-random one on; both come from the position's hash and N,
 * so the order is still a function of the position and the search can generate a
 * position's moves again.  --mix, with --seed, breaks the groups too: each move into an
 * empty row goes to a pseudo-random place among the moves onto other rows (moves to the
 * foundations stay first), another family of orders for another round of restarts.  The search is as exhaustive as before, its verdicts as exact;
 * the caller (solve_deals.py --prover-restarts) runs a few seeds with a small
 * --states budget each before one long search.
 *
 * The relaxed game (--suitless R, R from 1 to 12), to prove a deal unsolvable when the real
 * game has too many positions to search: the cards above rank R lose their suits, and such
 * a card of rank r may go up onto any foundation that holds r - 1 (so: when fewer cards of
 * rank r than of rank r - 1 are up).  Cards of rank R or lower keep their suits and their
 * rule.  Every move of the real game is a move of the relaxed one, from the same position
 * with the suits of the high cards forgotten: a row move depends on ranks only, a low card
 * goes up as before, and a high card X of rank r and suit s goes up in the real game when
 * s's foundation holds r - 1, so the rank r - 1 card of s is up and the rank r one is not,
 * and every suit whose rank r card is up has its rank r - 1 card up too: more cards of rank
 * r - 1 than of rank r are up.  So a real win is a relaxed win, and a relaxed game with no
 * win means a deal with none.  A relaxed win proves nothing ("relaxed-solvable", no line).
 * The program plays it with the high cards' suits replaced by spades (so positions that
 * differ only in which high card of a rank lies where are one position: the hashes merge
 * them, and that is where the positions saved come from) and a high card going up onto the
 * first foundation that holds r - 1; the foundations then hold a different assignment of
 * levels to suits than the real game would, but the same number at each level above R,
 * and the rules read only that (low cards go up by their own suit's level, below R, which
 * is exact).  The prunings above hold in the relaxed game: automatic moves are made for low
 * cards only, and the argument is the same (X and the Ys are low cards; putting low cards up
 * sooner never stops a high card from going up, since more foundations then hold R or more);
 * rows are still interchangeable; a position whose rows all run down is won (the lowest
 * card left can go up: all lower ones are).  On deal 2925 (unsolvable, 3,083,339 positions)
 * the relaxed game at R = 8 has 497,287 positions and at R = 6 87,443, and is still
 * unsolvable; at R = 4 it can be won.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>
#include <linux/mman.h>
#include <time.h>

enum { NCOL = 8, MAXH = 64, FOUND = 8, MAXMOVES = 48 };

typedef struct {
    uint8_t c[NCOL][MAXH]; /* rows, buried card first; card = (rank - 1) * 4 + suit */
    uint8_t len[NCOL];
    uint8_t found[4];     /* top rank per suit, S H D C */
    int bad;              /* adjacent pairs of a row not running strictly down */
    uint64_t h1[NCOL], h2[NCOL]; /* the rows' hashes */
    uint64_t m1[NCOL], m2[NCOL]; /* mix1(h1[row]), mix2(h2[row]) */
    uint64_t H1, H2;             /* the position's: sums of the above over the rows */
} Pos;

typedef struct {
    uint8_t from, to; /* to: a row 0..7, or FOUND + suit */
} Move;

static uint64_t Z1[52][MAXH], Z2[52][MAXH];
static const char RANKS[] = "A23456789TJQK";
static const char SUITS[] = "SHDC";

static inline int RANK(int card) { return (card >> 2) + 1; }
static inline int SUIT(int card) { return card & 3; }
static inline int CARD(int rank, int suit) { return (rank - 1) * 4 + suit; }

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t mix1(uint64_t x) { /* murmur3's finalizer: a bijection */
    x ^= 0x2545F4914F6CDD1DULL;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    return x ^ (x >> 33);
}

static inline uint64_t mix2(uint64_t x) { /* splitmix64's finalizer: a bijection */
    x += 0x632BE59BD9B4E019ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static void init_zobrist(void) {
    uint64_t s = 0x5EEDBC0FFEEULL;
    for (int c = 0; c < 52; c++)
        for (int i = 0; i < MAXH; i++) {
            Z1[c][i] = splitmix(&s);
            Z2[c][i] = splitmix(&s);
        }
}

static inline void set_row_hash(Pos *p, int col, uint64_t n1, uint64_t n2) {
    uint64_t a = mix1(n1), b = mix2(n2);
    p->H1 += a - p->m1[col];
    p->H2 += b - p->m2[col];
    p->h1[col] = n1;
    p->h2[col] = n2;
    p->m1[col] = a;
    p->m2[col] = b;
}

static inline int pop_card(Pos *p, int col) {
    int n = --p->len[col];
    int card = p->c[col][n];
    if (n > 0 && RANK(card) >= RANK(p->c[col][n - 1]))
        p->bad--;
    set_row_hash(p, col, p->h1[col] - Z1[card][n], p->h2[col] - Z2[card][n]);
    return card;
}

static inline void push_card(Pos *p, int col, int card) {
    int n = p->len[col];
    if (n > 0 && RANK(card) >= RANK(p->c[col][n - 1]))
        p->bad++;
    p->c[col][n] = (uint8_t)card;
    p->len[col] = (uint8_t)(n + 1);
    set_row_hash(p, col, p->h1[col] + Z1[card][n], p->h2[col] + Z2[card][n]);
}

static void rehash(Pos *p) {
    p->H1 = p->H2 = 0;
    p->bad = 0;
    for (int col = 0; col < NCOL; col++) {
        uint64_t a = 0, b = 0;
        for (int i = 0; i < p->len[col]; i++) {
            a += Z1[p->c[col][i]][i];
            b += Z2[p->c[col][i]][i];
            if (i > 0 && RANK(p->c[col][i]) >= RANK(p->c[col][i - 1]))
                p->bad++;
        }
        p->h1[col] = a;
        p->h2[col] = b;
        p->m1[col] = mix1(a);
        p->m2[col] = mix2(b);
        p->H1 += p->m1[col];
        p->H2 += p->m2[col];
    }
}

static int suitless_above = 13; /* --suitless R: the relaxed game (see the top) */

static inline void apply(Pos *p, Move m) {
    int card = pop_card(p, m.from);
    if (m.to >= FOUND)
        p->found[m.to - FOUND]++;
    else
        push_card(p, m.to, card);
}

static inline void unapply(Pos *p, Move m) {
    int card;
    if (m.to >= FOUND) {
        int suit = m.to - FOUND, r = p->found[suit];
        card = CARD(r, r > suitless_above ? 0 : suit);
        p->found[suit]--;
    } else {
        card = pop_card(p, m.to);
    }
    push_card(p, m.from, card);
}

static inline int min_found(const Pos *p) {
    int m = p->found[0];
    for (int s = 1; s < 4; s++)
        if (p->found[s] < m)
            m = p->found[s];
    return m;
}

/* A card of rank r that fits its foundation goes up by itself when every foundation holds
 * r - auto_slack or more: 1 is RULES.md's rule (the engine's), 2 the search's (see the
 * comment at the top). */
static int auto_slack = 2;

/* Play the automatic moves (the engine's order: the leftmost row first, again after each);
 * each is recorded as row | suit << 3.  Returns how many. */
static int autos(Pos *p, uint8_t *rec) {
    int n = 0;
    int low = min_found(p);
    for (int s = 0; s < NCOL; s++) {
        if (!p->len[s])
            continue;
        int card = p->c[s][p->len[s] - 1], r = RANK(card), suit = SUIT(card);
        if (p->found[suit] == r - 1 && r - auto_slack <= low && r <= suitless_above) {
            pop_card(p, s);
            p->found[suit]++;
            rec[n++] = (uint8_t)(s | suit << 3);
            low = min_found(p);
            s = -1;
        }
    }
    return n;
}

/* Whether a card goes up by itself (low: the lowest foundation). */
static inline int auto_fits(const Pos *p, int card, int low) {
    int r = RANK(card);
    return p->found[SUIT(card)] == r - 1 && r - auto_slack <= low && r <= suitless_above;
}

/* The automatic moves after move m from a position where none was left: only the card m
 * uncovers can go up, unless m raised a foundation. */
static inline int autos_after(Pos *p, Move m, uint8_t *rec) {
    int n = p->len[m.from];
    if (m.to < FOUND && (!n || !auto_fits(p, p->c[m.from][n - 1], min_found(p))))
        return 0;
    return autos(p, rec);
}

static void unautos(Pos *p, const uint8_t *rec, int n) {
    while (n-- > 0) {
        int s = rec[n] & 7, suit = rec[n] >> 3;
        int card = CARD(p->found[suit], suit);
        p->found[suit]--;
        push_card(p, s, card);
    }
}

/* The moves of a position.  raw: every legal move (the engine's list: every empty row
 * separately); else the search's moves (pruned as above), in the search's order: moves to
 * the foundations, onto other rows, into an empty row, each group by rows in the order of
 * what taking their card uncovers (an empty row, then a card that can go up; a card resting
 * on one a rank higher last; short rows first).  The order depends on the position only, so
 * the search can generate a position's moves again. */
static uint64_t base_seed; /* --seed: 0, the order above; else a shuffled one (see the top) */
static __thread uint64_t seed; /* this search's: base_seed + its thread's number */
static int mix_groups; /* --mix: with --seed, moves into an empty row among the others */
enum { SHUFFLE = 1000 }; /* the pseudo-random term's range, +-: more than the keys' */

static int gen(const Pos *p, Move *mv, int raw) {
    int k = 0, empty = -1, ns = 0;
    uint64_t rnd = seed && !raw ? mix2(p->H1 ^ seed * 0x9E3779B97F4A7C15ULL) : 0;
    unsigned tops[15] = {0}; /* the rows whose top card has that rank */
    int order[NCOL], key[NCOL];
    for (int t = 0; t < NCOL; t++) {
        int n = p->len[t];
        if (!n) {
            if (empty < 0)
                empty = t;
            continue;
        }
        int card = p->c[t][n - 1];
        tops[RANK(card)] |= 1u << t;
        int kt = 0;
        if (!raw) {
            if (n == 1)
                kt = 300;
            else {
                int under = p->c[t][n - 2];
                if (p->found[SUIT(under)] == RANK(under) - 1)
                    kt += 200;
                if (RANK(under) == RANK(card) + 1)
                    kt -= 500;
            }
            kt -= 10 * n;
            if (rnd)
                kt += (int)(mix1(rnd + (uint64_t)t) >> 40 & 0xFFFFFF) % (2 * SHUFFLE + 1) - SHUFFLE;
        }
        int j = ns++;
        while (j > 0 && key[j - 1] < kt) {
            key[j] = key[j - 1];
            order[j] = order[j - 1];
            j--;
        }
        key[j] = kt;
        order[j] = t;
    }
    for (int j = 0; j < ns; j++) {
        int s = order[j], card = p->c[s][p->len[s] - 1], r = RANK(card);
        if (r > suitless_above) {
            /* the relaxed game: onto any foundation that holds r - 1 (the first) */
            for (int f = 0; f < 4; f++)
                if (p->found[f] == r - 1) {
                    mv[k].from = (uint8_t)s;
                    mv[k++].to = (uint8_t)(FOUND + f);
                    break;
                }
        } else if (p->found[SUIT(card)] == r - 1) {
            mv[k].from = (uint8_t)s;
            mv[k++].to = (uint8_t)(FOUND + SUIT(card));
        }
    }
    for (int j = 0; j < ns; j++) {
        int s = order[j], card = p->c[s][p->len[s] - 1];
        unsigned targets = tops[RANK(card) + 1] & ~(1u << s);
        /* rows in turn from row `rot` on (0 without --seed) */
        int rot = (int)(rnd >> (8 * s) & 7);
        targets = (targets >> rot | targets << (NCOL - rot)) & 0xFF;
        while (targets) {
            mv[k].from = (uint8_t)s;
            mv[k++].to = (uint8_t)((__builtin_ctz(targets) + rot) & 7);
            targets &= targets - 1;
        }
    }
    int k0 = k;
    if (empty >= 0)
        for (int j = 0; j < ns; j++) {
            int s = order[j];
            if (raw) {
                for (int t = 0; t < NCOL; t++)
                    if (!p->len[t]) {
                        mv[k].from = (uint8_t)s;
                        mv[k++].to = (uint8_t)t;
                    }
            } else if (p->len[s] > 1) {
                mv[k].from = (uint8_t)s;
                mv[k++].to = (uint8_t)empty;
            }
        }
    if (rnd && mix_groups && k > k0) {
        /* --mix: each move into the empty row goes to a pseudo-random place among the
         * moves onto rows (and the ones into the empty row placed before it) */
        int nf = 0;
        while (nf < k0 && mv[nf].to >= FOUND)
            nf++;
        for (int i = k0; i < k; i++) {
            Move m = mv[i];
            int at = nf + (int)((mix1(rnd ^ (uint64_t)(i * 7919)) >> 33) % (uint64_t)(i - nf + 1));
            memmove(mv + at + 1, mv + at, (size_t)(i - at) * sizeof *mv);
            mv[at] = m;
        }
    }
    return k;
}

/* ------------------------------------------------------------------ the visited set */

static uint64_t *table;
static uint64_t nbuckets, capacity;
/* each search's counts (a thread each with --threads): positions it stored, comparisons */
static __thread uint64_t nstates, ncompare;
static const char *pages; /* the table's pages: 1G where reserved, else 4K (maybe 2M) */

static inline uint64_t bucket_of(uint64_t h1) {
    return (uint64_t)(((unsigned __int128)h1 * nbuckets) >> 64);
}

/* 1 if the position was not stored (it is now), 0 if it was. */
static inline int insert(uint64_t h1, uint64_t h2) {
    uint64_t fp = h2 ? h2 : 1;
    uint64_t b = bucket_of(h1);
    for (;;) {
        uint64_t *e = table + b * 8;
        for (int j = 0; j < 8; j++) {
            uint64_t v = __atomic_load_n(&e[j], __ATOMIC_RELAXED);
            if (!v) {
                if (__atomic_compare_exchange_n(&e[j], &v, fp, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
                    nstates++;
                    return 1;
                }
                /* another search took the entry: v is what it wrote */
            }
            ncompare++;
            if (v == fp)
                return 0;
        }
        if (++b == nbuckets)
            b = 0;
    }
}

/* With --evict the table never fills up: an entry lives in its bucket or the next one, and
 * when both are full a new position takes the place of an entry that is not pinned (a
 * position on the path or waiting on the move stack is pinned: bit 0), the one whose search
 * stored the fewest positions (bits 1-3: a class, log base 8 of that count, written when
 * the search is done with the position).  A forgotten position met again costs a search
 * down to the positions still stored, so the ones above big searches are kept.  The other
 * 60 bits are the fingerprint. */
static int evict_mode;
static __thread uint64_t nevicted, npinned_evicted;
enum { PIN = 1, CLASS_SHIFT = 1, CLASS_MASK = 7 };
#define FP_MASK (~(uint64_t)15)

static inline uint64_t fingerprint60(uint64_t h2) {
    uint64_t fp = h2 & FP_MASK;
    return fp ? fp : 16;
}

/* insert() for --evict: the new entry is pinned. */
static inline int insert_evicting(uint64_t h1, uint64_t h2) {
    uint64_t fp = fingerprint60(h2);
    uint64_t b = bucket_of(h1), b2 = b + 1 == nbuckets ? 0 : b + 1;
    uint64_t *w[2] = {table + b * 8, table + b2 * 8};
again:
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 8; j++) {
            uint64_t e = __atomic_load_n(&w[k][j], __ATOMIC_RELAXED);
            if (!e) {
                if (__atomic_compare_exchange_n(&w[k][j], &e, fp | PIN, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
                    nstates++;
                    return 1;
                }
            }
            ncompare++;
            if ((e & FP_MASK) == fp)
                return 0;
        }
    int start = (int)(h2 >> 60), best = -1, best_class = CLASS_MASK + 1;
    uint64_t seen[16];
    for (int i = 0; i < 16; i++) {
        int j = (start + i) & 15;
        uint64_t e = seen[j] = __atomic_load_n(&w[j >> 3][j & 7], __ATOMIC_RELAXED);
        if (e & PIN)
            continue;
        int c = (int)(e >> CLASS_SHIFT & CLASS_MASK);
        if (c < best_class) {
            best_class = c;
            best = j;
            if (!c)
                break;
        }
    }
    if (best < 0) { /* sixteen pinned entries (a deep path, many positions waiting) */
        best = start;
        npinned_evicted++;
    }
    /* another search may have changed the entry meanwhile: then look again */
    if (!__atomic_compare_exchange_n(&w[best >> 3][best & 7], &seen[best], fp | PIN, 0,
                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        goto again;
    nstates++;
    nevicted++;
    return 1;
}

/* The search is done with a position (every child visited; its search stored `work`
 * positions): it may be replaced. */
static inline void unpin(uint64_t h1, uint64_t h2, uint64_t work) {
    uint64_t fp = fingerprint60(h2);
    uint64_t b = bucket_of(h1), b2 = b + 1 == nbuckets ? 0 : b + 1;
    uint64_t *w[2] = {table + b * 8, table + b2 * 8};
    int c = 0;
    while (c < CLASS_MASK && work >= 8) {
        work >>= 3;
        c++;
    }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 8; j++) {
            uint64_t e = __atomic_load_n(&w[k][j], __ATOMIC_RELAXED);
            if ((e & FP_MASK) == fp) {
                __atomic_compare_exchange_n(&w[k][j], &e, fp | (uint64_t)c << CLASS_SHIFT, 0,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
                return;
            }
        }
}

static inline int visit_insert(uint64_t h1, uint64_t h2) {
    return evict_mode ? insert_evicting(h1, h2) : insert(h1, h2);
}

/* ------------------------------------------------------------------ input and output */

static int parse_card(const char *t) {
    int r = -1, s = -1;
    const char *p = strchr(RANKS, t[0]);
    if (t[0] && p) {
        r = (int)(p - RANKS);
        t++;
    } else if (t[0] == '1' && t[1] == '0') {
        r = 9;
        t += 2;
    }
    if (r < 0 || !t[0] || t[1] || !strchr(SUITS, t[0]))
        return -1;
    s = (int)(strchr(SUITS, t[0]) - SUITS);
    return CARD(r + 1, s);
}

static void fail(const char *why, const char *what) {
    fprintf(stderr, "bc_prove: %s%s%s\n", why, what ? ": " : "", what ? what : "");
    exit(2);
}

static void read_position(Pos *p) {
    char line[4096];
    int rows = 0, seen[52] = {0};
    memset(p, 0, sizeof *p);
    while (fgets(line, sizeof line, stdin)) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '\n' || *s == '#')
            continue;
        if (!strncmp(s, "Foundations:", 12)) {
            for (char *tok = strtok(s + 12, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
                const char *suit = strchr(SUITS, tok[0]);
                if (!tok[0] || !suit || tok[1] != '-')
                    fail("bad foundation", tok);
                const char *rank = strchr(RANKS, tok[2]);
                int r = tok[2] == '0' ? 0 : rank && tok[2] ? (int)(rank - RANKS) + 1 : -1;
                if (r < 0 || tok[3])
                    fail("bad foundation", tok);
                p->found[suit - SUITS] = (uint8_t)r;
            }
            continue;
        }
        if (rows == NCOL)
            fail("more than 8 rows", NULL);
        if (*s == ':')
            s++;
        for (char *tok = strtok(s, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
            int card = parse_card(tok);
            if (card < 0)
                fail("bad card", tok);
            if (p->len[rows] >= 48)
                fail("a row of more than 48 cards", NULL);
            seen[card]++;
            p->c[rows][p->len[rows]++] = (uint8_t)card;
        }
        rows++;
    }
    for (int s = 0; s < 4; s++)
        for (int r = 1; r <= p->found[s]; r++)
            seen[CARD(r, s)]++;
    for (int c = 0; c < 52; c++)
        if (seen[c] != 1) {
            char name[3] = {RANKS[RANK(c) - 1], SUITS[SUIT(c)], 0};
            fail(seen[c] ? "a card twice" : "a card missing", name);
        }
    rehash(p);
}

static void print_move(int from, int to, int *first) {
    if (!*first)
        putchar(' ');
    *first = 0;
    if (to >= FOUND)
        printf("t%d-f", from + 1);
    else
        printf("t%d-t%d", from + 1, to + 1);
}

static void print_autos(const uint8_t *rec, int n, int *first) {
    for (int i = 0; i < n; i++)
        print_move(rec[i] & 7, FOUND + (rec[i] >> 3), first);
}

/* Put every card up from a won position (rows running down towards their tops). */
static void print_finish(Pos *p, int *first) {
    for (;;) {
        int moved = 0;
        for (int s = 0; s < NCOL; s++) {
            if (!p->len[s])
                continue;
            int card = p->c[s][p->len[s] - 1];
            if (p->found[SUIT(card)] == RANK(card) - 1) {
                pop_card(p, s);
                p->found[SUIT(card)]++;
                print_move(s, FOUND + SUIT(card), first);
                moved = 1;
                break;
            }
        }
        if (!moved)
            break;
    }
}

static void list_moves(Pos *p) {
    Move mv[MAXMOVES + 8 * NCOL];
    int k = gen(p, mv, 1), first = 1;
    for (int i = 0; i < k; i++)
        print_move(mv[i].from, mv[i].to, &first);
    putchar('\n');
    static const char FOUNDATION_ORDER[] = "HCDS";
    for (auto_slack = 1; auto_slack <= 2; auto_slack++) {
        uint8_t rec[64];
        Pos q = *p;
        autos(&q, rec);
        for (int i = 0; i < 4; i++) {
            int s = (int)(strchr(SUITS, FOUNDATION_ORDER[i]) - SUITS);
            printf("%s%c-%c", i ? " " : "", FOUNDATION_ORDER[i],
                   q.found[s] ? RANKS[q.found[s] - 1] : '0');
        }
        putchar('\n');
    }
}

/* ------------------------------------------------------------------ the search */

/* The path: one 8-byte frame a position.  Its low half holds the move that led there (from:
 * 3 bits, to: 4 bits), how many automatic moves followed it (6 bits) and how many of its
 * children are still to visit (6 bits); those children's moves are on the move stack, above the ones of
 * the frames below (2 bytes a move, the next one to visit on top). */
#define FRAME(from, to, na) ((uint32_t)(from) | (uint32_t)(to) << 3 | (uint32_t)(na) << 7)
#define F_FROM(f) ((int)((f) & 7))
#define F_TO(f) ((int)((f) >> 3 & 15))
#define F_NAUTO(f) ((int)((f) >> 7 & 63))
#define F_LEFT(f) ((int)((f) >> 13))
#define LEFT_ONE (1u << 13)

/* The high half: the low 32 bits of the count of stored positions when the frame was pushed
 * (--evict classes positions by the count their search stored). */
static __thread uint64_t *frames;
#define STAMP(x) ((uint32_t)((x) >> 32))
static __thread Move *mstack;
static __thread uint64_t frame_cap, mcap, mtop, maxdepth;
static uint64_t stack_max; /* a search's (each thread's) */
static __thread uint8_t astack[64 + 64]; /* automatic moves along the path: at most 48 in all */
static uint8_t root_autos[64]; /* the root's automatic moves */
static int root_nauto;
/* a search's start other than the root: the random walk from the root to it */
enum { MAXWALK = 256 };
static __thread Move walk[MAXWALK];
static __thread uint8_t walk_na[MAXWALK];
static __thread int nwalk;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void print_line(Pos *p, uint64_t depth, Move last, const uint8_t *rec, int na) {
    int first = 1, at = 0;
    printf("line: ");
    print_autos(astack, root_nauto, &first);
    at = root_nauto;
    for (int i = 0; i < nwalk; i++) {
        print_move(walk[i].from, walk[i].to, &first);
        print_autos(astack + at, walk_na[i], &first);
        at += walk_na[i];
    }
    for (uint64_t d = 1; d <= depth; d++) {
        uint32_t f = (uint32_t)frames[d];
        print_move(F_FROM(f), F_TO(f), &first);
        print_autos(astack + at, F_NAUTO(f), &first);
        at += F_NAUTO(f);
    }
    if (last.to != 255) {
        print_move(last.from, last.to, &first);
        print_autos(rec, na, &first);
    }
    print_finish(p, &first);
    putchar('\n');
}

/* Room for the stacks: 0 when the budget is spent. */
static int grow(void **a, uint64_t *cap, uint64_t need, size_t size, uint64_t other) {
    if (need <= *cap)
        return 1;
    uint64_t cap2 = *cap * 2 > need ? *cap * 2 : need;
    if ((cap2 * size + other) > stack_max) {
        cap2 = need + need / 8;
        if (cap2 * size + other > stack_max)
            return 0;
    }
    void *b = realloc(*a, cap2 * size);
    if (!b)
        fail("out of memory", NULL);
    *a = b;
    *cap = cap2;
    return 1;
}

/* Generate the children of p (whose parent's hashes are ph1, ph2).  If one is won, return
 * -1 with p left in that position and the move, its automatic moves in rec and their number
 * in *na; else store the children not seen before, push their moves on the move stack (the
 * first to visit on top) and return how many. */
static int expand(Pos *p, uint64_t ph1, uint64_t ph2, Move *last, uint8_t *rec, int *na) {
    Move mv[MAXMOVES];
    uint64_t h1[MAXMOVES], h2[MAXMOVES];
    int k = gen(p, mv, 0), low = min_found(p);
    for (int i = 0; i < k; i++) {
        int s = mv[i].from, t = mv[i].to, n = p->len[s], card = p->c[s][n - 1];
        int under = n > 1 ? p->c[s][n - 2] : -1;
        if (t < FOUND && (under < 0 || !auto_fits(p, under, low))) {
            /* no automatic move follows: the child's hashes without playing the move */
            if (p->bad - (under >= 0 && RANK(card) >= RANK(under)) == 0) {
                apply(p, mv[i]);
                *last = mv[i];
                *na = 0;
                return -1;
            }
            int m = p->len[t];
            h1[i] = p->H1 - p->m1[s] + mix1(p->h1[s] - Z1[card][n - 1]) - p->m1[t] +
                    mix1(p->h1[t] + Z1[card][m]);
            h2[i] = p->H2 - p->m2[s] + mix2(p->h2[s] - Z2[card][n - 1]) - p->m2[t] +
                    mix2(p->h2[t] + Z2[card][m]);
        } else {
            apply(p, mv[i]);
            int a = autos(p, rec);
            if (p->bad == 0) {
                *last = mv[i];
                *na = a;
                return -1;
            }
            h1[i] = p->H1;
            h2[i] = p->H2;
            unautos(p, rec, a);
            unapply(p, mv[i]);
        }
        __builtin_prefetch(table + bucket_of(h1[i]) * 8, 1, 1);
    }
    int fresh = 0;
    for (int i = k - 1; i >= 0; i--)
        /* the move back to the parent gives the parent: stored, no need to look */
        if (!(h1[i] == ph1 && h2[i] == ph2) && visit_insert(h1[i], h2[i])) {
            mstack[mtop++] = mv[i];
            fresh++;
        }
    return fresh;
}

/* ------------------------------------------------------------------ searches in threads
 *
 * --threads N runs N searches of one position in one table (N cores, one table of all the
 * memory: a table that holds more of the positions forgets fewer of them).  Each stores a
 * position when it generates it, as above; a compare-and-swap in the table makes exactly one
 * search store it, and that search visits it.  The first search starts at the root, each
 * other at the end of a random walk from the root (the search's moves, in its own order,
 * --seed + its number) that it stores; a search that is done walks again for a start not
 * stored yet, while any search is under way.  The searches are exhaustive by the argument
 * at the top: every position stored is visited by the search that stored it, which stores
 * or finds stored each of its children, so the positions stored, the root among them, are
 * closed under the moves.  The verdict waits for every search to be done; the first win
 * ends them all (its line starts with the walk).  The figures of a win are the sum of the
 * searches' last published counts (every 4096 positions); the others are exact. */
enum { MAXT = 16 };
typedef struct {
    uint64_t states, compare, maxdepth, evicted, pinned;
    char pad[64 - 5 * sizeof(uint64_t)];
} Counts;
static Counts pub[MAXT];
static __thread int me; /* the search's number */
static int nthreads = 1;
static double t0, seconds_budget;
static unsigned long long max_states;
static int quiet;
static int stop_reason; /* 0, or why the searches stopped: */
static const char *const REASONS[] = {NULL, "seconds", "states", "memory"};
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static Pos root; /* after its automatic moves */
static int running = 1; /* searches under way: the root's, then those from walks */

static void publish(void) {
    Counts c = {nstates, ncompare, maxdepth, nevicted, npinned_evicted, {0}};
    pub[me] = c;
}

static Counts totals(void) {
    Counts t = {0};
    for (int i = 0; i < nthreads; i++) {
        t.states += pub[i].states;
        t.compare += pub[i].compare;
        t.evicted += pub[i].evicted;
        t.pinned += pub[i].pinned;
        if (pub[i].maxdepth > t.maxdepth)
            t.maxdepth = pub[i].maxdepth;
    }
    return t;
}

static void report(const char *verdict, const char *reason) {
    Counts t = totals();
    printf("%s %llu comparisons=%llu maxdepth=%llu seconds=%.2f", verdict,
           (unsigned long long)t.states, (unsigned long long)t.compare,
           (unsigned long long)t.maxdepth, now() - t0);
    if (strcmp(pages, "4K"))
        printf(" pages=%s", pages);
    if (evict_mode)
        printf(" bits=60 evicted=%llu pinned_evicted=%llu", (unsigned long long)t.evicted,
               (unsigned long long)t.pinned);
    if (nthreads > 1) {
        printf(" threads=%d per_thread=", nthreads);
        for (int i = 0; i < nthreads; i++)
            printf("%s%llu", i ? "," : "", (unsigned long long)pub[i].states);
    }
    if (reason)
        printf(" reason=%s", reason);
    putchar('\n');
}

static void stop(int why) {
    int none = 0;
    __atomic_compare_exchange_n(&stop_reason, &none, why, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void won(Pos *p, uint64_t depth, Move last, const uint8_t *rec, int na) {
    publish();
    pthread_mutex_lock(&out_lock);
    if (suitless_above < 13) {
        report("relaxed-solvable", NULL);
        fflush(stdout);
        _exit(0);
    }
    report("solvable", NULL);
    print_line(p, depth, last, rec, na);
    fflush(stdout);
    _exit(0);
}

/* A start for a search other than the root's: the end of a random walk from the root (the
 * search's moves, each with its automatic moves) that this search stores, not stored
 * before.  0 if none was found in a round of walks. */
static __thread uint64_t walk_rng;
enum { WALKS = 1000 };

static int walk_start(Pos *p, int *at) {
    for (int t = 0; t < WALKS; t++) {
        *p = root;
        *at = root_nauto;
        nwalk = 0;
        int len = 8 + (int)(splitmix(&walk_rng) % (MAXWALK - 8));
        for (int i = 0; i < len; i++) {
            Move mv[MAXMOVES];
            int k = gen(p, mv, 0);
            if (!k)
                break;
            Move m = mv[splitmix(&walk_rng) % (uint64_t)k];
            apply(p, m);
            int na = autos(p, astack + *at);
            *at += na;
            walk[nwalk] = m;
            walk_na[nwalk++] = (uint8_t)na;
            if (p->bad == 0)
                return -1;
        }
        if (visit_insert(p->H1, p->H2))
            return 1;
    }
    return 0;
}

static void *search(void *arg) {
    me = (int)(intptr_t)arg;
    seed = base_seed + (uint64_t)me;
    walk_rng = 0x5EED0000ULL + (uint64_t)me * 0x9E3779B97F4A7C15ULL + base_seed;
    memcpy(astack, root_autos, sizeof root_autos);
    frame_cap = 1 << 12;
    mcap = 1 << 14;
    frames = malloc(frame_cap * sizeof *frames);
    mstack = malloc(mcap * sizeof *mstack);
    if (!frames || !mstack)
        fail("out of memory", NULL);
    Move last = {0, 255};
    uint8_t rec[64];
    int na = 0;
    uint64_t steps = 0;
    for (int start = 0; !__atomic_load_n(&stop_reason, __ATOMIC_RELAXED); start++) {
        Pos p = root;
        int at = root_nauto;
        nwalk = 0;
        if (start || me) {
            /* more searches than one: the others start at the ends of random walks, and each
             * search that is done looks for another start so, while any search runs */
            int found;
            while (!(found = walk_start(&p, &at)) && __atomic_load_n(&running, __ATOMIC_RELAXED) &&
                   !__atomic_load_n(&stop_reason, __ATOMIC_RELAXED))
                ;
            if (found < 0)
                won(&p, 0, last, rec, 0);
            if (!found)
                break;
            __atomic_fetch_add(&running, 1, __ATOMIC_RELAXED);
        }
        uint64_t depth = 0;
        int fresh = p.bad == 0 ? -1 : expand(&p, 0, 0, &last, rec, &na);
        if (fresh < 0)
            won(&p, 0, last, rec, na);
        frames[0] = (uint64_t)fresh * LEFT_ONE;
        double next_note = 10;
        while (!__atomic_load_n(&stop_reason, __ATOMIC_RELAXED)) {
            uint32_t f = (uint32_t)frames[depth];
            if (!F_LEFT(f)) {
                if (!depth)
                    break;
                if (evict_mode)
                    unpin(p.H1, p.H2, (uint32_t)((uint32_t)nstates - STAMP(frames[depth])));
                na = F_NAUTO(f);
                at -= na;
                unautos(&p, astack + at, na);
                Move m = {(uint8_t)F_FROM(f), (uint8_t)F_TO(f)};
                unapply(&p, m);
                depth--;
                continue;
            }
            frames[depth] -= LEFT_ONE;
            Move m = mstack[--mtop];
            uint64_t ph1 = p.H1, ph2 = p.H2;
            apply(&p, m);
            na = autos_after(&p, m, astack + at);
            at += na;
            if (!grow((void **)&frames, &frame_cap, depth + 2, sizeof *frames, mcap * sizeof *mstack) ||
                !grow((void **)&mstack, &mcap, mtop + MAXMOVES, sizeof *mstack,
                      frame_cap * sizeof *frames)) {
                stop(3);
                break;
            }
            depth++;
            if (depth > maxdepth)
                maxdepth = depth;
            frames[depth] = FRAME(m.from, m.to, na) | (uint64_t)(uint32_t)nstates << 32;
            fresh = expand(&p, ph1, ph2, &last, rec, &na);
            if (fresh < 0)
                won(&p, depth, last, rec, na);
            frames[depth] |= (uint64_t)fresh * LEFT_ONE;
            if (nthreads == 1) {
                if ((!evict_mode && nstates >= capacity) || (max_states && nstates >= max_states)) {
                    stop(max_states && nstates >= max_states ? 2 : 3);
                    break;
                }
            } else if ((steps & 0xFFF) == 0) {
                publish();
                uint64_t all = totals().states;
                if ((!evict_mode && all >= capacity) || (max_states && all >= max_states)) {
                    stop(max_states && all >= max_states ? 2 : 3);
                    break;
                }
            }
            if ((++steps & 0xFFFF) == 0) {
                double t = now() - t0;
                if (seconds_budget > 0 && t >= seconds_budget) {
                    stop(1);
                    break;
                }
                if (!quiet && me == 0 && t >= next_note) {
                    uint64_t all = nthreads == 1 ? nstates : totals().states;
                    fprintf(stderr, "bc_prove: %llu states, %.0f a second, depth %llu\n",
                            (unsigned long long)all, all / t, (unsigned long long)depth);
                    next_note = t * 1.5;
                }
            }
        }
        __atomic_fetch_sub(&running, 1, __ATOMIC_RELAXED);
        if (nthreads == 1)
            break;
    }
    publish();
    return NULL;
}

int main(int argc, char **argv) {
    double mb = 1024, stack_mb = 0;
    int moves_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc)
            mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--stack-mb") && i + 1 < argc)
            stack_mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--states") && i + 1 < argc)
            max_states = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds_budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--moves"))
            moves_only = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--evict"))
            evict_mode = 1;
        else if (!strcmp(argv[i], "--mix"))
            mix_groups = 1;
        else if (!strcmp(argv[i], "--suitless") && i + 1 < argc) {
            suitless_above = atoi(argv[++i]);
            if (suitless_above < 1 || suitless_above > 12)
                fail("--suitless takes 1 to 12", NULL);
        }
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            base_seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
            if (nthreads < 1 || nthreads > MAXT)
                fail("--threads takes 1 to 16", NULL);
        } else
            fail("usage: bc_prove [--mb MB] [--stack-mb MB] [--states N] [--seconds S] [--evict] [--seed N] "
                 "[--mix] [--threads N] [--suitless R] [--quiet] [--moves] < board", NULL);
    }
    init_zobrist();
    Pos p;
    read_position(&p);
    if (suitless_above < 13) {
        for (int c = 0; c < NCOL; c++)
            for (int i = 0; i < p.len[c]; i++)
                if (RANK(p.c[c][i]) > suitless_above)
                    p.c[c][i] = (uint8_t)CARD(RANK(p.c[c][i]), 0);
        rehash(&p);
    }
    if (moves_only) {
        list_moves(&p);
        return 0;
    }
    t0 = now();
    /* the budget: 7/8 for the table (stopped at 90 % full); the stacks take what they use,
     * up to a quarter of it (a search whose path runs a hundred million positions deep
     * needs more than the eighth left), or up to --stack-mb (paths 130 million deep and
     * more, 8 bytes a position and 2 a waiting move, outgrow a quarter of 8.5 GB); with
     * --threads, each search's stacks a share of that */
    uint64_t bytes = (uint64_t)(mb * 1048576.0);
    nbuckets = bytes / 8 * 7 / 64;
    if (nbuckets < 16)
        nbuckets = 16;
    capacity = nbuckets * 8 / 10 * 9;
    stack_max = (stack_mb > 0 ? (uint64_t)(stack_mb * 1048576.0) : bytes / 4) / (uint64_t)nthreads;
    if (stack_max < (1 << 16))
        stack_max = 1 << 16;
    /* 1 GB pages where the machine has them reserved (the table then takes whole
     * gigabytes, rounded down): a probe of a table of gigabytes costs a TLB miss, and a
     * page walk through 2 MB pages costs more (7 GB, one process: 1.6 to 1.8 times the
     * speed); else transparent huge pages where the kernel gives them */
    table = MAP_FAILED;
    pages = "4K";
#if defined(MAP_HUGETLB) && defined(MAP_HUGE_SHIFT)
    const uint64_t gb = (uint64_t)1 << 30;
    if (nbuckets * 64 >= gb) {
        table = mmap(NULL, nbuckets * 64 / gb * gb, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (30 << MAP_HUGE_SHIFT), -1, 0);
        if (table != MAP_FAILED) {
            nbuckets = nbuckets * 64 / gb * gb / 64;
            capacity = nbuckets * 8 / 10 * 9;
            pages = "1G";
        }
    }
#endif
    if (table == MAP_FAILED) {
        table = mmap(NULL, nbuckets * 64, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (table == MAP_FAILED)
            fail("cannot map the table", NULL);
#ifdef MADV_HUGEPAGE
        madvise(table, nbuckets * 64, MADV_HUGEPAGE);
#endif
    }
    root_nauto = autos(&p, root_autos);
    root = p;
    me = 0;
    visit_insert(p.H1, p.H2);
    pthread_t threads[MAXT];
    for (int i = 1; i < nthreads; i++)
        if (pthread_create(&threads[i], NULL, search, (void *)(intptr_t)i))
            fail("cannot start a thread", NULL);
    search((void *)0);
    for (int i = 1; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    report(stop_reason ? "unknown" : "unsolvable", REASONS[stop_reason]);
    return 0;
}
