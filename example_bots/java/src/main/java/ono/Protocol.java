package ono;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.ImmutableValue;
import org.msgpack.value.IntegerValue;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;

/**
 * The wire protocol v1 of the ONO 99 arena (protocol/SPEC.md): frames in, frames out.
 *
 * <p>A frame is a 4-byte big-endian length N followed by N bytes holding exactly one
 * msgpack map (SPEC §3). This class reads and writes frames, checks bodies the way
 * SPEC §3.2 asks, encodes the bot's two messages, and looks map keys up by name. All
 * msgpack encoding and decoding is done by msgpack-java's {@code msgpack-core}
 * ({@link MessageUnpacker}, {@code MessagePacker}); decoded messages are msgpack-core
 * {@link ImmutableValue}s. You should not need to change anything here to write a bot:
 * the choice is made in {@link Strategy}, the session loop is {@link Bot}.
 */
public final class Protocol {
    private Protocol() {}

    /** The protocol version this kit speaks (SPEC §10.1). */
    public static final int VERSION = 1;

    /** Bytes in the length prefix (SPEC §3.1). */
    public static final int HEADER_SIZE = 4;

    /**
     * The largest frame the referee ever sends (SPEC §3.3: a bot SHOULD accept any N up
     * to 16 MiB). Longer frames are refused from the prefix alone, before any body.
     */
    public static final int MAX_INCOMING = 16 * 1024 * 1024;

    /**
     * The referee's default limit for frames from a bot ({@code hello.limits.max_frame},
     * SPEC §3.3, §8.1): 4 KiB. A hello or action comes nowhere near it.
     */
    public static final int DEFAULT_MAX_FRAME = 4096;

    /**
     * Nesting deeper than this is refused (v1 nests at most 4 levels; the Python codec
     * refuses more than 1024, SPEC §3.2), so that no body can exhaust the stack.
     */
    public static final int MAX_DEPTH = 1024;

    /**
     * A frame that breaks SPEC §3.1-§3.3. After one, the stream has lost its framing and
     * cannot be trusted any more.
     */
    public static final class FrameException extends IOException {
        private static final long serialVersionUID = 1L;

        public FrameException(String message) {
            super(message);
        }

        public FrameException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---------------------------------------------------------------------------------
    // Frames

    /**
     * Read one frame's body (without its prefix), waiting for all of it however the bytes
     * arrive (SPEC §3.6). Returns null if the stream ends cleanly before a frame (the
     * session is over). Throws FrameException for N = 0, N above {@code maxLen} (decided
     * from the prefix alone: the body is not read) or a stream ending inside a frame.
     */
    public static byte[] readFrame(InputStream in, int maxLen) throws IOException {
        byte[] prefix = new byte[HEADER_SIZE];
        int got = in.readNBytes(prefix, 0, HEADER_SIZE);
        if (got == 0) {
            return null;
        }
        if (got < HEADER_SIZE) {
            throw new FrameException("the stream ended after " + got + " of the 4 length-prefix bytes");
        }
        long n = ByteBuffer.wrap(prefix).getInt() & 0xFFFFFFFFL;
        if (n == 0) {
            throw new FrameException("frame length 0 (a frame holds one non-empty msgpack map)");
        }
        if (n > maxLen) {
            throw new FrameException("frame length " + n + " exceeds the limit of " + maxLen + " bytes");
        }
        byte[] body = in.readNBytes((int) n);
        if (body.length < n) {
            throw new FrameException("the stream ended after " + body.length + " of " + n + " body bytes");
        }
        return body;
    }

    /** {@link #readFrame} then {@link #decode}: the next message, or null at the end of the stream. */
    public static ImmutableMapValue readMessage(InputStream in, int maxLen) throws IOException {
        byte[] body = readFrame(in, maxLen);
        return body == null ? null : decode(body);
    }

    /** The whole frame for a body: the 4-byte big-endian length, then the body. */
    public static byte[] frame(byte[] body) {
        if (body.length == 0) {
            throw new IllegalArgumentException("a frame body cannot be empty");
        }
        return ByteBuffer.allocate(HEADER_SIZE + body.length).putInt(body.length).put(body).array();
    }

    /** Write a whole frame with one write, then flush: an unflushed frame counts as not sent (SPEC §3.6). */
    public static void writeFrame(OutputStream out, byte[] body) throws IOException {
        out.write(frame(body));
        out.flush();
    }

    // ---------------------------------------------------------------------------------
    // Decoding: what the referee sends

    /**
     * Decode one frame body: exactly one msgpack map, with str keys, no key twice in a map,
     * valid UTF-8 in every str, no ext values (the timestamp included), nothing left over,
     * nothing cut short (SPEC §3.2). Throws FrameException otherwise. What the fields mean
     * is checked by whoever reads them. bin and float values (never sent by v1) are kept.
     *
     * <p>msgpack-core's {@code unpackValue()} would keep a duplicate key and invalid UTF-8
     * without a word and recurses without limit, so the tree is assembled here, one
     * msgpack-core {@code unpack*} call per value, with the checks in between.
     */
    public static ImmutableMapValue decode(byte[] body) throws FrameException {
        if (body.length == 0) {
            throw new FrameException("empty frame body");
        }
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(body)) {
            if (unpacker.getNextFormat().getValueType() != org.msgpack.value.ValueType.MAP) {
                throw new FrameException("the frame body must be a msgpack map, not "
                        + unpacker.getNextFormat().getValueType().name().toLowerCase());
            }
            ImmutableValue value = new Reader(unpacker, body.length).value(0);
            if (unpacker.hasNext()) {
                throw new FrameException((body.length - unpacker.getTotalReadBytes())
                        + " bytes left over after the msgpack map");
            }
            return value.asMapValue();
        } catch (FrameException e) {
            throw e;
        } catch (EOFException | MessageInsufficientBufferException e) {
            throw new FrameException("the msgpack map ends after the frame does", e);
        } catch (IOException | MessagePackException e) {
            throw new FrameException("the frame body is not valid msgpack: " + e.getMessage(), e);
        }
    }

    /** Assembles one value from msgpack-core's unpacker, checking SPEC §3.2 as it goes. */
    private static final class Reader {
        private final MessageUnpacker unpacker;
        private final long size;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);

        Reader(MessageUnpacker unpacker, long size) {
            this.unpacker = unpacker;
            this.size = size;
        }

        /** What the body still holds: no header may announce more items or bytes than that. */
        private void fits(long count, String what) throws FrameException {
            if (count > size - unpacker.getTotalReadBytes()) {
                throw new FrameException("the msgpack map ends after the frame does (" + what + " of " + count + ")");
            }
        }

        ImmutableValue value(int depth) throws IOException {
            MessageFormat format = unpacker.getNextFormat();
            switch (format.getValueType()) {
                case STRING: {
                    return ValueFactory.newString(utf8Bytes(), true);
                }
                case BINARY: {
                    int n = unpacker.unpackBinaryHeader();
                    fits(n, "a bin");
                    return ValueFactory.newBinary(unpacker.readPayload(n), true);
                }
                case ARRAY: {
                    deeper(depth);
                    int n = unpacker.unpackArrayHeader();
                    fits(n, "an array");
                    Value[] items = new Value[n];
                    for (int i = 0; i < n; i++) {
                        items[i] = value(depth + 1);
                    }
                    return ValueFactory.newArray(items, true);
                }
                case MAP: {
                    deeper(depth);
                    int n = unpacker.unpackMapHeader();
                    fits(2L * n, "a map");
                    Value[] kvs = new Value[2 * n];
                    Set<String> keys = new HashSet<>();
                    for (int i = 0; i < n; i++) {
                        if (unpacker.getNextFormat().getValueType() != org.msgpack.value.ValueType.STRING) {
                            throw new FrameException("map keys must be str, not "
                                    + unpacker.getNextFormat().getValueType().name().toLowerCase());
                        }
                        byte[] key = utf8Bytes();
                        // Valid UTF-8 and its string determine each other: equal strings, equal bytes.
                        if (!keys.add(new String(key, StandardCharsets.UTF_8))) {
                            throw new FrameException("a map has the key " + quote(key) + " twice");
                        }
                        kvs[2 * i] = ValueFactory.newString(key, true);
                        kvs[2 * i + 1] = value(depth + 1);
                    }
                    return ValueFactory.newMap(kvs, true);
                }
                case EXTENSION: {
                    byte type = unpacker.unpackExtensionTypeHeader().getType();
                    throw new FrameException("msgpack ext type " + type + " is not allowed in a message");
                }
                default: // nil, bool, int (up to uint64), float: no payload to check
                    return unpacker.unpackValue();
            }
        }

        private void deeper(int depth) throws FrameException {
            if (depth >= MAX_DEPTH) {
                throw new FrameException("msgpack nested deeper than " + MAX_DEPTH + " levels");
            }
        }

        /** The bytes of the str that comes next, checked to be strict UTF-8. */
        private byte[] utf8Bytes() throws IOException {
            int n = unpacker.unpackRawStringHeader();
            fits(n, "a str");
            byte[] bytes = unpacker.readPayload(n);
            try {
                utf8.reset().decode(ByteBuffer.wrap(bytes));
            } catch (CharacterCodingException e) {
                throw new FrameException("a str is not valid UTF-8");
            }
            return bytes;
        }

        private static String quote(byte[] key) {
            String s = new String(key, StandardCharsets.UTF_8);
            return "\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
        }
    }

    // ---------------------------------------------------------------------------------
    // Encoding: the bot's two messages (SPEC §6)

    // msgpack-core writes every int and str in its shortest format, so the fields in SPEC
    // order give the canonical bytes of SPEC §3.4 (the referee accepts any valid encoding).

    /** The body of {type: "hello", name, version, protocol: 1} (SPEC §6.1). */
    public static byte[] encodeHello(String name, String version) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            packer.packMapHeader(4);
            packer.packString("type").packString("hello");
            packer.packString("name").packString(name);
            packer.packString("version").packString(version);
            packer.packString("protocol").packInt(VERSION);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode hello", e); // never: it packs into memory
        }
    }

    /**
     * The body of {type: "action", request_id, choice} (SPEC §6.2). {@code requestId} is
     * unsigned, as {@link #asUnsignedLong} reads it: a negative long is 2^63 or more.
     */
    public static byte[] encodeAction(long requestId, long choice) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            packer.packMapHeader(3);
            packer.packString("type").packString("action");
            packer.packString("request_id");
            if (requestId >= 0) {
                packer.packLong(requestId);
            } else { // a uint64 (0xcf) of 2^63 or more
                packer.writePayload(ByteBuffer.allocate(9).put((byte) 0xcf).putLong(requestId).array());
            }
            packer.packString("choice").packLong(choice);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode action", e);
        }
    }

    /** Any value as one msgpack body, keys in their order (the tests encode the JSON vectors with it). */
    public static byte[] encode(Value message) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            packer.packValue(message);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode a message", e);
        }
    }

    // ---------------------------------------------------------------------------------
    // Reading fields by name (never by position; unknown keys are simply not looked at)

    /** The value of {@code key} in {@code map}, or null if {@code map} is not a map or lacks the key. */
    public static Value get(Value map, String key) {
        if (map == null || !map.isMapValue()) {
            return null;
        }
        Value[] kvs = map.asMapValue().getKeyValueArray();
        for (int i = 0; i < kvs.length; i += 2) {
            if (isStr(kvs[i], key)) {
                return kvs[i + 1];
            }
        }
        return null;
    }

    /** Whether {@code v} is a str equal to {@code s}. */
    public static boolean isStr(Value v, String s) {
        return v != null && v.isStringValue() && v.asStringValue().asString().equals(s);
    }

    /** {@code v} as a Java String, or null if it is not a str. */
    public static String str(Value v) {
        return v != null && v.isStringValue() ? v.asStringValue().asString() : null;
    }

    /** Whether {@code v} is an int (any msgpack int format) that fits a long. */
    public static boolean isLong(Value v) {
        return v != null && v.isIntegerValue() && v.asIntegerValue().isInLongRange();
    }

    /** {@code v} as a long if it is an int that fits one (a bool or a float is not), else {@code otherwise}. */
    public static long asLong(Value v, long otherwise) {
        return isLong(v) ? v.asIntegerValue().toLong() : otherwise;
    }

    /** Whether {@code v} is an int from 0 to 2^64 - 1 (a request_id, SPEC §5.3). */
    public static boolean isUnsignedLong(Value v) {
        if (v == null || !v.isIntegerValue()) {
            return false;
        }
        IntegerValue i = v.asIntegerValue();
        return i.isInLongRange() ? i.toLong() >= 0 : i.toBigInteger().bitLength() <= 64;
    }

    /**
     * {@code v} as an unsigned 64-bit int in a long's bits if it is an int from 0 to
     * 2^64 - 1, else {@code otherwise}: from 2^63 on the long is negative
     * ({@code Long.toUnsignedString} prints it).
     */
    public static long asUnsignedLong(Value v, long otherwise) {
        if (!isUnsignedLong(v)) {
            return otherwise;
        }
        IntegerValue i = v.asIntegerValue();
        return i.isInLongRange() ? i.toLong() : i.toBigInteger().longValue();
    }

    /** {@code asLong(get(map, key), otherwise)}. */
    public static long getLong(Value map, String key, long otherwise) {
        return asLong(get(map, key), otherwise);
    }
}
