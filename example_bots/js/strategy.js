// The bot's brain: choose(act, game) picks one of the legal actions of an `act`.
//
// This is the file to edit. It knows nothing about frames or msgpack: it gets the
// act as a plain object (SPEC.md §5.3) and returns an index into act.legal.
//
//   act.request_id        handled by bot.js, ignore it
//   act.observation       what your seat sees (SPEC §7.3): hand, total, direction,
//                         owes (1, or 2 after a Play 2 / Double Play), hand_sizes,
//                         in_game, in_round, discard, scores, tokens, round ...
//   act.events            public events since your previous act (SPEC §7.4)
//   act.clock.decision_ms time allowed for this decision (SPEC §8.3)
//   act.legal             the legal actions (SPEC §7.2), never empty:
//                           {kind: "play", card: "7"}   play that card
//                           {kind: "quad"}              discard four ONO 99 (2022)
//                           {kind: "bust", card: "10"}  forced busting play (points format)
//
// `game` is the game_start message of the current game (SPEC §5.2): seat, players,
// names, edition ("2022" or "1980"), format, options, clock. It may be null.
//
// The heuristic below:
//   1. Always take "quad" (four dead ONO 99 out of the hand) and, in 1980 with
//      "ONO on tens", play an ONO 99 whenever allowed: they are dead cards otherwise.
//   2. Forced to bust (points format): bust with the card worth the most points,
//      so that the hand left to score at the end of the round is cheap.
//   3. Owing two cards at a high total: pass the obligation on (Reverse, Play 2,
//      Hold) if we can; otherwise play the highest number after which the rest of
//      the hand still has a card that fits, for the second card.
//   4. Otherwise play the highest number card (1..10) that fits: the total climbs
//      and the next players run out of room before we do.
//   5. No number fits: spend an escape card (Play 2 / Double Play, Reverse, Hold,
//      0, -10), the most aggressive first when the total is high.

/** At or above this total, "the total is high": escape cards start to matter. */
export const HIGH_TOTAL = 80;

/** Owing two cards at or above this total, pass the obligation on if possible. */
export const PASS_TOTAL = 60;

/** The total never reaches this (R4.2). */
export const LIMIT = 99;

const NUMBER = /^(?:10|[0-9])$/;

/** The face value of a number card code ("0".."10"), or null for other cards. */
export function numberValue(card) {
  return typeof card === "string" && NUMBER.test(card) ? Number(card) : null;
}

/** Points a card scores when left in hand at the end of a points round (R9.3). */
export function cardPoints(card) {
  const value = numberValue(card);
  if (value !== null) return value;
  if (card === "99") return 20;
  return 15; // R, -10, P2, H, DP (and, to be safe, any card code we do not know)
}

/** What playing `card` does to `total` (2022: the total never goes below 0). */
export function totalAfter(card, total, edition = "2022") {
  const value = numberValue(card);
  if (value !== null) return total + value;
  if (card === "-10") return edition === "1980" ? total - 10 : Math.max(0, total - 10);
  return total; // R, P2, H, DP and ONO 99 on tens add 0
}

/** Players still in the game (a Reverse is just a 0 with two left, R6.4). */
function playersInGame(obs) {
  return Array.isArray(obs.in_game) ? obs.in_game.filter(Boolean).length : 0;
}

/**
 * Pick an action: return an integer index into act.legal.
 *
 * bot.js checks the answer and falls back to 0 (with a line on stderr) if this
 * throws or returns something that is not a valid index, so a bug here costs a
 * bad move, not a fault.
 */
export function choose(act, game = null) {
  const legal = act.legal;
  const obs = act.observation ?? {};
  const total = typeof obs.total === "number" ? obs.total : 0;
  const edition = game?.edition ?? "2022";

  // Index the actions by kind; unknown kinds (a later protocol) are left alone.
  const plays = [];
  const busts = [];
  for (let i = 0; i < legal.length; i++) {
    const action = legal[i];
    if (action.kind === "quad") return i; // 1.
    if (action.kind === "play") plays.push({ index: i, card: action.card });
    if (action.kind === "bust") busts.push({ index: i, card: action.card });
  }

  // 1. An ONO 99 that may be played (1980, ONO on tens) is a dead card gone.
  const ono = plays.find((p) => p.card === "99");
  if (ono) return ono.index;

  // 2. Forced bust: get rid of the most expensive card.
  if (plays.length === 0 && busts.length > 0) {
    return maxBy(busts, (b) => cardPoints(b.card)).index;
  }
  if (plays.length === 0) return 0; // only kinds we do not know: any index is legal

  const numbers = plays.filter((p) => numberValue(p.card) > 0);
  const escapes = plays.filter((p) => !(numberValue(p.card) > 0));

  // 3. Owing two cards.
  if (obs.owes === 2) {
    const passes = escapes.filter((p) => passesObligation(p.card, edition, obs));
    if (passes.length > 0 && (total >= PASS_TOTAL || numbers.length === 0)) {
      return maxBy(passes, (p) => escapeRank(p.card, total, obs)).index;
    }
    // The highest number after which the rest of the hand can still make the second card.
    const hand = Array.isArray(obs.hand) ? obs.hand : [];
    const safe = numbers.filter((p) => secondCardLeft(hand, p.card, totalAfter(p.card, total, edition), edition));
    if (safe.length > 0) return maxBy(safe, (p) => numberValue(p.card)).index;
    if (numbers.length > 0) return minBy(numbers, (p) => numberValue(p.card)).index;
  }

  // 4. The highest number card that fits (every legal play fits, R4.2).
  if (numbers.length > 0) {
    return maxBy(numbers, (p) => numberValue(p.card)).index;
  }

  // 5. Only escape cards (or cards we do not know) are left.
  return maxBy(escapes, (p) => escapeRank(p.card, total, obs)).index;
}

/** Whether `hand` without one `played` card still holds a card that fits at `total`. */
function secondCardLeft(hand, played, total, edition) {
  const rest = [...hand];
  const at = rest.indexOf(played);
  if (at >= 0) rest.splice(at, 1);
  return rest.some((card) => card !== "99" && totalAfter(card, total, edition) < LIMIT);
}

/** Whether playing `card` as the first of two owed cards passes the obligation on (R7.2, R7.5). */
function passesObligation(card, edition, obs) {
  if (card === "R") return playersInGame(obs) > 2; // with two players left a Reverse is a 0
  if (edition === "1980") return card === "H";
  return card === "P2";
}

/**
 * How much we like spending an escape card now (higher = spend first).
 *
 * At a high total the next player is in trouble: make it worse for them (Play 2,
 * then a Reverse, which sends the high total back the other way) and keep -10 for
 * last, since it gives everyone room again. At a low total spend the cheapest
 * cards first (0, Hold) and keep the strong ones for later. With two players
 * left a Reverse is only a 0 (R6.4).
 */
function escapeRank(card, total, obs) {
  const reverse = playersInGame(obs) > 2 ? "R" : "0";
  const ranks =
    total >= HIGH_TOTAL
      ? { P2: 6, DP: 5, R: 4, H: 2, 0: 1, "-10": 0 }
      : { 0: 6, H: 5, R: 4, "-10": 3, DP: 2, P2: 1 };
  const key = card === "R" ? reverse : card;
  return ranks[key] ?? -1; // cards we do not know: spent last
}

function maxBy(items, key) {
  let best = items[0];
  for (const item of items) if (key(item) > key(best)) best = item;
  return best;
}

function minBy(items, key) {
  return maxBy(items, (item) => -key(item));
}
