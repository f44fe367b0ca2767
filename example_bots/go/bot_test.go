// The bot end to end, as a process talking frames on its stdin and stdout.
//
// Every test runs twice: with the test binary itself as the bot (TestMain below
// turns it into the bot, so the code under test is always the current one), and
// with ./bot, the binary build.sh made, when it exists (test.sh builds it first).
package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

const runAsBotEnv = "GO_HEURISTIC_TEST_RUN_AS_BOT"

func TestMain(m *testing.M) {
	if os.Getenv(runAsBotEnv) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

const waitLimit = 5 * time.Second

type botProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan frameOrError
	stderr *bytes.Buffer
	exited chan struct{}
}

type frameOrError struct {
	msg Map
	err error // io.EOF: stdout closed cleanly between frames
}

// forEachBot runs test against the test binary as the bot, and against ./bot.
func forEachBot(t *testing.T, test func(t *testing.T, start func() *botProcess)) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bots := []struct{ name, program string }{{"self", self}, {"./bot", "./bot"}}
	for _, b := range bots {
		t.Run(b.name, func(t *testing.T) {
			if b.program == "./bot" {
				if _, err := os.Stat("bot"); err != nil {
					t.Skip("no ./bot: run ./build.sh (test.sh does) to test the built binary too")
				}
			}
			test(t, func() *botProcess { return startBot(t, b.program, b.program == self) })
		})
	}
}

func startBot(t *testing.T, program string, self bool) *botProcess {
	t.Helper()
	cmd := exec.Command(program)
	if self {
		cmd.Env = append(os.Environ(), runAsBotEnv+"=1")
	}
	p := &botProcess{t: t, cmd: cmd, frames: make(chan frameOrError, 100),
		stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start %s: %v", program, err)
	}
	go func() {
		for {
			// the referee's view: frames from a bot are at most max_frame (4096 bytes)
			msg, err := ReadMessage(stdout, DefaultMaxFrame)
			p.frames <- frameOrError{msg, err}
			if err != nil {
				break
			}
		}
		close(p.frames)
		_ = cmd.Wait() // after the last read: Wait closes the pipe
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("the bot's stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func (p *botProcess) send(frames ...[]byte) {
	for _, f := range frames {
		if _, err := p.stdin.Write(f); err != nil {
			p.t.Fatalf("writing to the bot: %v", err)
		}
	}
}

// next is the bot's next message; it fails the test on a timeout or bad frame.
func (p *botProcess) next(what string) Map {
	p.t.Helper()
	select {
	case f, ok := <-p.frames:
		if !ok || f.err == io.EOF {
			p.t.Fatalf("%s: the bot closed its stdout", what)
		}
		if f.err != nil {
			p.t.Fatalf("%s: bad frame from the bot: %v", what, f.err)
		}
		return f.msg
	case <-time.After(waitLimit):
		p.t.Fatalf("%s: no message from the bot within %v", what, waitLimit)
	}
	return nil
}

// expectEnd checks that stdout ends cleanly with nothing more on it.
func (p *botProcess) expectEnd(what string) {
	p.t.Helper()
	select {
	case f, ok := <-p.frames:
		if ok && f.err != io.EOF {
			p.t.Fatalf("%s: more output after the last answer: %v %v", what, f.msg, f.err)
		}
	case <-time.After(waitLimit):
		p.t.Fatalf("%s: stdout still open after %v", what, waitLimit)
	}
}

// exitCode waits for the bot to exit (at most limit) and returns its status.
func (p *botProcess) exitCode(what string, limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(limit):
		p.t.Fatalf("%s: the bot did not exit within %v", what, limit)
	}
	return p.cmd.ProcessState.ExitCode()
}

func checkHello(t *testing.T, msg Map) {
	t.Helper()
	if problem := refereeCheck(msg, "hello", 0, 0); problem != "" {
		t.Fatalf("the bot's hello %v: %s", msg, problem)
	}
	if name, _ := GetStr(msg, "name"); name != BotName {
		t.Fatalf("the bot's hello says name %q, want %q", name, BotName)
	}
}

func checkAction(t *testing.T, msg Map, actVector string) {
	t.Helper()
	act := actFrom(t, actVector)
	if problem := refereeCheck(msg, "action", act.RequestID, len(act.Legal)); problem != "" {
		t.Fatalf("%s: the bot's answer %v: %s", actVector, msg, problem)
	}
}

// sessionFrames are the referee's frames of the golden session, and its acts.
func sessionFrames(t *testing.T) (frames [][]byte, acts []string) {
	t.Helper()
	for _, name := range loadIndex(t).Session {
		if name == nil || *name == "bot_hello" || strings.HasPrefix(*name, "action_") {
			continue
		}
		frames = append(frames, readVector(t, *name, ".bin"))
		if strings.HasPrefix(*name, "act_") {
			acts = append(acts, *name)
		}
	}
	return frames, acts
}

func TestBotWholeSessionAtOnce(t *testing.T) {
	forEachBot(t, func(t *testing.T, start func() *botProcess) {
		frames, acts := sessionFrames(t)
		bot := start()
		bot.send(bytes.Join(frames, nil)) // as `cat *.bin | ./bot` would
		_ = bot.stdin.Close()
		checkHello(t, bot.next("hello"))
		for _, act := range acts {
			checkAction(t, bot.next(act), act)
		}
		bot.expectEnd("after bye")
		if code := bot.exitCode("after bye", 2*time.Second); code != 0 {
			t.Fatalf("exit status %d after bye, want 0", code)
		}
	})
}

func TestBotSessionInPiecesExitsOnBye(t *testing.T) {
	forEachBot(t, func(t *testing.T, start func() *botProcess) {
		frames, acts := sessionFrames(t)
		stream := bytes.Join(frames, nil)
		bot := start()
		for i := 0; i < len(stream); i += 5 {
			bot.send(stream[i:min(i+5, len(stream))])
		}
		// stdin stays open: the bot must leave on bye alone (SPEC §4.4)
		checkHello(t, bot.next("hello"))
		for _, act := range acts {
			checkAction(t, bot.next(act), act)
		}
		if code := bot.exitCode("after bye", 2*time.Second); code != 0 {
			t.Fatalf("exit status %d after bye, want 0", code)
		}
	})
}

func TestBotMessageByMessage(t *testing.T) {
	forEachBot(t, func(t *testing.T, start func() *botProcess) {
		bot := start()
		started := time.Now()
		bot.send(readVector(t, "referee_hello", ".bin"))
		checkHello(t, bot.next("hello"))
		t.Logf("hello after %v", time.Since(started))
		// a message type of a later version is ignored (SPEC §10.2)
		future, err := msgpack.Marshal(map[string]any{"type": "future", "extra": []int{1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		bot.send(frameOf(t, future), readVector(t, "game_start_2022_single", ".bin"))
		for _, act := range []string{"act_2022_single", "act_2022_single_owes_two"} {
			bot.send(readVector(t, act, ".bin"))
			checkAction(t, bot.next(act), act)
		}
		bot.send(readVector(t, "game_over_2022_single", ".bin"), readVector(t, "bye", ".bin"))
		if code := bot.exitCode("after bye", 2*time.Second); code != 0 {
			t.Fatalf("exit status %d after bye, want 0", code)
		}
	})
}

func TestBotEndOfStdinWithoutBye(t *testing.T) {
	forEachBot(t, func(t *testing.T, start func() *botProcess) {
		bot := start()
		bot.send(readVector(t, "referee_hello", ".bin"))
		checkHello(t, bot.next("hello"))
		bot.send(readVector(t, "game_start_2022_single", ".bin"))
		_ = bot.stdin.Close()
		bot.expectEnd("end of stdin")
		if code := bot.exitCode("end of stdin", 2*time.Second); code != 0 {
			t.Fatalf("exit status %d at the end of stdin, want 0", code)
		}
	})
}

func TestBotRefusesBrokenInput(t *testing.T) {
	mismatch, err := msgpack.Marshal(map[string]any{"type": "hello", "protocol": 2, "game": "ono99"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		hello    bool // the referee's hello first
		input    []byte
		endStdin bool
	}{
		{"a length prefix of 16 MiB + 1", true, []byte{0x01, 0x00, 0x00, 0x01}, false},
		{"invalid msgpack", true, readVector(t, "bad_frame_invalid_msgpack", ".bin"), false},
		{"a frame cut by the end of stdin", true, readVector(t, "act_2022_single", ".bin")[:20], true},
		{"protocol 2", false, frameOf(t, mismatch), false},
	}
	forEachBot(t, func(t *testing.T, start func() *botProcess) {
		for _, tc := range cases {
			bot := start()
			if tc.hello {
				bot.send(readVector(t, "referee_hello", ".bin"))
				checkHello(t, bot.next(tc.name+": hello"))
				bot.send(readVector(t, "game_start_2022_single", ".bin"))
			}
			bot.send(tc.input)
			if tc.endStdin {
				_ = bot.stdin.Close()
			}
			bot.expectEnd(tc.name)
			if code := bot.exitCode(tc.name, 2*time.Second); code == 0 {
				t.Errorf("%s: exit status 0, want an error", tc.name)
			}
		}
	})
}
