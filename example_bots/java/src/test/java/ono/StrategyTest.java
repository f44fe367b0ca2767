package ono;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Strategy.choose always returns a valid index, and makes the moves the heuristic promises. */
class StrategyTest {
    private final Strategy strategy = new Strategy();
    private static final Game G2022 = new Game(0, 3, "2022", "single", "t", null);
    private static final Game G1980 = new Game(0, 3, "1980", "points", "t", null);

    static Act act(long total, long owes, int inGame, String... legal) {
        List<Act.Legal> actions = new ArrayList<>();
        for (String a : legal) {
            if (a.equals("quad")) {
                actions.add(new Act.Legal(Act.Kind.QUAD, ""));
            } else if (a.startsWith("bust ")) {
                actions.add(new Act.Legal(Act.Kind.BUST, a.substring(5)));
            } else if (a.startsWith("?")) {
                actions.add(new Act.Legal(Act.Kind.UNKNOWN, ""));
            } else {
                actions.add(new Act.Legal(Act.Kind.PLAY, a));
            }
        }
        return new Act(1, total, owes, 1, inGame, List.of(), actions, 1000, null);
    }

    String pick(Game g, Act a) {
        Act.Legal chosen = a.legal().get(strategy.choose(g, a));
        return chosen.kind() == Act.Kind.PLAY ? chosen.card() : chosen.kind().name().toLowerCase()
                + (chosen.card().isEmpty() ? "" : " " + chosen.card());
    }

    @Test
    void theGoldenActs() throws Exception {
        // The same choices as the C kit on the acts of the golden session.
        assertEquals(1, choose("act_2022_single", "game_start_2022_single"));          // the 7
        assertEquals(0, choose("act_2022_single_owes_two", "game_start_2022_single")); // the 3: total 25 is low
        assertEquals(2, choose("act_1980_points_bust", "game_start_1980_points"));     // bust the 10
        assertEquals(0, choose("act_2022_tokens_quad", "game_start_2022_tokens"));     // quad
    }

    private int choose(String act, String gameStart) throws Act.BadAct {
        Game g = Game.from(Vectors.map(gameStart));
        return strategy.choose(g, Act.from(Vectors.map(act)));
    }

    @Test
    void highestNumberWhileTheTotalIsLow() {
        assertEquals("9", pick(G2022, act(10, 1, 3, "0", "3", "9", "R", "-10", "P2")));
        assertEquals("1", pick(G2022, act(90, 1, 3, "R", "1", "-10")));
    }

    @Test
    void escapeCardsCheapestFirstMinusTenLast() {
        assertEquals("0", pick(G2022, act(95, 1, 3, "-10", "P2", "R", "0")));
        assertEquals("R", pick(G2022, act(95, 1, 3, "-10", "P2", "R")));
        assertEquals("P2", pick(G2022, act(95, 1, 3, "-10", "P2")));
        assertEquals("H", pick(G1980, act(95, 1, 3, "-10", "DP", "H")));
        assertEquals("-10", pick(G2022, act(95, 1, 3, "-10")));
    }

    @Test
    void owingTwoAtAHighTotalPassesTheObligationOn() {
        assertEquals("R", pick(G2022, act(80, 2, 3, "2", "R", "P2")));
        assertEquals("P2", pick(G2022, act(80, 2, 2, "2", "R", "P2")), "a Reverse is a 0 with two players left");
        assertEquals("H", pick(G1980, act(80, 2, 3, "2", "R", "H")));
        assertEquals("2", pick(G1980, act(80, 2, 3, "2", "9", "-10")), "the lowest number, leaving room");
        assertEquals("9", pick(G2022, act(40, 2, 3, "2", "9", "R", "P2")), "not at a low total");
    }

    @Test
    void quadOnoNinetyNineAndBusts() {
        assertEquals("quad", pick(G2022, act(10, 1, 3, "5", "quad")));
        assertEquals("99", pick(G1980, act(30, 1, 3, "5", "99", "H")));
        assertEquals("bust DP", pick(G1980, act(95, 1, 3, "bust 8", "bust DP", "bust 10")));
        assertEquals("bust 10", pick(G1980, act(95, 1, 3, "bust 8", "bust 9", "bust 10")));
        // R4.2 [ruling]: a points player may bust on purpose; it costs 25 points.
        assertEquals("8", pick(G2022, act(90, 1, 3, "2", "8", "bust 9")));
        assertEquals("-10", pick(G1980, act(90, 1, 3, "-10", "bust DP", "bust 9")));
    }

    @Test
    void unknownCardsAndKindsStillGiveAnIndex() {
        assertEquals("XYZ", pick(G2022, act(95, 1, 3, "?", "XYZ")));
        assertEquals(0, strategy.choose(G2022, act(95, 1, 3, "?")));
    }

    @Test
    void alwaysAValidIndex() {
        String[] cards = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "R", "-10", "P2", "H", "DP",
            "quad", "bust 7", "bust R", "?new", "Z"};
        Random random = new Random(99);
        for (int i = 0; i < 20_000; i++) {
            int n = 1 + random.nextInt(6);
            String[] legal = new String[n];
            for (int k = 0; k < n; k++) {
                legal[k] = cards[random.nextInt(cards.length)];
            }
            Game g = random.nextBoolean() ? G2022 : G1980;
            Act a = act(random.nextInt(120) - 20, 1 + random.nextInt(2), 2 + random.nextInt(5), legal);
            int choice = strategy.choose(g, a);
            assertTrue(choice >= 0 && choice < n, "choice " + choice + " of " + n);
        }
    }

    @Test
    void cardHelpers() {
        assertEquals(10, Strategy.numberValue("10"));
        assertEquals(0, Strategy.numberValue("0"));
        assertEquals(-1, Strategy.numberValue("99"));
        assertEquals(-1, Strategy.numberValue("-10"));
        assertEquals(-1, Strategy.numberValue("P2"));
        assertEquals(20, Strategy.handPoints("99"));
        assertEquals(15, Strategy.handPoints("DP"));
        assertEquals(7, Strategy.handPoints("7"));
    }
}
