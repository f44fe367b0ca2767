package ono;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;

/**
 * The message loop of the Java starter bot for the ONO 99 arena (SPEC §4):
 *
 * <pre>
 *   referee: hello      -&gt; we answer hello {name, version, protocol: 1}
 *   referee: game_start -&gt; we remember the game (seat, edition, format ...)
 *   referee: act        -&gt; we answer action {request_id, choice}, choice from Strategy
 *   referee: game_over  -&gt; logged to stderr
 *   referee: bye        -&gt; exit 0 (and exit 0 as well at the end of stdin)
 * </pre>
 *
 * stdout carries frames only: {@code System.out} is pointed at stderr, so a stray
 * {@code System.out.println} cannot corrupt the stream. The choice is made in
 * {@link Strategy}; the framing is in {@link Protocol}.
 */
public final class Bot {
    /** Shown in results; 1 to 64 characters (SPEC §6.1). */
    public static final String NAME = "java-heuristic";
    public static final String VERSION = "1.0";

    private final Strategy strategy;
    private final OutputStream out;
    private final PrintStream log;
    private Game game = Game.NONE;

    public Bot(Strategy strategy, OutputStream out, PrintStream log) {
        this.strategy = strategy;
        this.out = out;
        this.log = log;
    }

    public static void main(String[] args) {
        InputStream in = new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16);
        OutputStream out = new FileOutputStream(FileDescriptor.out); // unbuffered: one write per frame
        System.setOut(System.err);
        int status;
        try {
            warmUp();
            status = new Bot(new Strategy(), out, System.err).run(in);
        } catch (Throwable e) { // OutOfMemoryError included: say why, exit non-zero
            System.err.println(NAME + ": " + e);
            status = 1;
        }
        System.err.flush();
        System.exit(status);
    }

    /**
     * Play a made-up session (a points game: a play, a quad, a bust) with every output
     * thrown away, before the hello: a fresh JVM loads and links some 270 classes the
     * first time it decodes a game_start and an act, formats a log line and chooses
     * (lambdas, records, Formatter), and that first act took about 25 ms: past a 20 ms
     * clock with no grace, in every game a fresh process plays (after a timeout, or
     * with --fresh-process). Start-up has 10 s (SPEC §8.4: start fast); this adds a few ms
     * to the hello and leaves the first act as quick as the others.
     */
    static void warmUp() {
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        for (Value m : warmUpSession()) {
            frames.writeBytes(Protocol.frame(Protocol.encode(m)));
        }
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        new Bot(new Strategy(), OutputStream.nullOutputStream(), sink)
                .run(new ByteArrayInputStream(frames.toByteArray()));
    }

    private static Value str(String s) {
        return ValueFactory.newString(s);
    }

    private static Value map(Object... kv) {
        Value[] values = new Value[kv.length];
        for (int i = 0; i < kv.length; i++) {
            Object o = kv[i];
            values[i] = o instanceof Value ? (Value) o
                    : o instanceof String ? str((String) o)
                    : o instanceof Boolean ? ValueFactory.newBoolean((Boolean) o)
                    : ValueFactory.newInteger(((Number) o).longValue());
        }
        return ValueFactory.newMap(values);
    }

    private static Value legal(String kind, String card) {
        return card == null ? map("kind", kind) : map("kind", kind, "card", card);
    }

    private static Value act(long requestId, long total, Value... legal) {
        Value hand = ValueFactory.newArray(str("3"), str("99"), str("R"), str("10"));
        Value flags = ValueFactory.newArray(ValueFactory.newBoolean(true), ValueFactory.newBoolean(true));
        Value obs = map("seat", 0, "hand", hand, "total", total, "direction", 1, "to_move", 0,
                "owes", 1, "in_game", flags, "in_round", flags, "scores", ValueFactory.newNil(),
                "round", 1, "plays", 1);
        return map("type", "act", "request_id", requestId, "observation", obs,
                "events", ValueFactory.newArray(), "clock", map("decision_ms", 1000, "bank_ms", ValueFactory.newNil()),
                "legal", ValueFactory.newArray(legal));
    }

    private static Value[] warmUpSession() {
        return new Value[] {
            map("type", "hello", "protocol", Protocol.VERSION, "game", "ono99"),
            map("type", "game_start", "game_id", "warm-up", "seat", 0, "players", 2,
                    "edition", "1980", "format", "points"),
            act(1, 8, legal("play", "3"), legal("play", "99"), legal("play", "R"), legal("play", "10")),
            act(2, 90, legal("quad", null), legal("play", "R")),
            act(3, 95, legal("bust", "3"), legal("bust", "99"), legal("bust", "R")),
            map("type", "game_over", "game_id", "warm-up", "places", ValueFactory.newArray(
                    ValueFactory.newInteger(1), ValueFactory.newInteger(2))),
            map("type", "bye"),
        };
    }

    /** Play one session: returns the exit status (0 after bye or at the end of the input). */
    public int run(InputStream in) {
        for (;;) {
            ImmutableMapValue msg;
            try {
                msg = Protocol.readMessage(in, Protocol.MAX_INCOMING);
            } catch (Protocol.FrameException e) {
                log.println(NAME + ": bad frame from the referee: " + e.getMessage() + "; exiting");
                return 1;
            } catch (IOException e) {
                log.println(NAME + ": cannot read stdin: " + e + "; exiting");
                return 1;
            }
            if (msg == null) {
                log.println(NAME + ": end of stdin; exiting");
                return 0;
            }
            try {
                String type = Protocol.str(Protocol.get(msg, "type"));
                if (type == null) {
                    type = "";
                }
                switch (type) {
                    case "hello":
                        if (!onHello(msg)) {
                            return 1;
                        }
                        break;
                    case "game_start":
                        game = Game.from(msg);
                        log.printf("%s: game %s: edition %s, format %s, seat %d of %d%n",
                                NAME, game.gameId(), game.edition(), game.format(), game.seat(), game.players());
                        strategy.gameStart(game);
                        break;
                    case "act":
                        if (!onAct(msg)) {
                            return 1;
                        }
                        break;
                    case "game_over":
                        Value places = Protocol.get(msg, "places");
                        long place = 0;
                        if (places != null && places.isArrayValue() && game.seat() >= 0
                                && game.seat() < places.asArrayValue().size()) {
                            place = Protocol.asLong(places.asArrayValue().get(game.seat()), 0);
                        }
                        log.printf("%s: game %s over: place %d%n", NAME, game.gameId(), place);
                        game = Game.NONE;
                        break;
                    case "bye":
                        return 0;
                    default:
                        break; // any other type: ignored (SPEC §10.2)
                }
            } catch (IOException e) {
                log.println(NAME + ": cannot write to stdout: " + e + "; exiting");
                return 1;
            }
        }
    }

    private boolean onHello(ImmutableMapValue msg) throws IOException {
        long protocol = Protocol.getLong(msg, "protocol", -1);
        if (protocol != Protocol.VERSION || !Protocol.isStr(Protocol.get(msg, "game"), "ono99")) {
            log.printf("%s: the referee speaks protocol %s of game %s; this bot speaks protocol %d"
                            + " of ono99; exiting%n",
                    NAME, Protocol.get(msg, "protocol"), Protocol.get(msg, "game"), Protocol.VERSION);
            return false;
        }
        Protocol.writeFrame(out, Protocol.encodeHello(NAME, VERSION));
        return true;
    }

    private boolean onAct(ImmutableMapValue msg) throws IOException {
        Act act;
        try {
            act = Act.from(msg);
        } catch (Act.BadAct e) {
            log.println(NAME + ": cannot answer an act: " + e.getMessage() + "; exiting");
            return false;
        }
        long started = System.nanoTime();
        int choice = decide(act);
        long usedMs = (System.nanoTime() - started) / 1_000_000;
        if (act.decisionMs() >= 0 && usedMs > act.decisionMs() / 2) {
            log.printf("%s: request %s: the decision took %d ms of %d%n",
                    NAME, Long.toUnsignedString(act.requestId()), usedMs, act.decisionMs());
        }
        Protocol.writeFrame(out, Protocol.encodeAction(act.requestId(), choice));
        return true;
    }

    /** Ask the strategy, and make sure the answer is a valid index whatever it does. */
    private int decide(Act act) {
        int n = act.legal().size();
        if (n == 0) {
            log.println(NAME + ": act " + Long.toUnsignedString(act.requestId()) + " has no legal action; answering 0");
            return 0;
        }
        int choice;
        try {
            choice = strategy.choose(game, act);
        } catch (RuntimeException | StackOverflowError e) {
            log.println(NAME + ": the strategy failed on request " + Long.toUnsignedString(act.requestId())
                    + ", playing index 0: " + e);
            e.printStackTrace(log);
            return 0;
        }
        if (choice < 0 || choice >= n) {
            log.println(NAME + ": the strategy chose " + choice + " of " + n + " actions; playing index 0");
            return 0;
        }
        return choice;
    }
}
