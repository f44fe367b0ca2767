// Tests of strategy.go: the moves on the golden acts (the same as the C kit's),
// the moves the heuristic promises, and a valid index for many random acts.
package main

import (
	"bytes"
	"math/rand"
	"testing"
)

func gameFrom(t *testing.T, vector string) GameInfo {
	t.Helper()
	msg, err := ReadMessage(bytes.NewReader(readVector(t, vector, ".bin")), MaxIncomingFrame)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGameStart(msg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func actFrom(t *testing.T, vector string) Act {
	t.Helper()
	msg, err := ReadMessage(bytes.NewReader(readVector(t, vector, ".bin")), MaxIncomingFrame)
	if err != nil {
		t.Fatal(err)
	}
	act, err := ParseAct(msg)
	if err != nil {
		t.Fatal(err)
	}
	return act
}

func TestStrategyOnGoldenActs(t *testing.T) {
	for _, tc := range []struct {
		game, act string
		want      Legal
	}{
		{"game_start_2022_single", "act_2022_single", Legal{KindPlay, "7"}},          // highest number
		{"game_start_2022_single", "act_2022_single_owes_two", Legal{KindPlay, "3"}}, // total 25: no need to defend
		{"game_start_1980_points", "act_1980_points_bust", Legal{KindBust, "10"}},    // the most points
		{"game_start_2022_tokens", "act_2022_tokens_quad", Legal{KindQuad, ""}},      // the only action
	} {
		g := gameFrom(t, tc.game)
		act := actFrom(t, tc.act)
		GameStart(&g)
		choice := Choose(&g, &act)
		if choice < 0 || choice >= len(act.Legal) || act.Legal[choice] != tc.want {
			t.Errorf("%s: chose %d of %v, want %v", tc.act, choice, act.Legal, tc.want)
		}
	}
}

func plays(cards ...string) []Legal {
	var out []Legal
	for _, c := range cards {
		out = append(out, Legal{KindPlay, c})
	}
	return out
}

func TestStrategyMoves(t *testing.T) {
	g2022 := GameInfo{Seat: 0, Players: 3, Edition: "2022", Format: "single"}
	g1980 := GameInfo{Seat: 0, Players: 3, Edition: "1980", Format: "single"}
	for _, tc := range []struct {
		name string
		game GameInfo
		act  Act
		want Legal
	}{
		{"quad first", g2022, Act{Total: 90, Owes: 1, PlayersInGame: 3,
			Legal: append(plays("5", "-10"), Legal{KindQuad, ""})}, Legal{KindQuad, ""}},
		{"ONO 99 on tens (1980)", g1980, Act{Total: 40, Owes: 1, PlayersInGame: 3,
			Legal: plays("9", "99", "H")}, Legal{KindPlay, "99"}},
		{"highest number while low", g2022, Act{Total: 20, Owes: 1, PlayersInGame: 3,
			Legal: plays("0", "2", "9", "R", "P2", "-10")}, Legal{KindPlay, "9"}},
		{"highest number that fits, even high", g2022, Act{Total: 90, Owes: 1, PlayersInGame: 3,
			Legal: plays("0", "3", "8", "-10")}, Legal{KindPlay, "8"}},
		{"no number: the cheapest escape", g2022, Act{Total: 95, Owes: 1, PlayersInGame: 3,
			Legal: plays("-10", "P2", "R", "0")}, Legal{KindPlay, "0"}},
		{"-10 last", g2022, Act{Total: 95, Owes: 1, PlayersInGame: 3,
			Legal: plays("-10", "P2")}, Legal{KindPlay, "P2"}},
		{"owing two when high: pass it on with a Reverse", g2022, Act{Total: 80, Owes: 2, PlayersInGame: 3,
			Legal: plays("2", "P2", "R")}, Legal{KindPlay, "R"}},
		{"owing two, two players: Reverse is no answer, Play 2 is", g2022, Act{Total: 80, Owes: 2, PlayersInGame: 2,
			Legal: plays("2", "R", "P2")}, Legal{KindPlay, "P2"}},
		{"owing two when high, no answer: the lowest number", g2022, Act{Total: 80, Owes: 2, PlayersInGame: 2,
			Legal: plays("2", "6", "R")}, Legal{KindPlay, "2"}},
		{"owing two when low: play normally", g2022, Act{Total: 30, Owes: 2, PlayersInGame: 3,
			Legal: plays("2", "6", "P2")}, Legal{KindPlay, "6"}},
		{"1980: Hold answers a Double Play", g1980, Act{Total: 85, Owes: 2, PlayersInGame: 3,
			Legal: plays("R", "H", "4")}, Legal{KindPlay, "H"}},
		{"1980: Double Play is no answer", g1980, Act{Total: 85, Owes: 2, PlayersInGame: 3,
			Legal: plays("DP", "4")}, Legal{KindPlay, "4"}},
		{"bust with the most expensive card", g1980, Act{Total: 97, Owes: 1, PlayersInGame: 3,
			Legal: []Legal{{KindBust, "4"}, {KindBust, "DP"}, {KindBust, "10"}}}, Legal{KindBust, "DP"}},
		{"a bust offered next to plays comes last (R4.2)", g2022, Act{Total: 90, Owes: 1, PlayersInGame: 3,
			Legal: []Legal{{KindPlay, "2"}, {KindPlay, "8"}, {KindBust, "9"}}}, Legal{KindPlay, "8"}},
		{"unknown kind after known ones", g2022, Act{Total: 10, Owes: 1, PlayersInGame: 3,
			Legal: []Legal{{"pass", ""}, {KindPlay, "0"}}}, Legal{KindPlay, "0"}},
	} {
		choice := Choose(&tc.game, &tc.act)
		if choice < 0 || choice >= len(tc.act.Legal) || tc.act.Legal[choice] != tc.want {
			t.Errorf("%s: chose %d of %v, want %v", tc.name, choice, tc.act.Legal, tc.want)
		}
	}
}

func TestStrategyAlwaysValid(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cards := []string{"0", "1", "2", "5", "9", "10", "99", "R", "-10", "P2", "H", "DP", "X", ""}
	kinds := []string{KindPlay, KindPlay, KindPlay, KindBust, KindQuad, "future"}
	editions := []string{"2022", "1980", ""}
	for i := 0; i < 5000; i++ {
		g := GameInfo{Seat: 0, Players: 2 + rng.Intn(5), Edition: editions[rng.Intn(3)]}
		act := Act{Total: int64(rng.Intn(120) - 20), Owes: int64(1 + rng.Intn(2)), PlayersInGame: 1 + rng.Intn(6)}
		for n := 1 + rng.Intn(5); n > 0; n-- {
			act.Legal = append(act.Legal, Legal{kinds[rng.Intn(len(kinds))], cards[rng.Intn(len(cards))]})
		}
		if c := Choose(&g, &act); c < 0 || c >= len(act.Legal) {
			t.Fatalf("chose %d of %v", c, act.Legal)
		}
	}
}
