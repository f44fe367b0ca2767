package ono;

/**
 * A simple heuristic for ONO 99, the same as the C kit's strategy.c. This is the file
 * to change: the protocol code only needs {@link #choose} to return an index into
 * {@code act.legal()}.
 *
 * <p>Every legal action gets a score; the highest wins (the first on a tie):
 * <ol>
 *   <li>"quad" (2022: discard four ONO 99): they are dead cards otherwise.</li>
 *   <li>an ONO 99 offered as a play (1980 "ONO on tens"): also a dead card.</li>
 *   <li>when owing two cards at a high total: answer with Hold, Reverse or Play 2,
 *       passing the obligation on (R7.2, R7.5).</li>
 *   <li>number cards 1..10: the highest, pushing the total up for the next player; but
 *       when owing two at a high total, the lowest, to leave room for the second card.</li>
 *   <li>escape cards ("0", "H", "R", "P2"/"DP", "-10"), cheapest first: they are kept
 *       for when nothing else fits. -10 is the most precious.</li>
 *   <li>a bust (points format, R9.3): last of all, since busting costs 25 points; it may
 *       be offered next to plays (R4.2), but is chosen only when nothing else is: throw
 *       away the card worth most points.</li>
 * </ol>
 * Every entry of the legal list is allowed (SPEC §7.2), so "a played number keeps the
 * total at 98 or less" is already guaranteed by the referee.
 *
 * <p>One Strategy object lives as long as the bot process, which may play many games
 * (SPEC §4.5): fields of this class may keep memory between games.
 */
public class Strategy {

    /** From this total on, the bot defends (see 3 and 4 above). */
    static final int HIGH_TOTAL = 75;

    /** Called at each game_start. */
    public void gameStart(Game game) {
        // nothing to remember in this simple bot
    }

    /** Return an index into {@code act.legal()}: 0 <= index < act.legal().size(). */
    public int choose(Game game, Act act) {
        int best = 0;
        int bestScore = Integer.MIN_VALUE;
        for (int i = 0; i < act.legal().size(); i++) {
            int s = score(game, act, act.legal().get(i));
            if (s > bestScore) {
                best = i;
                bestScore = s;
            }
        }
        return best;
    }

    static int score(Game game, Act act, Act.Legal action) {
        boolean defending = act.total() >= HIGH_TOTAL;
        boolean owesTwo = act.owes() >= 2;
        switch (action.kind()) {
            case QUAD:
                return 1000;
            case BUST:
                return 20 + handPoints(action.card()); // below every play (the lowest is 50)
            case UNKNOWN:
                return 10; // an action kind from a later protocol version
            case PLAY:
            default:
                break;
        }
        String card = action.card();
        if (card.equals("99")) {
            return 900;
        }
        int answer = answerValue(game, act, card);
        if (owesTwo && defending && answer > 0) {
            return 800 + answer;
        }
        int v = numberValue(card);
        if (v > 0) {
            return owesTwo && defending ? 300 + (20 - v) : 300 + v;
        }
        int keep = keepValue(card);
        if (keep > 0) {
            return 200 - keep;
        }
        return 50; // a card code this bot does not know
    }

    /** A number card "0".."10": its value; -1 for any other card (ONO 99 is not a number card). */
    static int numberValue(String card) {
        if (card.isEmpty() || card.length() > 2 || card.equals("99")) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < card.length(); i++) {
            char c = card.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** The card's points at the end of a points round (RULES.md, Hand scoring). */
    static int handPoints(String card) {
        int v = numberValue(card);
        if (v >= 0) {
            return v;
        }
        switch (card) {
            case "99":
                return 20;
            case "R":
            case "-10":
            case "P2":
            case "H":
            case "DP":
                return 15;
            default:
                return 0;
        }
    }

    /** How much an escape card is worth keeping: the lowest is spent first; 0 if it is none. */
    static int keepValue(String card) {
        switch (card) {
            case "0":
                return 1;
            case "H":
                return 2;
            case "R":
                return 3;
            case "P2":
            case "DP":
                return 4;
            case "-10":
                return 5;
            default:
                return 0;
        }
    }

    /** How good {@code card} is as an answer to a Play 2 / Double Play (0: it is none). */
    static int answerValue(Game game, Act act, String card) {
        switch (card) {
            case "H":
                return 3; // 1980: a Hold does nothing else
            case "R":
                return act.playersInGame() > 2 ? 2 : 0; // with two players left a Reverse is just a 0 (R6.4)
            case "P2":
                return game.edition().equals("1980") ? 0 : 1; // keep Play 2 if possible: it answers with two players too
            default:
                return 0;
        }
    }
}
