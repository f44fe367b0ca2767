package ono;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.Value;

/** The kit's framing and codec against the golden vectors of protocol/vectors/ (SPEC §12). */
class ProtocolTest {

    /** Vectors with a .bin and a .json: canonical, accept, and the bot-side bad_* (valid frames, wrong content). */
    static Stream<String> pairs() {
        return Vectors.all().stream().filter(Vectors::hasJson);
    }

    /** The vectors the referee would write exactly so (and the accept set, which is canonical too, but one). */
    static Stream<String> wellFormed() {
        return pairs().filter(n -> !n.startsWith("bad_"));
    }

    static Stream<String> canonical() {
        return Vectors.set("canonical").stream();
    }

    static Stream<String> badFrames() {
        return Vectors.set("reject").stream().filter(n -> n.startsWith("bad_frame_"));
    }

    static Stream<String> actions() {
        return canonical().filter(n -> n.startsWith("action_"));
    }

    /** Read exactly one message from bytes that should hold one whole frame and nothing else. */
    static ImmutableMapValue decodeOne(byte[] bytes) throws IOException {
        InputStream in = new ByteArrayInputStream(bytes);
        ImmutableMapValue message = Protocol.readMessage(in, Protocol.MAX_INCOMING);
        assertNotNull(message, "a message");
        assertNull(Protocol.readMessage(in, Protocol.MAX_INCOMING), "nothing after the frame");
        return message;
    }

    static byte[] frameOf(String hex) {
        byte[] body = HexFormat.of().parseHex(hex);
        return Protocol.frame(body);
    }

    // --- the vectors --------------------------------------------------------------

    @Test
    void theVectorsAreThere() {
        List<String> pairs = pairs().toList();
        assertTrue(pairs.size() >= 20, "only " + pairs.size() + " vectors with .json in " + Vectors.DIR);
        for (String name : Stream.concat(Vectors.set("canonical").stream(), Vectors.set("accept").stream()).toList()) {
            assertTrue(pairs.contains(name), name + " has a .bin and a .json");
        }
        List<String> files = Vectors.all().stream().filter(n -> n.startsWith("bad_frame_")).toList();
        assertEquals(files, badFrames().sorted().toList(), "every bad_frame_* file is in index.json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void decodeBinEqualsJson(String name) throws IOException {
        assertEquals(Vectors.json(name), decodeOne(Vectors.bin(name)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void decodeEncodeJsonRoundTrips(String name) throws IOException {
        Value message = Vectors.json(name);
        assertEquals(message, decodeOne(Protocol.frame(Protocol.encode(message))));
    }

    /** Canonical vectors must come out byte for byte; ok_action_noncanonical is written in another form on purpose. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("wellFormed")
    void encodeJsonEqualsBin(String name) {
        byte[] encoded = Protocol.frame(Protocol.encode(Vectors.json(name)));
        if (name.equals("ok_action_noncanonical")) {
            assertFalse(java.util.Arrays.equals(encoded, Vectors.bin(name)), name + " is not canonical");
        } else {
            assertArrayEquals(Vectors.bin(name), encoded, "encoding " + name + ".json does not give " + name + ".bin");
        }
    }

    // --- the bot's own messages ---------------------------------------------------

    @Test
    void encodeHelloEqualsBotHello() {
        Value hello = Vectors.json("bot_hello");
        byte[] body = Protocol.encodeHello(Protocol.str(Protocol.get(hello, "name")),
                Protocol.str(Protocol.get(hello, "version")));
        assertArrayEquals(Vectors.bin("bot_hello"), Protocol.frame(body));
    }

    @Test
    void encodeHelloWithALongUnicodeName() {
        Value hello = Vectors.json("ok_hello_unicode_name");
        String name = Protocol.str(Protocol.get(hello, "name"));
        assertEquals(64, name.codePointCount(0, name.length()), "64 code points");
        byte[] body = Protocol.encodeHello(name, Protocol.str(Protocol.get(hello, "version")));
        assertArrayEquals(Vectors.bin("ok_hello_unicode_name"), Protocol.frame(body));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("actions")
    void encodeActionEqualsBin(String name) {
        Value action = Vectors.json(name);
        byte[] body = Protocol.encodeAction(Protocol.getLong(action, "request_id", -1),
                Protocol.getLong(action, "choice", -1));
        assertArrayEquals(Vectors.bin(name), Protocol.frame(body));
    }

    @Test
    void writeFrameWritesOneWholeFrameAndFlushes() throws IOException {
        List<byte[]> writes = new ArrayList<>();
        int[] flushes = {0};
        java.io.OutputStream out = new java.io.OutputStream() {
            @Override
            public void write(int b) {
                writes.add(new byte[] {(byte) b});
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writes.add(java.util.Arrays.copyOfRange(b, off, off + len));
            }

            @Override
            public void flush() {
                flushes[0]++;
            }
        };
        Protocol.writeFrame(out, Protocol.encodeAction(1, 1));
        assertEquals(1, writes.size(), "one write");
        assertArrayEquals(Vectors.bin("action_2022_single"), writes.get(0));
        assertEquals(1, flushes[0], "one flush");
    }

    // --- frames in pieces -----------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("canonical")
    void aFrameSplitAtEveryByte(String name) throws IOException {
        byte[] bytes = Vectors.bin(name);
        Value expected = Vectors.json(name);
        for (int cut = 0; cut <= bytes.length; cut++) {
            Vectors.Pieces in = new Vectors.Pieces(bytes, 0, cut);
            assertEquals(expected, Protocol.readMessage(in, Protocol.MAX_INCOMING), "cut at " + cut);
            assertNull(Protocol.readMessage(in, Protocol.MAX_INCOMING), "cut at " + cut + ": then the end");
        }
    }

    @Test
    void theGoldenSessionInOneChunkOneByteAtATimeAndInOddPieces() throws IOException {
        List<String> session = Vectors.session();
        byte[] stream = Vectors.concat(session);
        List<Value> expected = session.stream().map(Vectors::json).toList();
        assertEquals(expected, readAll(new ByteArrayInputStream(stream)), "one chunk");
        Vectors.Pieces bytewise = new Vectors.Pieces(stream, 1);
        assertEquals(expected, readAll(bytewise), "one byte at a time");
        assertEquals(stream.length, bytewise.reads(), "each read got one byte");
        for (int chunk : new int[] {2, 3, 5, 7, 61, 1000, 1 << 20}) {
            assertEquals(expected, readAll(new Vectors.Pieces(stream, chunk)), "chunks of " + chunk);
        }
    }

    static List<Value> readAll(InputStream in) throws IOException {
        List<Value> out = new ArrayList<>();
        for (Value m; (m = Protocol.readMessage(in, Protocol.MAX_INCOMING)) != null; ) {
            out.add(m);
        }
        return out;
    }

    @Test
    void aStreamThatEndsInsideAFrame() throws IOException {
        byte[] act = Vectors.bin("act_2022_single");
        for (int end : new int[] {1, 3, 4, 5, 100, act.length - 1}) {
            InputStream in = new ByteArrayInputStream(act, 0, end);
            Protocol.FrameException e = assertThrows(Protocol.FrameException.class,
                    () -> Protocol.readMessage(in, Protocol.MAX_INCOMING), "ends after " + end + " bytes");
            assertTrue(e.getMessage().contains("stream ended"), e.getMessage());
        }
        assertNull(Protocol.readMessage(new ByteArrayInputStream(new byte[0]), Protocol.MAX_INCOMING),
                "an empty stream is the end of the session, not an error");
    }

    // --- broken frames ----------------------------------------------------------------

    /** The referee's default limit on bot frames is 4096 bytes (hello.limits.max_frame, SPEC §3.3). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badFrames")
    void aBrokenFrameIsRefused(String name) {
        InputStream in = new ByteArrayInputStream(Vectors.bin(name));
        assertThrows(Protocol.FrameException.class, () -> Protocol.readMessage(in, Protocol.DEFAULT_MAX_FRAME));
    }

    @Test
    void aLengthAboveTheLimitIsRefusedFromThePrefixAlone() {
        for (long n : new long[] {Protocol.MAX_INCOMING + 1L, 0xFFFFFFFFL}) {
            byte[] prefix = ByteBuffer.allocate(4).putInt((int) n).array();
            Vectors.Pieces in = new Vectors.Pieces(prefix, 0);
            Protocol.FrameException e = assertThrows(Protocol.FrameException.class,
                    () -> Protocol.readMessage(in, Protocol.MAX_INCOMING));
            assertTrue(e.getMessage().contains("exceeds the limit"), e.getMessage());
            assertTrue(e.getMessage().contains(Long.toString(n)), e.getMessage());
        }
    }

    @Test
    void aLengthOfExactly16MiBIsAccepted() throws IOException {
        // A 16 MiB body: a map {"pad": str32 of 16 MiB - 13 bytes}.
        int n = Protocol.MAX_INCOMING;
        int pad = n - 1 - 4 - 5 - 3; // fixmap, fixstr "pad", str32 header, one more key's worth
        ByteArrayOutputStream frame = new ByteArrayOutputStream(n + 4);
        frame.writeBytes(ByteBuffer.allocate(4).putInt(n).array());
        frame.write(0x82);
        frame.writeBytes(HexFormat.of().parseHex("a3706164")); // "pad"
        frame.write(0xdb);
        frame.writeBytes(ByteBuffer.allocate(4).putInt(pad).array());
        frame.writeBytes(new byte[pad]);
        frame.writeBytes(HexFormat.of().parseHex("a17801")); // "x": 1
        byte[] bytes = frame.toByteArray();
        assertEquals(n + 4, bytes.length);
        ImmutableMapValue m = Protocol.readMessage(new Vectors.Pieces(bytes, 65536), Protocol.MAX_INCOMING);
        assertEquals(1, Protocol.getLong(m, "x", -1));
        assertEquals(pad, Protocol.get(m, "pad").asStringValue().asByteArray().length);
    }

    @Test
    void zeroLengthAndEmptyBodyAreRefused() {
        assertThrows(Protocol.FrameException.class,
                () -> Protocol.readMessage(new ByteArrayInputStream(new byte[4]), Protocol.MAX_INCOMING));
        assertThrows(Protocol.FrameException.class, () -> Protocol.decode(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> Protocol.frame(new byte[0]));
    }

    @Test
    void bodiesThatBreakSpec32() {
        String[] bad = {
            "01",                       // an int, not a map
            "90",                       // an array
            "c0",                       // nil
            "810102",                   // {1: 2}: an int key
            "81c40161" + "01",          // {bin "a": 1}: a bin key
            "81a1ff01",                 // {"\xff": 1}: invalid UTF-8 in a key
            "81a178a2c328",             // {"x": "\xc3("}: invalid UTF-8 in a value
            "81a178a3eda080",           // {"x": a UTF-16 surrogate in UTF-8}
            "81a178a2c0af",             // {"x": an overlong "/"}
            "81a16182a16201a16202",     // {a: {b: 1, b: 2}}: a key twice in a nested map
            "82a16101a16102",           // {a: 1, a: 2}
            "81a17491d6ff00000000",     // {t: [timestamp 0]}: ext type -1
            "81a178c70105ff",           // {x: ext8 type 5}
            "81a178c1",                 // 0xc1, never used
            "81a178",                   // a map cut short
            "81a17801ff",               // a byte left over
            "80c0",                     // two values
            "81a178dd7fffffff",         // an array announcing 2^31-1 items in 8 bytes
            "81a178db7fffffff",         // a str announcing 2 GiB
            "81a178c67fffffff",         // a bin announcing 2 GiB
            "df7fffffff",               // a map announcing 2^31-1 entries
        };
        for (String hex : bad) {
            byte[] f = frameOf(hex);
            assertThrows(Protocol.FrameException.class,
                    () -> Protocol.readMessage(new ByteArrayInputStream(f), Protocol.MAX_INCOMING), hex);
        }
    }

    @Test
    void nestingIsBoundedNotRecursedWithoutLimit() throws IOException {
        int depth = 100_000;
        byte[] body = new byte[depth + 3];
        body[0] = (byte) 0x81;
        body[1] = (byte) 0xa1;
        body[2] = 'x';
        java.util.Arrays.fill(body, 3, body.length - 1, (byte) 0x91); // [[[[...
        body[body.length - 1] = (byte) 0xc0;
        Protocol.FrameException e = assertThrows(Protocol.FrameException.class, () -> Protocol.decode(body));
        assertTrue(e.getMessage().contains("nested deeper"), e.getMessage());
        // The depth v1 uses, and far more, is fine.
        byte[] ok = new byte[3 + 500 + 1];
        System.arraycopy(body, 0, ok, 0, 3);
        java.util.Arrays.fill(ok, 3, ok.length - 1, (byte) 0x91);
        ok[ok.length - 1] = (byte) 0xc0;
        assertNotNull(Protocol.decode(ok));
    }

    // --- values as the bot sees them -------------------------------------------------

    @Test
    void integersInAnyWidthAreLongs() throws IOException {
        ImmutableMapValue m = decodeOne(Vectors.bin("ok_action_noncanonical"));
        assertTrue(Protocol.isStr(Protocol.get(m, "type"), "action"));
        assertEquals(1, Protocol.getLong(m, "request_id", -1));
        assertEquals(0, Protocol.getLong(m, "choice", -1));
        ImmutableMapValue big = decodeOne(frameOf("82a161cfffffffffffffffffa162d38000000000000000"));
        assertFalse(Protocol.isLong(Protocol.get(big, "a")), "uint64 max does not fit a long");
        assertEquals(Long.MIN_VALUE, Protocol.getLong(big, "b", 0));
    }

    /**
     * SPEC §5.3: request_id is a msgpack uint up to 2^64 - 1, copied unchanged. The kit
     * read it as a long: an act with an id of 2^63 or more could not be answered.
     */
    @Test
    void requestIdsUpToTheLargestUint64AreAnsweredUnchanged() throws Exception {
        String[] ids = {"01", "cf7fffffffffffffff", "cf8000000000000000", "cfffffffffffffffff"};
        for (String id : ids) {
            // {"type": "act", "request_id": id, "legal": [{"kind": "quad"}]}
            Act act = Act.from(decodeOne(frameOf("83a474797065a3616374aa726571756573745f6964" + id
                    + "a56c6567616c9181a46b696e64a471756164")));
            byte[] body = Protocol.encodeAction(act.requestId(), 0);
            assertEquals("83a474797065a6616374696f6eaa726571756573745f6964" + id + "a663686f69636500",
                    HexFormat.of().formatHex(body), "request_id " + id);
        }
    }

    @Test
    void floatsAndBoolsAreNotInts() throws IOException {
        ImmutableMapValue f = decodeOne(Vectors.bin("bad_action_choice_float"));
        assertTrue(Protocol.get(f, "choice").isFloatValue());
        assertEquals(-1, Protocol.getLong(f, "choice", -1));
        ImmutableMapValue b = decodeOne(Vectors.bin("bad_action_choice_bool"));
        assertEquals(-1, Protocol.getLong(b, "choice", -1));
    }

    @Test
    void unknownKeysAreKeptAndHarmless() throws IOException {
        ImmutableMapValue m = decodeOne(Vectors.bin("ok_action_extra_key"));
        assertEquals(1, Protocol.getLong(m, "request_id", -1));
        assertNull(Protocol.get(m, "no such key"));
        assertNull(Protocol.get(Protocol.get(m, "request_id"), "type"), "get on a non-map is null");
    }

    @Test
    void actsAndGameStartsAsRecords() throws Exception {
        Act act = Act.from(Vectors.map("act_2022_single"));
        assertEquals(1, act.requestId());
        assertEquals(8, act.total());
        assertEquals(1, act.owes());
        assertEquals(1, act.direction());
        assertEquals(3, act.playersInGame());
        assertEquals(List.of("3", "7", "99", "R"), act.hand());
        assertEquals(List.of(new Act.Legal(Act.Kind.PLAY, "3"), new Act.Legal(Act.Kind.PLAY, "7"),
                new Act.Legal(Act.Kind.PLAY, "R")), act.legal());
        assertEquals(1000, act.decisionMs());

        Act quad = Act.from(Vectors.map("act_2022_tokens_quad"));
        assertEquals(List.of(new Act.Legal(Act.Kind.QUAD, "")), quad.legal());
        assertEquals(320, quad.decisionMs());

        Act bust = Act.from(Vectors.map("act_1980_points_bust"));
        assertEquals(Act.Kind.BUST, bust.legal().get(2).kind());
        assertEquals("10", bust.legal().get(2).card());

        Game g = Game.from(Vectors.map("game_start_1980_points"));
        assertEquals(2, g.seat());
        assertEquals(4, g.players());
        assertEquals("1980", g.edition());
        assertEquals("points", g.format());

        assertThrows(Act.BadAct.class, () -> Act.from(decodeOne(frameOf("81a474797065a3616374"))));
    }
}
