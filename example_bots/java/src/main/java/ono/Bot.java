package ono;

import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.Value;

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
            status = new Bot(new Strategy(), out, System.err).run(in);
        } catch (Throwable e) { // OutOfMemoryError included: say why, exit non-zero
            System.err.println(NAME + ": " + e);
            status = 1;
        }
        System.err.flush();
        System.exit(status);
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
            log.printf("%s: request %d: the decision took %d ms of %d%n",
                    NAME, act.requestId(), usedMs, act.decisionMs());
        }
        Protocol.writeFrame(out, Protocol.encodeAction(act.requestId(), choice));
        return true;
    }

    /** Ask the strategy, and make sure the answer is a valid index whatever it does. */
    private int decide(Act act) {
        int n = act.legal().size();
        if (n == 0) {
            log.println(NAME + ": act " + act.requestId() + " has no legal action; answering 0");
            return 0;
        }
        int choice;
        try {
            choice = strategy.choose(game, act);
        } catch (RuntimeException | StackOverflowError e) {
            log.println(NAME + ": the strategy failed on request " + act.requestId() + ", playing index 0: " + e);
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
