// End to end: start `node bot.js` as the referee would and talk to it in frames.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { encodeFrame, FrameReader } from "../protocol.js";

const KIT = fileURLToPath(new URL("..", import.meta.url));
const VECTORS = fileURLToPath(new URL("../../../protocol/vectors/", import.meta.url));
const bin = (name) => readFileSync(`${VECTORS}${name}.bin`);
const json = (name) => JSON.parse(readFileSync(`${VECTORS}${name}.json`, "utf8"));

const TIMEOUT_MS = 10_000;

/** A running bot: send frames, await its messages one by one, await its exit. */
class Bot {
  constructor() {
    this.child = spawn(process.execPath, ["bot.js"], { cwd: KIT, stdio: ["pipe", "pipe", "pipe"] });
    this.reader = new FrameReader();
    this.messages = [];
    this.waiting = [];
    this.stderr = "";
    this.child.stdout.on("data", (chunk) => {
      this.messages.push(...this.reader.feed(chunk)); // throws (fails the test) on a bad frame
      this.wake();
    });
    this.child.stderr.on("data", (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
    this.child.stdin.on("error", () => {}); // EPIPE if the bot has gone: the test checks the exit
  }

  wake() {
    while (this.waiting.length > 0 && this.messages.length > 0) this.waiting.shift()(this.messages.shift());
  }

  send(...frames) {
    for (const frame of frames) this.child.stdin.write(frame);
  }

  /** The bot's next message (fails after a timeout). */
  next() {
    return withTimeout(
      new Promise((resolve) => {
        this.waiting.push(resolve);
        this.wake();
      }),
      "a message from the bot",
    );
  }

  /** The exit status (fails after a timeout); also checks nothing but whole frames came out. */
  async exit() {
    const result = await withTimeout(this.exited, "the bot to exit");
    assert.equal(this.reader.partial, false, "stdout ended inside a frame");
    return result;
  }

  kill() {
    this.child.kill("SIGKILL");
  }
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function checkHello(message) {
  assert.equal(message.type, "hello");
  assert.equal(message.protocol, 1);
  assert.equal(typeof message.name, "string");
  const length = [...message.name].length;
  assert.ok(length >= 1 && length <= 64, `name of ${length} characters`);
  assert.equal(typeof message.version, "string");
}

function checkAction(message, act) {
  assert.equal(message.type, "action");
  assert.equal(message.request_id, act.request_id);
  assert.ok(Number.isInteger(message.choice) && message.choice >= 0 && message.choice < act.legal.length, `choice ${message.choice}`);
}

describe("node bot.js", () => {
  test("hello, game_start, act, bye: answers and exits 0 on bye", async () => {
    const bot = new Bot();
    try {
      bot.send(bin("referee_hello"));
      checkHello(await bot.next());
      bot.send(bin("game_start_2022_single"), bin("act_2022_single"));
      const action = await bot.next();
      checkAction(action, json("act_2022_single"));
      bot.send(bin("bye")); // stdin stays open: the bot must leave on bye alone
      assert.deepStrictEqual(await bot.exit(), { code: 0, signal: null });
      assert.equal(bot.messages.length, 0, "nothing after the action");
    } finally {
      bot.kill();
    }
  });

  test("an act with request_id 2**64 - 1 is answered with that id (SPEC §5.3)", async () => {
    const act = { ...json("act_2022_single"), request_id: 2n ** 64n - 1n };
    const bot = new Bot();
    try {
      bot.send(bin("referee_hello"));
      checkHello(await bot.next());
      bot.send(bin("game_start_2022_single"), encodeFrame(act));
      checkAction(await bot.next(), act);
      bot.send(bin("bye"));
      assert.deepStrictEqual(await bot.exit(), { code: 0, signal: null });
    } finally {
      bot.kill();
    }
  });

  test("the whole golden session, fed in small pieces", async () => {
    const session = JSON.parse(readFileSync(`${VECTORS}index.json`, "utf8")).session.filter((name) => name !== null);
    const fromReferee = session.filter((name) => !name.startsWith("bot_") && !name.startsWith("action_"));
    const acts = fromReferee.filter((name) => name.startsWith("act_")).map(json);
    const stream = Buffer.concat(fromReferee.map(bin));
    const bot = new Bot();
    try {
      for (let i = 0; i < stream.length; i += 5) bot.send(stream.subarray(i, i + 5));
      checkHello(await bot.next());
      for (const act of acts) checkAction(await bot.next(), act);
      assert.deepStrictEqual(await bot.exit(), { code: 0, signal: null });
      assert.equal(bot.messages.length, 0, "one action per act, nothing else");
    } finally {
      bot.kill();
    }
  });

  test("everything in one write, unknown message types ignored", async () => {
    const act = json("act_2022_tokens_quad");
    const bot = new Bot();
    try {
      bot.send(
        Buffer.concat([
          bin("referee_hello"),
          encodeFrame({ type: "news_from_the_future", extra: [1, 2, 3] }),
          bin("game_start_2022_tokens"),
          bin("act_2022_tokens_quad"),
          bin("game_over_2022_tokens"),
          bin("bye"),
        ]),
      );
      checkHello(await bot.next());
      const action = await bot.next();
      checkAction(action, act);
      assert.equal(action.choice, 0); // the only legal action: quad
      assert.deepStrictEqual(await bot.exit(), { code: 0, signal: null });
    } finally {
      bot.kill();
    }
  });

  test("exits 0 at the end of stdin, without bye", async () => {
    const bot = new Bot();
    try {
      bot.send(bin("referee_hello"));
      checkHello(await bot.next());
      bot.child.stdin.end();
      assert.deepStrictEqual(await bot.exit(), { code: 0, signal: null });
    } finally {
      bot.kill();
    }
  });

  test("refuses another protocol: no hello, non-zero exit", async () => {
    const bot = new Bot();
    try {
      bot.send(encodeFrame({ ...json("referee_hello"), protocol: 2 }));
      const { code } = await bot.exit();
      assert.notEqual(code, 0);
      assert.equal(bot.messages.length, 0);
      assert.match(bot.stderr, /protocol 2/);
    } finally {
      bot.kill();
    }
  });

  test("a broken frame from the referee: non-zero exit, reason on stderr", async () => {
    const bot = new Bot();
    try {
      bot.send(bin("referee_hello"));
      checkHello(await bot.next());
      bot.send(bin("bad_frame_invalid_msgpack"));
      const { code } = await bot.exit();
      assert.notEqual(code, 0);
      assert.match(bot.stderr, /bad frame/);
    } finally {
      bot.kill();
    }
  });
});
