package ono;

import org.msgpack.value.ImmutableMapValue;

/**
 * What a {@code game_start} says (SPEC §5.2), kept for the game's acts.
 *
 * @param seat    the bot's seat, 0 .. players-1 (-1 before the first game_start)
 * @param players seats at the table
 * @param edition "2022" or "1980" ("" if missing)
 * @param format  "single", "tokens" or "points" ("" if missing)
 * @param gameId  the game's id, for logs
 * @param msg     the whole game_start message (names, options, hand, clock ...), or null;
 *                read it with {@link Protocol#get}
 */
public record Game(int seat, int players, String edition, String format, String gameId, ImmutableMapValue msg) {

    /** Before the first game_start. */
    public static final Game NONE = new Game(-1, 0, "", "", "", null);

    /** The game a game_start message announces; missing or odd fields get neutral values. */
    public static Game from(ImmutableMapValue msg) {
        long seat = Protocol.getLong(msg, "seat", -1);
        long players = Protocol.getLong(msg, "players", 0);
        return new Game(
                seat >= 0 && seat < 1000 ? (int) seat : -1,
                players > 0 && players < 1000 ? (int) players : 0,
                orEmpty(Protocol.str(Protocol.get(msg, "edition"))),
                orEmpty(Protocol.str(Protocol.get(msg, "format"))),
                orEmpty(Protocol.str(Protocol.get(msg, "game_id"))),
                msg);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
