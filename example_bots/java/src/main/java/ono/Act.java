package ono;

import java.util.ArrayList;
import java.util.List;

import org.msgpack.value.ImmutableMapValue;
import org.msgpack.value.Value;

/**
 * The parts of an {@code act} (SPEC §5.3, §7.3) a simple strategy needs. Everything else
 * (events, hand sizes, discard pile, scores, tokens, the bank ...) is in {@link #msg()}:
 * read it by key with {@link Protocol#get}, e.g.
 * {@code Protocol.get(Protocol.get(act.msg(), "observation"), "discard")}.
 *
 * @param requestId     copied into the answer by {@link Bot}: unsigned, up to 2^64 - 1 (SPEC §5.3),
 *                      so from 2^63 on a negative long ({@code Long.toUnsignedString} prints it)
 * @param total         observation.total (1980: may be negative)
 * @param owes          observation.owes: 1, or 2 after a Play 2 / Double Play
 * @param direction     observation.direction: 1 or -1
 * @param playersInGame how many seats observation.in_game marks true
 * @param hand          observation.hand, card codes in card order (SPEC §7.1)
 * @param legal         the legal actions (SPEC §7.2); the answer is an index into this list
 * @param decisionMs    clock.decision_ms, the time allowed for this decision, or -1
 * @param msg           the whole act message
 */
public record Act(long requestId, long total, long owes, long direction, int playersInGame,
                  List<String> hand, List<Legal> legal, long decisionMs, ImmutableMapValue msg) {

    /** The kinds of legal action (SPEC §7.2); UNKNOWN for a kind from a later version. */
    public enum Kind { PLAY, QUAD, BUST, UNKNOWN }

    /**
     * One entry of {@code act.legal}.
     *
     * @param kind what the action does
     * @param card the card for PLAY and BUST ("" for QUAD, or if the entry has no str card)
     */
    public record Legal(Kind kind, String card) {}

    /** An act that cannot be answered: no int request_id, or no legal array. */
    public static final class BadAct extends Exception {
        private static final long serialVersionUID = 1L;

        public BadAct(String message) {
            super(message);
        }
    }

    /** Read an act message. Missing observation fields get neutral values (total 0, owes 1 ...). */
    public static Act from(ImmutableMapValue msg) throws BadAct {
        Value requestId = Protocol.get(msg, "request_id");
        if (!Protocol.isUnsignedLong(requestId)) {
            throw new BadAct("an act without an int request_id");
        }
        Value legal = Protocol.get(msg, "legal");
        if (legal == null || !legal.isArrayValue()) {
            throw new BadAct("an act without a legal array");
        }
        Value obs = Protocol.get(msg, "observation");

        int inGame = 0;
        Value flags = Protocol.get(obs, "in_game");
        if (flags != null && flags.isArrayValue()) {
            for (Value flag : flags.asArrayValue()) {
                if (flag.isBooleanValue() && flag.asBooleanValue().getBoolean()) {
                    inGame++;
                }
            }
        }
        List<String> hand = new ArrayList<>();
        Value cards = Protocol.get(obs, "hand");
        if (cards != null && cards.isArrayValue()) {
            for (Value card : cards.asArrayValue()) {
                if (card.isStringValue()) {
                    hand.add(Protocol.str(card));
                }
            }
        }
        List<Legal> actions = new ArrayList<>();
        for (Value entry : legal.asArrayValue()) {
            String card = Protocol.str(Protocol.get(entry, "card"));
            actions.add(new Legal(kind(Protocol.get(entry, "kind")), card == null ? "" : card));
        }
        return new Act(
                Protocol.asUnsignedLong(requestId, -1),
                Protocol.getLong(obs, "total", 0),
                Protocol.getLong(obs, "owes", 1),
                Protocol.getLong(obs, "direction", 1),
                inGame,
                List.copyOf(hand),
                List.copyOf(actions),
                Protocol.getLong(Protocol.get(msg, "clock"), "decision_ms", -1),
                msg);
    }

    private static Kind kind(Value v) {
        String s = Protocol.str(v);
        if (s == null) {
            return Kind.UNKNOWN;
        }
        switch (s) {
            case "play":
                return Kind.PLAY;
            case "quad":
                return Kind.QUAD;
            case "bust":
                return Kind.BUST;
            default:
                return Kind.UNKNOWN; // a later version's kind: still choosable by index
        }
    }
}
