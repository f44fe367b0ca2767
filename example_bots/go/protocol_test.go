// Tests of protocol.go against the golden vectors of protocol/vectors/ (SPEC §12).
//
//   - every vector with a .bin and a .json (bad_* aside): the .bin read with the
//     kit's frame reader and decoder equals the .json; key fields of referee
//     messages read through ParseAct / ParseGameStart; the bot's messages (hello,
//     action_*) encoded by the kit equal the .bin byte for byte;
//   - every bad_frame_* vector refused by the reader or decoder, and the
//     bad_hello_* / bad_action_* vectors refused by the referee's checks of SPEC §6
//     (re-implemented below), which the kit's own messages pass;
//   - frames in pieces: every canonical frame split at every byte, all of them
//     back to back in chunks of 1 byte to 1 MiB, and streams cut inside a frame.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
)

// vectorsDir is protocol/vectors of this repository, or $VECTORS.
func vectorsDir() string {
	if dir := os.Getenv("VECTORS"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "protocol", "vectors")
}

func readVector(t testing.TB, name, ext string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir(), name+ext))
	if err != nil {
		t.Fatalf("cannot read the golden vector: %v", err)
	}
	return data
}

// vectorNames lists the vectors (without extension) whose name starts with prefix.
func vectorNames(t testing.TB, prefix string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(vectorsDir(), prefix+"*.bin"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden vectors %s*.bin in %s (%v)", prefix, vectorsDir(), err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".bin"))
	}
	sort.Strings(names)
	return names
}

type vectorIndex struct {
	Session   []*string     `json:"session"`
	Canonical []indexVector `json:"canonical"`
	Accept    []indexVector `json:"accept"`
	Reject    []indexVector `json:"reject"`
}

type indexVector struct {
	Name    string `json:"name"`
	From    string `json:"from"`
	Error   string `json:"error"`
	Context struct {
		Expect     string `json:"expect"`
		RequestID  uint64 `json:"request_id"`
		LegalCount int    `json:"legal_count"`
	} `json:"context"`
}

func loadIndex(t testing.TB) vectorIndex {
	t.Helper()
	var idx vectorIndex
	if err := json.Unmarshal(readVector(t, "index", ".json"), &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	return idx
}

// parseJSON reads a .json vector into the value types DecodeBody produces.
func parseJSON(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("the .json does not parse: %v", err)
	}
	return fromJSON(t, v)
}

func fromJSON(t testing.TB, v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("number %s: %v", s, err)
			}
			return f
		}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("number %s: %v", s, err)
		}
		return u
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = fromJSON(t, x[i])
		}
		return out
	case map[string]any:
		out := make(Map, len(x))
		for k, e := range x {
			out[k] = fromJSON(t, e)
		}
		return out
	}
	return v // string, bool, nil
}

func frameOf(t testing.TB, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteFrame(&buf, body); err != nil {
		t.Fatalf("WriteFrame: %v", err)
	}
	return buf.Bytes()
}

// fromBot tells the bot's messages (hello with a name, action) from the referee's.
func fromBot(m Map) bool {
	typ, _ := GetStr(m, "type")
	_, named := m["name"]
	return typ == "action" || (typ == "hello" && named)
}

// --- 1. canonical and accepted vectors -----------------------------------------

func TestVectorsDecodeAndEncode(t *testing.T) {
	var checked int
	for _, name := range vectorNames(t, "") {
		if strings.HasPrefix(name, "bad_") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			bin := readVector(t, name, ".bin")
			want := parseJSON(t, readVector(t, name, ".json"))

			r := bytes.NewReader(bin)
			msg, err := ReadMessage(r, MaxIncomingFrame)
			if err != nil {
				t.Fatalf("ReadMessage: %v", err)
			}
			if _, err := ReadFrame(r, MaxIncomingFrame); err != io.EOF {
				t.Fatalf("after the frame: %v, want io.EOF", err)
			}
			if !reflect.DeepEqual(any(msg), want) {
				t.Fatalf("decode(bin) != json\n got: %#v\nwant: %#v", msg, want)
			}
			if fromBot(msg) {
				// ok_*: valid but not canonical on purpose (SPEC §3.4)
				if !strings.HasPrefix(name, "ok_") {
					checkEncoding(t, msg, bin)
				}
			} else {
				checkRefereeFields(t, name, msg)
			}
		})
		checked++
	}
	if checked < 19 {
		t.Fatalf("only %d vectors checked: is %s the golden vector folder?", checked, vectorsDir())
	}
}

// checkEncoding encodes a bot message with the kit and compares it with the .bin.
func checkEncoding(t *testing.T, msg Map, bin []byte) {
	t.Helper()
	var body []byte
	var err error
	if typ, _ := GetStr(msg, "type"); typ == "hello" {
		name, _ := GetStr(msg, "name")
		version, _ := GetStr(msg, "version")
		body, err = EncodeHello(name, version)
	} else {
		rid, ok1 := GetUint(msg, "request_id")
		choice, ok2 := GetInt(msg, "choice")
		if !ok1 || !ok2 {
			t.Fatalf("request_id and choice in the json: %v", msg)
		}
		body, err = EncodeAction(rid, choice)
	}
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if got := frameOf(t, body); !bytes.Equal(got, bin) {
		t.Fatalf("encoded frame differs from the .bin\n got: % x\nwant: % x", got, bin)
	}
}

func checkRefereeFields(t *testing.T, name string, msg Map) {
	t.Helper()
	switch typ, _ := GetStr(msg, "type"); typ {
	case "act":
		act, err := ParseAct(msg)
		if err != nil {
			t.Fatalf("ParseAct: %v", err)
		}
		rid, _ := GetUint(msg, "request_id")
		total, _ := GetInt(GetMap(msg, "observation"), "total")
		legal, _ := GetList(msg, "legal")
		if act.RequestID != rid || act.Total != total || len(act.Legal) != len(legal) {
			t.Fatalf("ParseAct: request_id %d, total %d, %d legal; message: %d, %d, %d",
				act.RequestID, act.Total, len(act.Legal), rid, total, len(legal))
		}
		for i, l := range act.Legal {
			if l.Kind == "" || (l.Kind != KindQuad && l.Card == "") {
				t.Fatalf("legal[%d] = %+v", i, l)
			}
		}
		if act.PlayersInGame < 2 || len(act.Hand) == 0 || act.DecisionMs < 0 {
			t.Fatalf("ParseAct: %+v", act)
		}
	case "game_start":
		g, err := ParseGameStart(msg)
		seat, _ := GetInt(msg, "seat")
		if err != nil || int64(g.Seat) != seat || g.Edition == "" || g.Format == "" || g.Players < 2 {
			t.Fatalf("ParseGameStart: %+v, %v", g, err)
		}
	}
}

// --- 2. refused vectors ---------------------------------------------------------

func TestBadFramesRefused(t *testing.T) {
	idx := loadIndex(t)
	listed := map[string]bool{}
	for _, v := range idx.Reject {
		listed[v.Name] = true
	}
	for _, name := range vectorNames(t, "bad_frame_") {
		if !listed[name] {
			t.Errorf("%s is not in index.json", name)
		}
		t.Run(name, func(t *testing.T) {
			// the referee's view of a bot frame: the default max_frame of 4096 bytes
			_, err := ReadMessage(bytes.NewReader(readVector(t, name, ".bin")), DefaultMaxFrame)
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("not refused with a FrameError: %v", err)
			}
			if name == "bad_frame_too_large" && !strings.Contains(err.Error(), "exceeds") {
				t.Fatalf("refused for the wrong reason: %v", err)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// refereeCheck is the referee's check of a bot message (SPEC §6.1, §6.2), as the
// reject vectors describe it; it returns "" or the error class of index.json.
func refereeCheck(msg Map, expect string, requestID uint64, legalCount int) string {
	if expect == "hello" {
		if p, present := msg["protocol"]; present {
			if n, ok := p.(int64); ok && n != ProtocolVersion {
				return "ProtocolMismatch"
			}
		}
		typ, _ := GetStr(msg, "type")
		name, nameOK := GetStr(msg, "name")
		_, versionOK := GetStr(msg, "version")
		protocol, protocolOK := GetInt(msg, "protocol")
		if typ != "hello" || !nameOK || !versionOK || !protocolOK || protocol != ProtocolVersion {
			return "MessageError"
		}
		if n := utf8.RuneCountInString(name); n < 1 || n > 64 {
			return "MessageError"
		}
		return ""
	}
	if typ, _ := GetStr(msg, "type"); typ != "action" {
		return "MessageError"
	}
	if rid, ok := GetUint(msg, "request_id"); !ok || rid != requestID {
		return "MessageError"
	}
	choice, present := msg["choice"]
	if !present {
		return "MessageError"
	}
	if n, ok := choice.(int64); !ok || n < 0 || n >= int64(legalCount) {
		return "IllegalChoice"
	}
	return ""
}

func TestRejectedMessagesAndTheKitsOwn(t *testing.T) {
	idx := loadIndex(t)
	for _, v := range idx.Reject {
		if strings.HasPrefix(v.Name, "bad_frame_") {
			continue // TestBadFramesRefused
		}
		msg, err := ReadMessage(bytes.NewReader(readVector(t, v.Name, ".bin")), DefaultMaxFrame)
		if err != nil {
			t.Errorf("%s: a valid frame, but: %v", v.Name, err)
			continue
		}
		c := v.Context
		if got := refereeCheck(msg, c.Expect, c.RequestID, c.LegalCount); got != v.Error {
			t.Errorf("%s: check gives %q, index.json says %q", v.Name, got, v.Error)
		}
	}
	for _, v := range idx.Accept {
		msg, err := ReadMessage(bytes.NewReader(readVector(t, v.Name, ".bin")), DefaultMaxFrame)
		c := v.Context
		if err != nil || refereeCheck(msg, c.Expect, c.RequestID, c.LegalCount) != "" {
			t.Errorf("%s: should be accepted: %v %v", v.Name, err, msg)
		}
	}
	// what this kit sends passes the same checks
	body, err := EncodeHello(BotName, BotVersion)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := DecodeBody(body); err != nil || refereeCheck(msg, "hello", 0, 0) != "" {
		t.Errorf("the kit's hello: %v %v", err, msg)
	}
	for _, tc := range []struct {
		rid    uint64
		choice int64
	}{{1, 0}, {255, 2}, {70000, 1}, {1 << 40, 5}, {1 << 63, 3}, {math.MaxUint64, 4}} {
		body, err := EncodeAction(tc.rid, tc.choice)
		if err != nil {
			t.Fatal(err)
		}
		if msg, err := DecodeBody(body); err != nil || refereeCheck(msg, "action", tc.rid, 6) != "" {
			t.Errorf("the kit's action %v: %v %v", tc, err, msg)
		}
	}
}

// SPEC §5.3: request_id is a msgpack uint up to 2^64 - 1, copied unchanged. The kit
// read it as an int64: an act with an id of 2^63 or more could not be answered.
func TestRequestIDsUpToTheLargestUint64(t *testing.T) {
	for _, rid := range []uint64{1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		msg, err := DecodeBody(packed(t, map[string]any{
			"type": "act", "request_id": rid, "legal": []any{map[string]any{"kind": "quad"}},
		}))
		if err != nil {
			t.Fatal(err)
		}
		act, err := ParseAct(msg)
		if err != nil || act.RequestID != rid {
			t.Fatalf("request_id %d: ParseAct gives %d, %v", rid, act.RequestID, err)
		}
		body, err := EncodeAction(act.RequestID, 0)
		if err != nil {
			t.Fatal(err)
		}
		answer, err := DecodeBody(body)
		if got, ok := GetUint(answer, "request_id"); err != nil || !ok || got != rid {
			t.Fatalf("request_id %d answered as %v (%v)", rid, answer["request_id"], err)
		}
	}
}

// --- other framing and body checks ----------------------------------------------

func packed(t testing.TB, v any) []byte {
	t.Helper()
	data, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestBodyChecks(t *testing.T) {
	deep := []byte{}
	for i := 0; i < MaxDepth+2; i++ {
		deep = append(deep, 0x81, 0xa1, 'k') // {"k": {"k": ...
	}
	deep = append(deep, 0xc0)
	cases := []struct {
		name string
		body []byte
		ok   bool
	}{
		{"empty map", []byte{0x80}, true},
		{"str8 key, int64 value", []byte{0x81, 0xd9, 1, 'a', 0xd3, 0, 0, 0, 0, 0, 0, 0, 7}, true},
		{"big uint64", []byte{0x81, 0xa1, 'a', 0xcf, 0xff, 0, 0, 0, 0, 0, 0, 0}, true},
		{"nil bool float bin", packed(t, map[string]any{"n": nil, "b": true, "f": 1.5, "x": []byte{1}}), true},
		{"empty body", []byte{}, false},
		{"nil", []byte{0xc0}, false},
		{"int key", []byte{0x81, 0x01, 0x02}, false},
		{"nested duplicate key", []byte{0x81, 0xa1, 'a', 0x82, 0xa1, 'b', 1, 0xa1, 'b', 2}, false},
		{"ext in an array", []byte{0x81, 0xa1, 'a', 0x91, 0xd4, 5, 0}, false},
		{"timestamp ext", []byte{0x81, 0xa1, 't', 0xd6, 0xff, 0, 0, 0, 0}, false},
		{"bad UTF-8 value in an array", []byte{0x81, 0xa1, 'a', 0x91, 0xa2, 0xc3, 0x28}, false},
		{"map32 announcing 2^32-1 entries", []byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a'}, false},
		{"array32 announcing 2^32-1 items", []byte{0x81, 0xa1, 'a', 0xdd, 0xff, 0xff, 0xff, 0xff}, false},
		{"bin32 announcing 4 GiB", []byte{0x81, 0xa1, 'a', 0xc6, 0xff, 0xff, 0xff, 0xff, 0}, false},
		{"str32 announcing 4 GiB", []byte{0x81, 0xa1, 'a', 0xdb, 0xff, 0xff, 0xff, 0xff, 0}, false},
		{"nested too deep", deep, false},
		{"two maps", []byte{0x80, 0x80}, false},
	}
	for _, tc := range cases {
		msg, err := DecodeBody(tc.body)
		var fe *FrameError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case !tc.ok && !errors.As(err, &fe):
			t.Errorf("%s: not refused with a FrameError: %v (%v)", tc.name, err, msg)
		}
	}
	msg, _ := DecodeBody([]byte{0x82, 0xa1, 'a', 0xcf, 0xff, 0, 0, 0, 0, 0, 0, 0, 0xa1, 'b', 0xcd, 0x27, 0x10})
	if msg["a"] != uint64(0xff00000000000000) || msg["b"] != int64(10000) {
		t.Errorf("ints: %#v", msg)
	}
}

func TestFrameLimits(t *testing.T) {
	prefix := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	// 16 MiB is accepted (and waited for); 16 MiB + 1 is refused at once
	_, err := ReadFrame(bytes.NewReader(prefix(MaxIncomingFrame)), MaxIncomingFrame)
	if err == nil || !strings.Contains(err.Error(), "stream ended") {
		t.Errorf("a 16 MiB prefix without its body: %v", err)
	}
	_, err = ReadFrame(bytes.NewReader(prefix(MaxIncomingFrame+1)), MaxIncomingFrame)
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("a 16 MiB + 1 prefix: %v", err)
	}
	_, err = ReadFrame(bytes.NewReader(prefix(0xffffffff)), MaxIncomingFrame)
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("a 4 GiB prefix: %v", err)
	}
	// a 16 MiB body: one map holding one str
	big := bytes.Repeat([]byte{'x'}, MaxIncomingFrame-8)
	body := append([]byte{0x81, 0xa1, 'a', 0xdb}, binary.BigEndian.AppendUint32(nil, uint32(len(big)))...)
	body = append(body, big...)
	frame := append(prefix(uint32(len(body))), body...)
	msg, err := ReadMessage(bytes.NewReader(frame), MaxIncomingFrame)
	if err != nil || len(msg["a"].(string)) != len(big) {
		t.Errorf("a frame of %d bytes: %v", len(body), err)
	}
	if err := WriteFrame(io.Discard, nil); err == nil {
		t.Errorf("WriteFrame of an empty body should fail")
	}
}

// --- 3. frames in pieces -----------------------------------------------------------

// pieceReader returns at most chunk bytes per Read; the first Read returns at
// most first bytes if first > 0.
type pieceReader struct {
	data  []byte
	chunk int
	first int
}

func (p *pieceReader) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	limit := p.chunk
	if p.first > 0 {
		limit, p.first = p.first, 0
	}
	n := min(len(b), limit, len(p.data))
	copy(b, p.data[:n])
	p.data = p.data[n:]
	return n, nil
}

// refereeFrames are the canonical referee frames, in session order.
func refereeFrames(t testing.TB) (names []string, frames [][]byte) {
	t.Helper()
	for _, v := range loadIndex(t).Canonical {
		if v.From == "referee" {
			names = append(names, v.Name)
			frames = append(frames, readVector(t, v.Name, ".bin"))
		}
	}
	if len(frames) < 10 {
		t.Fatalf("only %d referee frames in index.json", len(frames))
	}
	return names, frames
}

// readAll reads frames from r (directly, and through a bufio.Reader as the bot
// does) and checks they are want, in order, followed by a clean end.
func readAll(r io.Reader, want [][]byte) error {
	for i, w := range want {
		body, err := ReadFrame(r, MaxIncomingFrame)
		if err != nil {
			return fmt.Errorf("frame %d: %v", i, err)
		}
		if !bytes.Equal(body, w[4:]) {
			return fmt.Errorf("frame %d: other bytes", i)
		}
		if _, err := DecodeBody(body); err != nil {
			return fmt.Errorf("frame %d: %v", i, err)
		}
	}
	if _, err := ReadFrame(r, MaxIncomingFrame); err != io.EOF {
		return fmt.Errorf("after the last frame: %v, want io.EOF", err)
	}
	return nil
}

func TestFramesInPieces(t *testing.T) {
	names, frames := refereeFrames(t)
	splits := 0
	for i, frame := range frames {
		for k := 1; k < len(frame); k++ {
			if err := readAll(&pieceReader{data: frame, chunk: len(frame), first: k}, frames[i:i+1]); err != nil {
				t.Fatalf("%s split at byte %d: %v", names[i], k, err)
			}
			if err := readAll(bufio.NewReader(&pieceReader{data: frame, chunk: len(frame), first: k}), frames[i:i+1]); err != nil {
				t.Fatalf("%s split at byte %d, through bufio: %v", names[i], k, err)
			}
			splits++
		}
	}
	stream := bytes.Join(frames, nil)
	for _, chunk := range []int{1, 2, 3, 4, 5, 7, 13, 64, 1000, 1 << 20} {
		if err := readAll(&pieceReader{data: stream, chunk: chunk}, frames); err != nil {
			t.Fatalf("the stream in chunks of %d: %v", chunk, err)
		}
		if err := readAll(bufio.NewReaderSize(&pieceReader{data: stream, chunk: chunk}, 16), frames); err != nil {
			t.Fatalf("the stream in chunks of %d, through bufio: %v", chunk, err)
		}
	}
	// a stream cut anywhere inside a frame is an error, not a clean end
	for k := 1; k < len(frames[0]); k++ {
		_, err := ReadMessage(&pieceReader{data: frames[0][:k], chunk: 3}, MaxIncomingFrame)
		var fe *FrameError
		if !errors.As(err, &fe) {
			t.Fatalf("a frame cut after %d bytes: %v", k, err)
		}
	}
	t.Logf("%d frames split at every byte (%d splits), %d bytes back to back in chunks of 1 .. 1 MiB",
		len(frames), splits, len(stream))
}
