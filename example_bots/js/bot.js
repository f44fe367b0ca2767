#!/usr/bin/env node
// An ONO 99 bot for the arena: the session loop of protocol/SPEC.md §4.
//
//   referee: hello      -> we answer hello {name, version, protocol: 1}
//   referee: game_start -> we remember the game (seat, edition, format ...)
//   referee: act        -> we answer action {request_id, choice}, choice from strategy.js
//   referee: game_over  -> logged to stderr
//   referee: bye        -> exit 0 (and exit 0 as well when stdin ends)
//
// stdout carries frames only: every diagnostic goes to stderr (console.error).
// The decisions are made in strategy.js; the framing is in protocol.js.

import { pathToFileURL } from "node:url";

import { FrameError, PROTOCOL_VERSION, readMessages, writeMessage } from "./protocol.js";
import { choose } from "./strategy.js";

/** Shown in results; 1 to 64 characters (SPEC §6.1). */
export const NAME = "js-heuristic";
export const VERSION = "1.0.0";

function log(...args) {
  console.error(`[${NAME}]`, ...args);
}

/** Ask the strategy, and make sure the answer is a valid index whatever it does. */
function decide(act, game) {
  const count = act.legal.length;
  let choice;
  try {
    choice = choose(act, game);
  } catch (err) {
    log(`strategy failed on request ${act.request_id}, playing index 0:`, err);
    return 0;
  }
  if (!Number.isInteger(choice) || choice < 0 || choice >= count) {
    log(`strategy returned ${String(choice)} for ${count} legal actions, playing index 0`);
    return 0;
  }
  return choice;
}

/** Run one session on the given streams; resolves with the exit status. */
export async function runSession(input = process.stdin, output = process.stdout) {
  let game = null; // the current game_start message
  for await (const msg of readMessages(input)) {
    switch (msg.type) {
      case "hello":
        if (msg.protocol !== PROTOCOL_VERSION || msg.game !== "ono99") {
          log(`the referee speaks protocol ${msg.protocol} for game ${msg.game}; this bot speaks protocol 1 for ono99`);
          return 1;
        }
        writeMessage(output, { type: "hello", name: NAME, version: VERSION, protocol: PROTOCOL_VERSION });
        break;

      case "game_start":
        game = msg;
        log(`game ${msg.game_id}: seat ${msg.seat} of ${msg.players}, ${msg.edition} ${msg.format}`);
        break;

      case "act": {
        const id = msg.request_id; // a number, or a BigInt above 2**53 (SPEC §5.3: up to 2**64 - 1)
        if (!Array.isArray(msg.legal) || msg.legal.length === 0 || !(Number.isSafeInteger(id) || (typeof id === "bigint" && id >= 0n))) {
          log("an act without request_id or legal actions:", msg);
          return 1;
        }
        const started = performance.now();
        const choice = decide(msg, game);
        const used = performance.now() - started;
        if (used > (msg.clock?.decision_ms ?? 1000) / 2) {
          log(`request ${msg.request_id}: the decision took ${used.toFixed(0)} ms`);
        }
        writeMessage(output, { type: "action", request_id: msg.request_id, choice });
        break;
      }

      case "game_over":
        log(`game ${msg.game_id} over: places ${JSON.stringify(msg.places)} (we were seat ${game?.seat})`);
        game = null;
        break;

      case "bye":
        return 0;

      default:
        log(`ignoring a message of type ${JSON.stringify(msg.type)}`); // SPEC §10.2
    }
  }
  return 0; // end of stdin: the session is over (SPEC §4.4)
}

async function main() {
  // If the referee goes away while we write, the session is over.
  process.stdout.on("error", (err) => {
    log("stdout failed:", err.message);
    process.exit(0);
  });
  let status;
  try {
    status = await runSession();
  } catch (err) {
    log(err instanceof FrameError ? `bad frame from the referee: ${err.message}` : err);
    status = 1;
  }
  process.exitCode = status;
  // Leaving the loop has stopped reading stdin, so Node exits on its own; if a
  // strategy left timers or handles behind, do not outstay the exit grace (SPEC §4.4).
  setTimeout(() => process.exit(status), 500).unref();
}

// Run when started as a program (`node bot.js`), not when imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
