// strategy.go - a simple heuristic for ONO 99. This is the file to change: the
// rest of the kit only needs Choose to return an index into act.Legal.
//
// It is the heuristic of the C kit (example_bots/c/strategy.c), so that the
// starter kits play alike. Every legal action gets a score; the highest wins
// (the first on a tie):
//  1. "quad" (2022: discard four ONO 99) - they are dead cards otherwise.
//  2. an ONO 99 offered as a play (1980 "ONO on tens") - also a dead card.
//  3. when owing two cards at a high total: answer with Hold, Reverse or
//     Play 2, passing the obligation on (R7.2, R7.5).
//  4. number cards 1..10: the highest, pushing the total up for the next
//     player; but when owing two at a high total, the lowest, to leave room
//     for the second card.
//  5. escape cards ("0", "H", "R", "P2"/"DP", "-10"), cheapest first: they
//     are kept for when nothing else fits. -10 is the most precious.
//  6. a bust (points format, R9.3): last of all, since busting costs 25
//     points; it may be offered next to plays (R4.2), but is chosen only
//     when nothing else is: throw away the card worth most points.
//
// Every entry of the legal list is allowed (SPEC §7.2), so "a played number
// keeps the total <= 98" is already guaranteed by the referee.
package main

import "math"

// HighTotal is the total from which the bot defends (see 3 and 4 above).
const HighTotal = 75

// GameStart is called at each game_start (g.Seat, g.Edition, g.Format ...).
func GameStart(g *GameInfo) {
	// nothing to remember in this simple bot
}

// Choose returns an index into act.Legal, 0 <= index < len(act.Legal).
func Choose(g *GameInfo, act *Act) int {
	best, bestScore := 0, math.MinInt
	for i := range act.Legal {
		if s := score(g, act, act.Legal[i]); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// numberValue is the value of a number card "0".."10"; ONO 99 is not one.
func numberValue(card string) (int, bool) {
	if len(card) == 0 || len(card) > 2 || card == "99" {
		return 0, false
	}
	v := 0
	for _, c := range card {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// handPoints is the card's points at the end of a points round (RULES.md,
// Hand scoring).
func handPoints(card string) int {
	if v, ok := numberValue(card); ok {
		return v
	}
	switch card {
	case "99":
		return 20
	case "R", "-10", "P2", "H", "DP":
		return 15
	}
	return 0
}

// keepValue is how much an escape card is worth keeping: the lowest is spent
// first; 0 if the card is not an escape card.
func keepValue(card string) int {
	switch card {
	case "0":
		return 1
	case "H":
		return 2
	case "R":
		return 3
	case "P2", "DP":
		return 4
	case "-10":
		return 5
	}
	return 0
}

// answerValue is how good card is as an answer to a Play 2 / Double Play
// (0: it is none).
func answerValue(g *GameInfo, a *Act, card string) int {
	switch {
	case card == "H":
		return 3 // 1980: a Hold does nothing else
	case card == "R" && a.PlayersInGame > 2:
		return 2 // with two players left a Reverse is just a 0 (R6.4)
	case card == "P2" && g.Edition != "1980":
		return 1 // keep Play 2 if possible: it answers with two players too
	}
	return 0
}

func score(g *GameInfo, a *Act, act Legal) int {
	defending := a.Total >= HighTotal
	owesTwo := a.Owes >= 2

	switch act.Kind {
	case KindQuad:
		return 1000
	case KindBust:
		return 20 + handPoints(act.Card) // below every play (the lowest is 50)
	case KindPlay:
	default:
		return 10 // an action kind from a later protocol version
	}
	card := act.Card
	if card == "99" {
		return 900
	}
	if owesTwo && defending && answerValue(g, a, card) > 0 {
		return 800 + answerValue(g, a, card)
	}
	if v, ok := numberValue(card); ok && v > 0 {
		if owesTwo && defending {
			return 300 + (20 - v)
		}
		return 300 + v
	}
	if k := keepValue(card); k > 0 {
		return 200 - k
	}
	return 50 // a card code this bot does not know
}
