package ono;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;

/**
 * End to end: start the bot with bot.toml's run command, in this folder, as the referee
 * would, and talk to it in frames. Needs ./build.sh to have run (test.sh does it).
 */
class BotTest {
    static final long TIMEOUT_MS = 10_000;

    /** bot.toml's run line, split into words (it holds no quotes: see bot.toml). */
    static List<String> runCommand() throws IOException {
        for (String line : Files.readAllLines(Vectors.KIT.resolve("bot.toml"), StandardCharsets.UTF_8)) {
            line = line.strip();
            if (line.startsWith("run") && line.substring(3).strip().startsWith("=")) {
                String value = line.substring(line.indexOf('=') + 1).strip();
                assertTrue(value.startsWith("\"") && value.endsWith("\""), "run is a plain TOML string");
                value = value.substring(1, value.length() - 1);
                assertTrue(value.matches("[^'\"\\\\$`|;&<>*?]+"), "run needs no shell: " + value);
                return List.of(value.split("\\s+"));
            }
        }
        throw new IllegalStateException("bot.toml has no run line");
    }

    @BeforeAll
    static void built() {
        assertTrue(Files.exists(Vectors.KIT.resolve("out/ono/Bot.class")), "out/ is missing: run ./build.sh first");
    }

    /** A running bot: frames in, messages out (read on a thread), stderr collected. */
    static final class BotProcess implements AutoCloseable {
        final Process process;
        final OutputStream stdin;
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>(); // Value, or an Exception at the end
        final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        final long startedNanos = System.nanoTime();
        private final Thread reader;
        private final Thread drainer;
        private static final Object END = new Object();

        BotProcess() throws IOException {
            this(runCommand());
        }

        BotProcess(List<String> command) throws IOException {
            ProcessBuilder pb = new ProcessBuilder(command).directory(Vectors.KIT.toFile());
            pb.environment().keySet().removeIf(k -> !k.equals("PATH")); // a clean environment, as the arena gives
            pb.environment().put("LANG", "C.UTF-8");
            process = pb.start();
            stdin = process.getOutputStream();
            reader = new Thread(() -> {
                InputStream out = process.getInputStream();
                try {
                    for (Value m; (m = Protocol.readMessage(out, Protocol.DEFAULT_MAX_FRAME)) != null; ) {
                        messages.add(m);
                    }
                    messages.add(END);
                } catch (IOException e) {
                    messages.add(e); // a broken frame from the bot: the test that waits for it fails
                }
            });
            drainer = new Thread(() -> {
                try {
                    process.getErrorStream().transferTo(stderr);
                } catch (IOException ignored) {
                    // the process went away
                }
            });
            reader.start();
            drainer.start();
        }

        void send(byte[]... frames) throws IOException {
            for (byte[] f : frames) {
                stdin.write(f);
            }
            stdin.flush();
        }

        void send(String... vectors) throws IOException {
            for (String name : vectors) {
                send(Vectors.bin(name));
            }
        }

        /** The bot's next message; fails after a timeout or at the end of its stdout. */
        Value next() throws Exception {
            Object m = messages.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (m == null) {
                fail("no message from the bot within " + TIMEOUT_MS + " ms; stderr: " + stderr());
            }
            if (m == END) {
                fail("the bot's stdout ended; stderr: " + stderr());
            }
            if (m instanceof Exception e) {
                throw e;
            }
            return (Value) m;
        }

        /** The exit status (fails after a timeout); checks that nothing but whole frames came out. */
        int exit(long ms) throws Exception {
            if (!process.waitFor(ms, TimeUnit.MILLISECONDS)) {
                fail("the bot did not exit within " + ms + " ms; stderr: " + stderr());
            }
            reader.join(TIMEOUT_MS);
            drainer.join(TIMEOUT_MS);
            Object last = messages.poll();
            if (last instanceof Exception e) {
                throw e;
            }
            assertTrue(last == END, "nothing more on stdout after the last answer, got " + last);
            return process.exitValue();
        }

        String stderr() {
            synchronized (stderr) {
                return stderr.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public void close() throws IOException {
            process.destroyForcibly();
            try {
                stdin.close();
            } catch (IOException ignored) {
                // the pipe is broken when the bot has gone
            }
        }
    }

    static void checkHello(Value m) {
        assertTrue(Protocol.isStr(Protocol.get(m, "type"), "hello"), "type hello: " + m);
        assertEquals(1, Protocol.getLong(m, "protocol", -1));
        assertTrue(Protocol.isStr(Protocol.get(m, "name"), "java-heuristic"), "name: " + m);
        assertTrue(Protocol.get(m, "version").isStringValue(), "version is a str");
    }

    /** Check an action answers `act` (a vector name); returns its choice. */
    static long checkAction(Value m, String act) {
        Value a = Vectors.json(act);
        assertTrue(Protocol.isStr(Protocol.get(m, "type"), "action"), "type action: " + m);
        assertEquals(Protocol.getLong(a, "request_id", -2), Protocol.getLong(m, "request_id", -1), "request_id");
        long choice = Protocol.getLong(m, "choice", -1);
        int n = Protocol.get(a, "legal").asArrayValue().size();
        assertTrue(choice >= 0 && choice < n, "choice " + choice + " of " + n);
        return choice;
    }

    static byte[] frameOf(Value message) {
        return Protocol.frame(Protocol.encode(message));
    }

    @Test
    void theGoldenSessionAtOnce() throws Exception {
        List<String> session = Vectors.refereeSession();
        try (BotProcess bot = new BotProcess()) {
            bot.send(Vectors.concat(session)); // as `cat *.bin | bot` would
            bot.stdin.close();
            checkHello(bot.next());
            List<Long> choices = new ArrayList<>();
            for (String name : session) {
                if (name.startsWith("act_")) {
                    choices.add(checkAction(bot.next(), name));
                }
            }
            assertEquals(List.of(1L, 0L, 2L, 0L), choices, "the heuristic's choices");
            assertEquals(0, bot.exit(TIMEOUT_MS), "exit status 0 after bye; stderr: " + bot.stderr());
        }
    }

    @Test
    void messageByMessageWithAnUnknownTypeAndByeWhileStdinIsOpen() throws Exception {
        try (BotProcess bot = new BotProcess()) {
            bot.send("referee_hello");
            checkHello(bot.next());
            try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
                p.packMapHeader(2).packString("type").packString("news_from_the_future");
                p.packString("extra").packArrayHeader(3).packInt(1).packInt(2).packInt(3);
                bot.send(Protocol.frame(p.toByteArray()));
            }
            bot.send("game_start_2022_single", "act_2022_single");
            checkAction(bot.next(), "act_2022_single");
            bot.send("act_2022_single_owes_two");
            checkAction(bot.next(), "act_2022_single_owes_two");
            bot.send("game_over_2022_single", "bye"); // stdin stays open: the bot must leave on bye alone
            assertEquals(0, bot.exit(2000), "exit 0 within 2 s of bye (SPEC §4.4)");
        }
    }

    @Test
    void theSessionInSmallPieces() throws Exception {
        byte[] stream = Vectors.concat(Vectors.refereeSession());
        try (BotProcess bot = new BotProcess()) {
            for (int i = 0; i < stream.length; i += 7) {
                bot.send(java.util.Arrays.copyOfRange(stream, i, Math.min(stream.length, i + 7)));
            }
            checkHello(bot.next());
            for (String name : Vectors.refereeSession()) {
                if (name.startsWith("act_")) {
                    checkAction(bot.next(), name);
                }
            }
            assertEquals(0, bot.exit(TIMEOUT_MS));
        }
    }

    @Test
    void exitsZeroAtTheEndOfStdinWithoutBye() throws Exception {
        try (BotProcess bot = new BotProcess()) {
            bot.send("referee_hello");
            checkHello(bot.next());
            bot.send("game_start_2022_single");
            bot.stdin.close();
            assertEquals(0, bot.exit(2000));
        }
    }

    @Test
    void refusesAnotherProtocol() throws Exception {
        Value hello = Vectors.json("referee_hello");
        Value[] kvs = hello.asMapValue().getKeyValueArray().clone();
        for (int i = 0; i < kvs.length; i += 2) {
            if (Protocol.isStr(kvs[i], "protocol")) {
                kvs[i + 1] = org.msgpack.value.ValueFactory.newInteger(2);
            }
        }
        try (BotProcess bot = new BotProcess()) {
            bot.send(frameOf(org.msgpack.value.ValueFactory.newMap(kvs)));
            assertNotEquals(0, bot.exit(TIMEOUT_MS), "non-zero exit");
            assertTrue(bot.stderr().contains("protocol 2"), bot.stderr());
        }
    }

    @Test
    void aBrokenFrameFromTheReferee() throws Exception {
        try (BotProcess bot = new BotProcess()) {
            bot.send("referee_hello");
            checkHello(bot.next());
            bot.send("bad_frame_invalid_msgpack");
            assertNotEquals(0, bot.exit(TIMEOUT_MS));
            assertTrue(bot.stderr().contains("bad frame"), bot.stderr());
        }
    }

    @Test
    void aLengthAbove16MiBIsRefusedAtOnce() throws Exception {
        try (BotProcess bot = new BotProcess()) {
            bot.send("referee_hello");
            checkHello(bot.next());
            bot.send(ByteBuffer.allocate(4).putInt(Protocol.MAX_INCOMING + 1).array()); // no body follows
            assertNotEquals(0, bot.exit(TIMEOUT_MS));
            assertTrue(bot.stderr().contains("exceeds the limit"), bot.stderr());
        }
    }

    /** The arena's limits: 4 GiB of address space, 256 processes; hello well within 10 s. */
    @Test
    void startsUnderTheArenaLimits() throws Exception {
        Path prlimit = Path.of("/usr/bin/prlimit");
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(prlimit)) {
            command.addAll(List.of(prlimit.toString(), "--as=4294967296", "--nproc=256", "--"));
        }
        command.addAll(runCommand());
        try (BotProcess bot = new BotProcess(command)) {
            bot.send("referee_hello");
            checkHello(bot.next());
            long ms = (System.nanoTime() - bot.startedNanos) / 1_000_000;
            System.err.println("BotTest: hello " + ms + " ms after the start"
                    + (command.get(0).equals(prlimit.toString()) ? " (under prlimit --as=4 GiB --nproc=256)" : ""));
            assertTrue(ms < 5000, "hello took " + ms + " ms; the arena allows 10 s");
            bot.send("game_start_2022_tokens", "act_2022_tokens_quad");
            assertEquals(0, checkAction(bot.next(), "act_2022_tokens_quad"));
            bot.send("bye");
            assertEquals(0, bot.exit(2000));
        }
    }

    @Test
    void nothingAfterTheAnswers() throws Exception {
        try (BotProcess bot = new BotProcess()) {
            bot.send("referee_hello", "bye");
            checkHello(bot.next());
            assertEquals(0, bot.exit(2000));
            assertNull(bot.messages.poll());
        }
    }
}
