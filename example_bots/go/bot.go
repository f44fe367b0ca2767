// bot.go - the message loop of the Go starter bot for the ONO 99 arena.
//
// Reads frames from stdin, answers the referee's hello and every act, and
// exits with status 0 on bye or at the end of stdin (SPEC §4). Diagnostics go
// to stderr; stdout carries frames only. The choice itself is made in
// strategy.go, the framing and checks are in protocol.go.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// BotName is the name in the hello (1 to 64 characters, SPEC §6.1); keep it
// equal to the name in bot.toml.
const BotName = "go-heuristic"

// BotVersion is free text, shown in logs.
const BotVersion = "1.0"

func main() {
	// A referee that has gone away must give us a write error to report, not
	// kill us with SIGPIPE (Go's default for a broken stdout).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

// run plays one session: it reads messages from in, writes frames to out and
// diagnostics to logw, and returns the exit status.
func run(in io.Reader, out io.Writer, logw io.Writer) int {
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, BotName+": "+format+"\n", args...)
	}
	send := func(body []byte, err error) bool {
		if err == nil {
			err = WriteFrame(out, body)
		}
		if err != nil {
			logf("cannot write a frame to stdout: %v; exiting", err)
			return false
		}
		return true
	}

	// Buffered reading is safe: the referee never waits for us to read more
	// than one message ahead, and ReadFrame takes exactly what it needs.
	reader := bufio.NewReaderSize(in, 64*1024)
	game := GameInfo{Seat: -1}
	for {
		msg, err := ReadMessage(reader, MaxIncomingFrame)
		if err == io.EOF {
			logf("end of stdin; exiting")
			return 0
		}
		if err != nil {
			logf("bad frame from the referee: %v; exiting", err)
			return 1
		}
		msgType, _ := GetStr(msg, "type")
		switch msgType {
		case "hello":
			protocol, _ := GetInt(msg, "protocol")
			gameName, _ := GetStr(msg, "game")
			if protocol != ProtocolVersion || gameName != "ono99" {
				logf("the referee speaks protocol %v of %q; this bot speaks protocol %d of ono99; exiting",
					msg["protocol"], gameName, ProtocolVersion)
				return 1
			}
			if !send(EncodeHello(BotName, BotVersion)) {
				return 1
			}
		case "game_start":
			game, err = ParseGameStart(msg)
			if err != nil {
				logf("%v", err)
			}
			logf("game %s: edition %s, format %s, seat %d of %d",
				game.GameID, game.Edition, game.Format, game.Seat, game.Players)
			GameStart(&game)
		case "act":
			act, err := ParseAct(msg)
			if err != nil {
				logf("cannot answer an act: %v; exiting", err)
				return 1
			}
			started := time.Now()
			choice := decide(&game, &act, logf)
			if used := time.Since(started); act.DecisionMs >= 0 &&
				used > time.Duration(act.DecisionMs)*time.Millisecond/2 {
				logf("request %d: the decision took %v of %d ms", act.RequestID, used, act.DecisionMs)
			}
			if !send(EncodeAction(act.RequestID, int64(choice))) {
				return 1
			}
		case "game_over":
			place := int64(0)
			if places, ok := GetList(msg, "places"); ok && game.Seat >= 0 && game.Seat < len(places) {
				place, _ = places[game.Seat].(int64)
			}
			logf("game %s over: place %d", game.GameID, place)
		case "bye":
			return 0
		default:
			// a message type of a later version: ignored (SPEC §10.2)
			logf("ignoring a message of type %q", msgType)
		}
	}
}

// decide asks the strategy and makes sure the answer is a valid index whatever
// it does: a bug in the strategy costs a bad move, not an "illegal" fault.
func decide(g *GameInfo, act *Act, logf func(string, ...any)) (choice int) {
	defer func() {
		if r := recover(); r != nil {
			logf("strategy failed on request %d: %v; playing index 0", act.RequestID, r)
			choice = 0
		}
	}()
	choice = Choose(g, act)
	if choice < 0 || choice >= len(act.Legal) {
		logf("strategy chose %d of %d actions; playing index 0", choice, len(act.Legal))
		choice = 0
	}
	return choice
}
