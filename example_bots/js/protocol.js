// Wire protocol v1 of the ONO 99 arena: frames in, frames out (protocol/SPEC.md §3).
//
// A frame is a 4-byte big-endian length N followed by N bytes holding exactly one
// msgpack map. msgpack itself is done by the @msgpack/msgpack package; this module
// only adds the framing and the checks of SPEC §3.1-§3.3 that a general-purpose
// msgpack library does not make. You should not need to change anything here to
// write a bot: the game logic lives in strategy.js, the session loop in bot.js.

import { Decoder, Encoder } from "@msgpack/msgpack";

/** The protocol version this kit speaks (SPEC §10.1). */
export const PROTOCOL_VERSION = 1;

/** Bytes in the length prefix (SPEC §3.1). */
export const HEADER_SIZE = 4;

/** The referee never sends a body above 16 MiB (SPEC §3.3); anything larger is refused. */
export const MAX_REFEREE_FRAME = 16 * 1024 * 1024;

/**
 * The referee's default limit for frames from a bot (hello.limits.max_frame, SPEC §3.3,
 * §8.1): 4 KiB. A hello or action comes nowhere near it.
 */
export const DEFAULT_MAX_FRAME = 4096;

/** A frame that breaks SPEC §3.1-§3.3: the stream cannot be trusted any more. */
export class FrameError extends Error {
  constructor(message) {
    super(message);
    this.name = "FrameError";
  }
}

// ---------------------------------------------------------------------------
// Encoding: what the bot writes.

// Strings are always msgpack str, integers take the shortest format and object keys
// keep their insertion order, so a message built in SPEC field order comes out in
// the canonical form of SPEC §3.4 (the referee accepts any valid encoding anyway).
const encoder = new Encoder();
// For a message holding a BigInt (a request_id above 2**53, SPEC §5.3): it writes the
// BigInt as a uint64. Not the encoder of every message: with useBigInt64 it writes a
// plain number of 2**32 or more as a float.
const bigIntEncoder = new Encoder({ useBigInt64: true });

/**
 * Return `message` (a plain object) as one complete frame: length prefix and body.
 * Write the result with a single write() so that a frame is never split by us.
 */
export function encodeFrame(message) {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    throw new TypeError("a message must be a plain object");
  }
  const big = Object.values(message).some((value) => typeof value === "bigint");
  const body = (big ? bigIntEncoder : encoder).encode(message);
  const frame = Buffer.allocUnsafe(HEADER_SIZE + body.byteLength);
  frame.writeUInt32BE(body.byteLength, 0);
  frame.set(body, HEADER_SIZE);
  return frame;
}

/** Write one message to `stream` (normally process.stdout) as one frame, in one write. */
export function writeMessage(stream, message) {
  return stream.write(encodeFrame(message));
}

// ---------------------------------------------------------------------------
// Decoding: what the referee sends.

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

// Keys seen by the decoder in the current body, to detect a key given twice: the
// decoder silently keeps the last value, so we compare this count with the keys
// that end up in the decoded objects.
let keysSeen = 0;

const decoderOptions = {
  // int64 and uint64 formats come back as BigInt (not as an inexact number above 2**53);
  // narrowInts turns those that fit a number back into plain numbers.
  useBigInt64: true,
  // msgpack ext types (the timestamp included) are not allowed anywhere (SPEC §3.2).
  extensionCodec: {
    tryToEncode: () => null,
    decode: (_data, type) => {
      throw new FrameError(`msgpack ext type ${type} is not allowed in a message`);
    },
  },
  // Map keys must be str (SPEC §3.2): refuse bin, int and other keys.
  mapKeyConverter: (key) => {
    if (typeof key !== "string") {
      throw new FrameError(`map keys must be str, got ${typeof key}`);
    }
    keysSeen += 1;
    return key;
  },
  // Keys must be valid UTF-8 (the library would decode bad bytes without a word).
  keyDecoder: {
    canBeCached: () => true,
    decode: (bytes, offset, length) => strictUtf8.decode(bytes.subarray(offset, offset + length)),
  },
};

// The message as the bot sees it: str -> string, int -> number, nil -> null ...
// (an int beyond 2**53 in size, in v1 only a request_id, comes back as a BigInt).
const decoder = new Decoder(decoderOptions);

// The same body with str values left as raw bytes, only to check their UTF-8.
const rawDecoder = new Decoder({ ...decoderOptions, rawStrings: true });

/** True for the plain objects the decoder makes for msgpack maps. */
function isMap(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/**
 * Decode one frame body (without its length prefix) into a message object.
 *
 * Throws FrameError unless the body is exactly one msgpack map with str keys, no key
 * twice, valid UTF-8 and no ext types (SPEC §3.2). What the fields mean is checked
 * by whoever uses them (bot.js, strategy.js). Types: str -> string, int -> number,
 * bool -> boolean, nil -> null, array -> Array, map -> plain object; bin (never sent
 * by v1) -> Uint8Array, float (never sent by v1) -> number.
 */
export function decodeBody(body) {
  if (body.byteLength === 0) {
    throw new FrameError("empty frame body");
  }
  let message;
  let raw;
  try {
    keysSeen = 0;
    message = narrowInts(decoder.decode(body));
    const keysDecoded = keysSeen;
    raw = rawDecoder.decode(body);
    if (!isMap(message)) {
      throw new FrameError(`frame body must be a msgpack map, got ${Array.isArray(message) ? "array" : typeof message}`);
    }
    if (countKeys(message) !== keysDecoded) {
      throw new FrameError("a map has the same key twice");
    }
    checkStrings(message, raw);
  } catch (err) {
    if (err instanceof FrameError) throw err;
    // DecodeError, RangeError (truncated or trailing bytes), TypeError (bad UTF-8) ...
    throw new FrameError(`frame body is not valid msgpack: ${err.message}`);
  }
  return message;
}

/**
 * `value` with every BigInt that is a safe integer replaced by a number, in place
 * (iterative: no recursion limit). A larger one stays a BigInt: request_id is a msgpack
 * uint up to 2**64 - 1 (SPEC §5.3), and the answer must carry it unchanged.
 */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function narrowInts(value) {
  const narrow = (v) => (typeof v === "bigint" && v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v);
  const todo = [value];
  while (todo.length > 0) {
    const item = todo.pop();
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        item[i] = narrow(item[i]);
        todo.push(item[i]);
      }
    } else if (isMap(item)) {
      for (const key of Object.keys(item)) {
        item[key] = narrow(item[key]);
        todo.push(item[key]);
      }
    }
  }
  return narrow(value);
}

/** The number of keys in all the maps inside `value` (iterative: no recursion limit). */
function countKeys(value) {
  let count = 0;
  const todo = [value];
  while (todo.length > 0) {
    const item = todo.pop();
    if (Array.isArray(item)) {
      for (const element of item) todo.push(element);
    } else if (isMap(item)) {
      for (const key of Object.keys(item)) {
        count += 1;
        todo.push(item[key]);
      }
    }
  }
  return count;
}

/** Check that every str value is valid UTF-8: `raw` is the same tree with str as bytes. */
function checkStrings(value, raw) {
  const todo = [[value, raw]];
  while (todo.length > 0) {
    const [item, bytes] = todo.pop();
    if (typeof item === "string") {
      strictUtf8.decode(bytes); // throws TypeError on bytes that are not UTF-8
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) todo.push([item[i], bytes[i]]);
    } else if (isMap(item)) {
      for (const key of Object.keys(item)) todo.push([item[key], bytes[key]]);
    }
  }
}

/**
 * Split a byte stream into messages, however the bytes arrive: a chunk may hold part
 * of a frame, exactly one, or several (SPEC §3.6).
 *
 *   const reader = new FrameReader();
 *   for (const message of reader.feed(chunk)) { ... }
 *
 * A length of 0 or above `maxFrame` is refused as soon as the 4 prefix bytes are in,
 * before any of the body is buffered. After a FrameError the reader is broken: the
 * stream has lost its framing, and every later feed() throws the same error.
 */
export class FrameReader {
  constructor({ maxFrame = MAX_REFEREE_FRAME } = {}) {
    this.maxFrame = maxFrame;
    this.chunks = []; // bytes received but not yet used, in order
    this.size = 0; // their total length
    this.need = null; // body length of the frame being read, once its prefix is in
    this.error = null;
  }

  /** True if part of a frame has arrived but not all of it (a problem at end of stream). */
  get partial() {
    return this.size > 0 || this.need !== null;
  }

  /** Add bytes from the stream; returns the messages completed by them, oldest first. */
  feed(chunk) {
    if (this.error) throw this.error;
    if (chunk.byteLength > 0) {
      this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.size += chunk.byteLength;
    }
    const messages = [];
    try {
      for (;;) {
        if (this.need === null) {
          if (this.size < HEADER_SIZE) break;
          const length = this.take(HEADER_SIZE).readUInt32BE(0);
          if (length === 0) {
            throw new FrameError("frame length 0 (a frame holds one non-empty msgpack map)");
          }
          if (length > this.maxFrame) {
            throw new FrameError(`frame length ${length} is above the limit of ${this.maxFrame} bytes`);
          }
          this.need = length;
        }
        if (this.size < this.need) break;
        const body = this.take(this.need);
        this.need = null;
        messages.push(decodeBody(body));
      }
    } catch (err) {
      this.error = err;
      this.chunks = [];
      this.size = 0;
      throw err;
    }
    return messages;
  }

  /** Remove and return the first `n` buffered bytes (n <= this.size). */
  take(n) {
    let joined = this.chunks[0];
    if (joined.byteLength < n) {
      joined = Buffer.concat(this.chunks, this.size);
      this.chunks = [joined];
    }
    const head = joined.subarray(0, n);
    if (joined.byteLength === n) {
      this.chunks.shift();
    } else {
      this.chunks[0] = joined.subarray(n);
    }
    this.size -= n;
    return head;
  }
}

/**
 * Read messages from a binary stream (normally process.stdin), oldest first, until
 * the stream ends. Throws FrameError on a broken frame, including a frame cut short
 * by the end of the stream.
 */
export async function* readMessages(stream, reader = new FrameReader()) {
  for await (const chunk of stream) {
    yield* reader.feed(chunk);
  }
  if (reader.partial) {
    throw new FrameError("the stream ended inside a frame");
  }
}
