/*
 * strategy.c - a simple heuristic for ONO 99. Change it freely: the protocol
 * code only needs strategy_choose to return an index into act->legal.
 *
 * Every legal action gets a score; the highest wins (the first on a tie):
 *   1. "quad" (2022: discard four ONO 99) - they are dead cards otherwise.
 *   2. an ONO 99 offered as a play (1980 "ONO on tens") - also a dead card.
 *   3. when owing two cards at a high total: answer with Hold, Reverse or
 *      Play 2, passing the obligation on (R7.2, R7.5).
 *   4. number cards 1..10: the highest, pushing the total up for the next
 *      player; but when owing two at a high total, the lowest, to leave room
 *      for the second card.
 *   5. escape cards ("0", "H", "R", "P2"/"DP", "-10"), cheapest first: they
 *      are kept for when nothing else fits. -10 is the most precious.
 *   6. a bust (points format, R9.3): last of all, since busting costs 25
 *      points; it may be offered next to plays (R4.2), but is chosen only
 *      when nothing else is: throw away the card worth most points.
 * Every entry of the legal list is allowed (SPEC §7.2), so "a played number
 * keeps the total <= 98" is already guaranteed by the referee.
 */
#include "strategy.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

/* From this total on, the bot defends (see 3 and 4 above). */
#define HIGH_TOTAL 75

static bool is(const char *card, const char *code)
{
    return strcmp(card, code) == 0;
}

/* A number card "0".."10": its value. ONO 99 is not a number card. */
static bool number_value(const char *card, int *value)
{
    size_t n = strlen(card);
    if (n == 0 || n > 2 || is(card, "99")) {
        return false;
    }
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (card[i] < '0' || card[i] > '9') {
            return false;
        }
        v = v * 10 + (card[i] - '0');
    }
    *value = v;
    return true;
}

/* The card's points at the end of a points round (RULES.md, Hand scoring). */
static int hand_points(const char *card)
{
    int v;
    if (number_value(card, &v)) {
        return v;
    }
    if (is(card, "99")) {
        return 20;
    }
    if (is(card, "R") || is(card, "-10") || is(card, "P2") || is(card, "H") || is(card, "DP")) {
        return 15;
    }
    return 0;
}

/* How much an escape card is worth keeping: the lowest is spent first.
 * Returns 0 if the card is not an escape card. */
static int keep_value(const char *card)
{
    if (is(card, "0")) {
        return 1;
    }
    if (is(card, "H")) {
        return 2;
    }
    if (is(card, "R")) {
        return 3;
    }
    if (is(card, "P2") || is(card, "DP")) {
        return 4;
    }
    if (is(card, "-10")) {
        return 5;
    }
    return 0;
}

/* How good `card` is as an answer to a Play 2 / Double Play (0: it is none). */
static int answer_value(const game_info *g, const act_view *a, const char *card)
{
    if (is(card, "H")) {
        return 3; /* 1980: a Hold does nothing else */
    }
    if (is(card, "R") && a->players_in_game > 2) {
        return 2; /* with two players left a Reverse is just a 0 (R6.4) */
    }
    if (is(card, "P2") && !is(g->edition, "1980")) {
        return 1; /* keep Play 2 if possible: it answers with two players too */
    }
    return 0;
}

static int score(const game_info *g, const act_view *a, const legal_action *act)
{
    bool defending = a->total >= HIGH_TOTAL;
    bool owes_two = a->owes >= 2;
    int v;

    switch (act->kind) {
    case ACTION_QUAD:
        return 1000;
    case ACTION_BUST:
        return 20 + hand_points(act->card); /* below every play (the lowest is 50) */
    case ACTION_UNKNOWN:
        return 10; /* an action kind from a later protocol version */
    case ACTION_PLAY:
        break;
    }
    const char *card = act->card;
    if (is(card, "99")) {
        return 900;
    }
    if (owes_two && defending && answer_value(g, a, card) > 0) {
        return 800 + answer_value(g, a, card);
    }
    if (number_value(card, &v) && v > 0) {
        if (owes_two && defending) {
            return 300 + (20 - v);
        }
        return 300 + v;
    }
    if (keep_value(card) > 0) {
        return 200 - keep_value(card);
    }
    return 50; /* a card code this bot does not know */
}

void strategy_game_start(const game_info *g)
{
    (void)g; /* nothing to remember in this simple bot */
}

size_t strategy_choose(const game_info *g, const act_view *a)
{
    size_t best = 0;
    int best_score = INT_MIN;
    for (size_t i = 0; i < a->n_legal; i++) {
        int s = score(g, a, &a->legal[i]);
        if (s > best_score) {
            best = i;
            best_score = s;
        }
    }
    return best;
}
