// choose() always returns a valid index, and makes the moves the heuristic promises.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { cardPoints, choose, totalAfter } from "../strategy.js";

const VECTORS = fileURLToPath(new URL("../../../protocol/vectors/", import.meta.url));
const json = (name) => JSON.parse(readFileSync(`${VECTORS}${name}.json`, "utf8"));

const ACTS = readdirSync(VECTORS)
  .filter((f) => f.startsWith("act_") && f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .sort();

/** The game_start that goes with an act vector (same edition and format). */
function gameFor(actName) {
  const suffix = actName.replace(/^act_/, "").split("_").slice(0, 2).join("_"); // e.g. 2022_single
  const starts = readdirSync(VECTORS).filter((f) => f.startsWith(`game_start_${suffix}`) && f.endsWith(".json"));
  return starts.length === 1 ? json(starts[0].slice(0, -5)) : null;
}

function isValidChoice(choice, act) {
  return Number.isInteger(choice) && choice >= 0 && choice < act.legal.length;
}

/** A minimal act for hand-made situations. */
function act({ total, legal, owes = 1, players = 3, hand = [] }) {
  return {
    type: "act",
    request_id: 1,
    observation: {
      seat: 0,
      hand,
      total,
      direction: 1,
      to_move: 0,
      owes,
      hand_sizes: Array(players).fill(4),
      in_game: Array(players).fill(true),
      in_round: Array(players).fill(true),
    },
    events: [],
    clock: { decision_ms: 1000, bank_ms: null },
    legal: legal.map((card) => (card === "quad" ? { kind: "quad" } : { kind: "play", card })),
  };
}

const picked = (a, game = null) => a.legal[choose(a, game)];

describe("every act vector gets a valid index", () => {
  for (const name of ACTS) {
    test(name, () => {
      const a = json(name);
      assert.ok(isValidChoice(choose(a, gameFor(name)), a));
      assert.ok(isValidChoice(choose(a), a), "without a game_start too");
    });
  }
});

describe("the heuristic", () => {
  test("plays the highest number that fits (act_2022_single: the 7)", () => {
    assert.deepStrictEqual(picked(json("act_2022_single"), json("game_start_2022_single")), { kind: "play", card: "7" });
  });

  test("owing two at a low total, plays a number that leaves a second card", () => {
    assert.deepStrictEqual(picked(json("act_2022_single_owes_two")), { kind: "play", card: "3" });
    // At 88 the 9 would leave 2 and 3, neither of which fits at 97: play the 3 (then the 2 fits).
    const hand = ["2", "3", "9", "99"];
    assert.deepStrictEqual(picked(act({ total: 88, owes: 2, legal: ["2", "3", "9"], hand })), { kind: "play", card: "3" });
    // A Reverse left in hand makes a fine second card (two players: it does not pass the obligation).
    const withReverse = act({ total: 88, owes: 2, players: 2, legal: ["2", "9", "R"], hand: ["2", "9", "99", "R"] });
    assert.deepStrictEqual(picked(withReverse), { kind: "play", card: "9" });
  });

  test("owing two at a high total, passes it on (Reverse or Play 2)", () => {
    assert.deepStrictEqual(picked(act({ total: 70, owes: 2, legal: ["3", "P2"] })), { kind: "play", card: "P2" });
    assert.deepStrictEqual(picked(act({ total: 70, owes: 2, legal: ["3", "R"] })), { kind: "play", card: "R" });
    assert.notEqual(picked(act({ total: 70, owes: 2, legal: ["3", "R", "P2"] })).card, "3");
  });

  test("owing two with two players left, a Reverse does not pass it on", () => {
    assert.deepStrictEqual(picked(act({ total: 70, owes: 2, players: 2, legal: ["3", "R"] })), { kind: "play", card: "3" });
  });

  test("1980: owing two at a high total, passes it on with a Hold", () => {
    const game = { edition: "1980" };
    assert.deepStrictEqual(picked(act({ total: 75, owes: 2, legal: ["2", "H", "-10"] }), game), { kind: "play", card: "H" });
  });

  test("takes quad (act_2022_tokens_quad)", () => {
    assert.deepStrictEqual(picked(json("act_2022_tokens_quad")), { kind: "quad" });
    assert.deepStrictEqual(picked(act({ total: 10, legal: ["5", "quad", "P2"] })), { kind: "quad" });
  });

  test("busts with the most expensive card (act_1980_points_bust: the 10)", () => {
    assert.deepStrictEqual(picked(json("act_1980_points_bust")), { kind: "bust", card: "10" });
    const a = act({ total: 97, legal: [] });
    a.legal = [{ kind: "bust", card: "9" }, { kind: "bust", card: "R" }];
    assert.deepStrictEqual(picked(a), { kind: "bust", card: "R" });
  });

  test("a bust offered next to plays comes last (R4.2: busting on purpose costs 25)", () => {
    const a = act({ total: 90, legal: [] });
    a.legal = [{ kind: "play", card: "2" }, { kind: "play", card: "8" }, { kind: "bust", card: "9" }];
    assert.equal(picked(a).kind, "play");
  });

  test("plays an ONO 99 on tens whenever it may (1980)", () => {
    assert.deepStrictEqual(picked(act({ total: 40, legal: ["5", "99", "H"] }), { edition: "1980" }), { kind: "play", card: "99" });
  });

  test("keeps escape cards while a number fits", () => {
    assert.deepStrictEqual(picked(act({ total: 95, legal: ["3", "R", "-10", "P2"] })), { kind: "play", card: "3" });
    assert.deepStrictEqual(picked(act({ total: 10, legal: ["0", "R", "-10", "2"] })), { kind: "play", card: "2" });
  });

  test("at a high total with no number, attacks with Play 2 and keeps -10 for last", () => {
    assert.deepStrictEqual(picked(act({ total: 96, legal: ["R", "-10", "P2"] })), { kind: "play", card: "P2" });
    assert.deepStrictEqual(picked(act({ total: 96, legal: ["R", "-10"] })), { kind: "play", card: "R" });
    assert.deepStrictEqual(picked(act({ total: 96, legal: ["-10", "0"] })), { kind: "play", card: "0" });
  });

  test("at a low total with no number, spends the cheapest escape", () => {
    assert.deepStrictEqual(picked(act({ total: 5, legal: ["0", "R", "-10", "P2"] })), { kind: "play", card: "0" });
  });

  test("unknown action kinds and cards still give a valid index", () => {
    const a = act({ total: 50, legal: [] });
    a.legal = [{ kind: "teleport" }, { kind: "play", card: "Z" }];
    assert.ok(isValidChoice(choose(a), a));
    a.legal = [{ kind: "teleport" }];
    assert.equal(choose(a), 0);
  });
});

test("card helpers", () => {
  assert.equal(totalAfter("7", 90), 97);
  assert.equal(totalAfter("-10", 5), 0);
  assert.equal(totalAfter("-10", 5, "1980"), -5);
  assert.equal(totalAfter("P2", 50), 50);
  assert.equal(cardPoints("99"), 20);
  assert.equal(cardPoints("DP"), 15);
  assert.equal(cardPoints("7"), 7);
});

test("random situations: always a valid index", () => {
  // A small deterministic PRNG (mulberry32), so failures can be replayed.
  let seed = 12345;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (items) => items[Math.floor(random() * items.length)];
  const cards = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "R", "-10", "P2", "H", "DP", "??"];
  for (let i = 0; i < 5000; i++) {
    const count = 1 + Math.floor(random() * 6);
    const legal = Array.from({ length: count }, () => {
      const kind = pick(["play", "play", "play", "bust", "quad", "other"]);
      return kind === "quad" || kind === "other" ? { kind } : { kind, card: pick(cards) };
    });
    const a = act({ total: Math.floor(random() * 120) - 20, owes: pick([1, 2]), players: 2 + Math.floor(random() * 5), legal: [] });
    a.legal = legal;
    const game = pick([null, { edition: "2022" }, { edition: "1980" }]);
    const choice = choose(a, game);
    assert.ok(isValidChoice(choice, a), `case ${i}: ${JSON.stringify(a.legal)} -> ${choice}`);
  }
});
