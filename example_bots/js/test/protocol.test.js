// The kit's framing against the golden vectors of protocol/vectors/ (SPEC.md §12).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  DEFAULT_MAX_FRAME,
  encodeFrame,
  FrameError,
  FrameReader,
  MAX_REFEREE_FRAME,
  readMessages,
} from "../protocol.js";

const VECTORS = fileURLToPath(new URL("../../../protocol/vectors/", import.meta.url));
const index = JSON.parse(readFileSync(VECTORS + "index.json", "utf8"));
const bin = (name) => readFileSync(`${VECTORS}${name}.bin`);
const json = (name) => JSON.parse(readFileSync(`${VECTORS}${name}.json`, "utf8"));

/** Every vector with both a .bin and a .json, except the bad_* ones. */
const PAIRS = readdirSync(VECTORS)
  .filter((f) => f.endsWith(".bin") && !f.startsWith("bad_"))
  .map((f) => f.slice(0, -4))
  .filter((name) => existsSync(`${VECTORS}${name}.json`))
  .sort();
const CANONICAL = new Set(index.canonical.map((v) => v.name));
const ACCEPT = new Set(index.accept.map((v) => v.name));

/** Decode bytes that should hold exactly one complete frame. */
function decodeOne(bytes, options) {
  const reader = new FrameReader(options);
  const messages = reader.feed(bytes);
  assert.equal(messages.length, 1, "exactly one message");
  assert.equal(reader.partial, false, "no bytes left over");
  return messages[0];
}

test("the vectors are there", () => {
  assert.ok(PAIRS.length >= 20, `only ${PAIRS.length} vectors found in ${VECTORS}`);
  for (const name of [...CANONICAL, ...ACCEPT]) assert.ok(PAIRS.includes(name), name);
});

describe("decode(NAME.bin) == NAME.json", () => {
  for (const name of PAIRS) {
    test(name, () => {
      assert.deepStrictEqual(decodeOne(bin(name)), json(name));
    });
  }
});

describe("decode(encode(NAME.json)) == NAME.json", () => {
  for (const name of PAIRS) {
    test(name, () => {
      const message = json(name);
      assert.deepStrictEqual(decodeOne(encodeFrame(message)), message);
    });
  }
});

describe("encode(NAME.json) == NAME.bin, byte for byte", () => {
  // Canonical vectors must match. The accept vectors are valid but need not be
  // canonical: ok_action_noncanonical is written in another form on purpose.
  const EXPECTED_DIFFERENT = new Set(["ok_action_noncanonical"]);
  for (const name of PAIRS) {
    test(name, (t) => {
      const same = encodeFrame(json(name)).equals(bin(name));
      t.diagnostic(`${name}: ${same ? "byte-equal" : "differs"}${CANONICAL.has(name) ? " (canonical)" : ""}`);
      if (CANONICAL.has(name) || !EXPECTED_DIFFERENT.has(name)) {
        assert.ok(same, `encoding ${name}.json does not give ${name}.bin`);
      } else {
        assert.ok(!same, `${name} was expected to be non-canonical`);
      }
    });
  }
});

describe("frames split anywhere", () => {
  for (const name of index.canonical.map((v) => v.name)) {
    test(`${name} split at every byte position`, () => {
      const bytes = bin(name);
      const expected = json(name);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const reader = new FrameReader();
        const first = reader.feed(bytes.subarray(0, cut));
        const second = reader.feed(bytes.subarray(cut));
        assert.deepStrictEqual([...first, ...second], [expected], `cut at ${cut}`);
        assert.equal(reader.partial, false);
      }
    });
  }

  const session = index.session.filter((name) => name !== null);

  test("the whole golden session in one chunk", () => {
    const reader = new FrameReader();
    assert.deepStrictEqual(reader.feed(Buffer.concat(session.map(bin))), session.map(json));
  });

  test("the whole golden session one byte at a time", () => {
    const reader = new FrameReader();
    const stream = Buffer.concat(session.map(bin));
    const messages = [];
    for (let i = 0; i < stream.length; i++) messages.push(...reader.feed(stream.subarray(i, i + 1)));
    assert.deepStrictEqual(messages, session.map(json));
  });

  test("readMessages() on a stream of odd-sized chunks", async () => {
    const stream = Buffer.concat(session.map(bin));
    const chunks = [];
    for (let i = 0, size = 1; i < stream.length; i += size, size = (size * 7) % 61 + 1) {
      chunks.push(stream.subarray(i, i + size));
    }
    const messages = [];
    for await (const message of readMessages(Readable.from(chunks))) messages.push(message);
    assert.deepStrictEqual(messages, session.map(json));
  });
});

describe("broken frames are refused", () => {
  const reject = index.reject.filter((v) => v.name.startsWith("bad_frame_"));

  test("all bad_frame_* vectors are listed", () => {
    const files = readdirSync(VECTORS).filter((f) => f.startsWith("bad_frame_") && f.endsWith(".bin"));
    assert.equal(reject.length, files.length);
  });

  for (const { name, description } of reject) {
    test(`${name}: ${description}`, () => {
      // The referee's default limit on bot frames (hello.limits.max_frame).
      const reader = new FrameReader({ maxFrame: DEFAULT_MAX_FRAME });
      assert.throws(() => reader.feed(bin(name)), FrameError);
      // The stream has lost its framing: the reader stays broken.
      assert.throws(() => reader.feed(bin("bye")), FrameError);
    });
  }

  test("a length above 16 MiB is refused at once, with no body", () => {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(MAX_REFEREE_FRAME + 1);
    assert.throws(() => new FrameReader().feed(prefix), /above the limit/);
  });

  test("a length of exactly 16 MiB is accepted (waiting for the body)", () => {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(MAX_REFEREE_FRAME);
    const reader = new FrameReader();
    assert.deepStrictEqual(reader.feed(prefix), []);
    assert.equal(reader.partial, true);
  });

  test("frames before a broken one are delivered first", () => {
    const reader = new FrameReader();
    const good = reader.feed(bin("referee_hello"));
    assert.deepStrictEqual(good, [json("referee_hello")]);
    assert.throws(() => reader.feed(bin("bad_frame_invalid_msgpack")), FrameError);
  });

  test("a stream that ends inside a frame", async () => {
    const bytes = bin("act_2022_single");
    const messages = [];
    await assert.rejects(async () => {
      for await (const m of readMessages(Readable.from([bin("bye"), bytes.subarray(0, 100)]))) messages.push(m);
    }, /ended inside a frame/);
    assert.deepStrictEqual(messages, [json("bye")]);
  });

  test("integer map keys are refused (keys must be str)", () => {
    // {1: 2} as a msgpack map: 0x81 0x01 0x02
    assert.throws(() => new FrameReader().feed(Buffer.from([0, 0, 0, 3, 0x81, 0x01, 0x02])), FrameError);
  });

  test("invalid UTF-8 in a key is refused", () => {
    // {"\xff": 1}
    assert.throws(() => new FrameReader().feed(Buffer.from([0, 0, 0, 4, 0x81, 0xa1, 0xff, 0x01])), FrameError);
  });

  test("a duplicate key in a nested map is refused", () => {
    const body = Buffer.from([0x81, 0xa1, 0x61, 0x82, 0xa1, 0x62, 0x01, 0xa1, 0x62, 0x02]); // {a: {b: 1, b: 2}}
    const frame = Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]);
    assert.throws(() => new FrameReader().feed(frame), /same key twice/);
  });

  test("the timestamp ext type is refused", () => {
    const body = Buffer.from([0x81, 0xa1, 0x74, 0xd6, 0xff, 0, 0, 0, 0]); // {t: timestamp 0}
    const frame = Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]);
    assert.throws(() => new FrameReader().feed(frame), /ext type -1/);
  });
});

describe("values the decoder gives", () => {
  test("integers in any width are plain JS numbers", () => {
    const message = decodeOne(bin("ok_action_noncanonical"));
    assert.equal(typeof message.request_id, "number");
    assert.equal(typeof message.choice, "number");
    assert.ok(Number.isInteger(message.choice));
  });

  test("a request_id up to 2**64 - 1 is exact, and encodes back unchanged (SPEC §5.3)", () => {
    // The decoder gave int64/uint64 as inexact numbers above 2**53: the bot answered an
    // act with request_id 2**64 - 1 with the float 1.8446744073709552e19 (malformed).
    const cases = [
      [1, 1, "01"],
      [2 ** 40, 2 ** 40, "cf0000010000000000"],
      [2n ** 53n + 1n, 2n ** 53n + 1n, "cf0020000000000001"],
      [2n ** 64n - 1n, 2n ** 64n - 1n, "cfffffffffffffffff"],
    ];
    for (const [sent, seen, hex] of cases) {
      const act = decodeOne(encodeFrame({ type: "act", request_id: sent, total: -(2 ** 40) }));
      assert.equal(act.request_id, seen);
      assert.equal(act.total, -(2 ** 40), "a safe int64 is a plain number");
      const answer = encodeFrame({ type: "action", request_id: act.request_id, choice: 0 });
      assert.equal(answer.subarray(4).toString("hex"), `83a474797065a6616374696f6eaa726571756573745f6964${hex}a663686f69636500`);
    }
  });

  test("unknown keys are kept and harmless", () => {
    const message = decodeOne(bin("ok_action_extra_key"));
    assert.equal(message.note, "thinking");
  });

  test("a long non-ASCII str decodes by code points", () => {
    const message = decodeOne(bin("ok_hello_unicode_name"));
    assert.equal([...message.name].length, 64);
  });

  test("encodeFrame refuses what is not a message", () => {
    assert.throws(() => encodeFrame([1, 2]), TypeError);
    assert.throws(() => encodeFrame(null), TypeError);
  });
});
