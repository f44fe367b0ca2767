// protocol.go - the wire protocol v1 of the ONO 99 arena (protocol/SPEC.md).
//
// Framing (SPEC §3): a 4-byte big-endian length N, then N bytes holding one
// msgpack map. This file reads and writes frames, checks bodies the way
// SPEC §3.2 asks, looks map keys up by name, and turns game_start and act
// messages into plain Go structs (GameInfo, Act) that strategy.go can use
// without touching msgpack.
//
// All msgpack encoding and decoding is done by github.com/vmihailenco/msgpack/v5.
// The library's generic decoder (DecodeInterface) would accept bin map keys,
// ext values, duplicate keys and invalid UTF-8 without a word, so DecodeBody
// walks the body value by value with the library's typed calls (PeekCode,
// DecodeMapLen, DecodeString ...) and checks each of them.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// ProtocolVersion is the protocol this kit speaks (SPEC §10.1).
const ProtocolVersion = 1

// MaxIncomingFrame is the largest frame body the referee ever sends (SPEC §3.3:
// a bot SHOULD accept any N up to 16 MiB). Longer frames are refused as soon as
// their length prefix has arrived; the body is never read.
const MaxIncomingFrame = 16 * 1024 * 1024

// DefaultMaxFrame is the referee's default limit for frames from a bot
// (hello.limits.max_frame, SPEC §3.3, §8.1): 4 KiB. A hello or action comes
// nowhere near it.
const DefaultMaxFrame = 4096

// MaxDepth bounds the nesting of maps and arrays in a body. v1 messages nest at
// most 4 levels (SPEC §3.2); the Python codec refuses more than 1024.
const MaxDepth = 1024

// Map is a decoded msgpack map. Its values are nil, bool, int64 (every msgpack
// int that fits; uint64 above that), float64, string, []byte (msgpack bin),
// []any (arrays) and Map. v1 never sends float or bin (SPEC §3.2).
type Map = map[string]any

// FrameError is a frame that breaks SPEC §3.1-§3.3 (a "malformed" frame, §9.1):
// the stream cannot be trusted any more.
type FrameError struct {
	Reason string
}

func (e *FrameError) Error() string { return e.Reason }

func frameErrorf(format string, args ...any) error {
	return &FrameError{Reason: fmt.Sprintf(format, args...)}
}

// --- frames -----------------------------------------------------------------

// ReadFrame reads one frame from r and returns its body (without the prefix).
// It returns io.EOF when the stream ends cleanly before a frame, and a
// *FrameError for a length of 0, a length above maxLen (decided from the prefix
// alone: the body is not read) or a stream that ends inside a frame. Reads from
// r may return any number of bytes: ReadFrame reads exactly what it needs.
func ReadFrame(r io.Reader, maxLen int) ([]byte, error) {
	var prefix [4]byte
	got, err := io.ReadFull(r, prefix[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, frameErrorf("%s after %d of the 4 length-prefix bytes", streamProblem(err), got)
	}
	n := binary.BigEndian.Uint32(prefix[:])
	if n == 0 {
		return nil, frameErrorf("frame length 0 (a frame holds one non-empty msgpack map)")
	}
	if uint64(n) > uint64(maxLen) {
		return nil, frameErrorf("frame length %d exceeds the limit of %d bytes", n, maxLen)
	}
	body := make([]byte, n)
	got, err = io.ReadFull(r, body)
	if err != nil {
		return nil, frameErrorf("%s after %d of %d body bytes", streamProblem(err), got, n)
	}
	return body, nil
}

func streamProblem(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "stream ended"
	}
	return "read error (" + err.Error() + ")"
}

// ReadMessage is ReadFrame followed by DecodeBody.
func ReadMessage(r io.Reader, maxLen int) (Map, error) {
	body, err := ReadFrame(r, maxLen)
	if err != nil {
		return nil, err
	}
	return DecodeBody(body)
}

// Flusher is what bufio.Writer offers; WriteFrame flushes writers that have it.
type Flusher interface {
	Flush() error
}

// WriteFrame writes the 4-byte prefix and the body with one Write, then
// flushes w if it buffers (SPEC §3.6). os.Stdout does not buffer.
func WriteFrame(w io.Writer, body []byte) error {
	if len(body) == 0 || uint64(len(body)) > math.MaxUint32 {
		return fmt.Errorf("cannot frame a body of %d bytes", len(body))
	}
	frame := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	copy(frame[4:], body)
	if _, err := w.Write(frame); err != nil {
		return err
	}
	if f, ok := w.(Flusher); ok {
		return f.Flush()
	}
	return nil
}

// --- decoding ---------------------------------------------------------------

// DecodeBody decodes a frame body: exactly one msgpack map, str keys, no key
// twice in one map, valid UTF-8, no ext values, nothing left over (SPEC §3.2).
// Any other problem is a *FrameError.
func DecodeBody(body []byte) (Map, error) {
	if len(body) == 0 {
		return nil, frameErrorf("empty frame body")
	}
	// A bytes.Reader is an io.ByteScanner, so the decoder reads from it directly,
	// without a buffer of its own: Len() is what is left of the body.
	rd := bytes.NewReader(body)
	b := bodyDecoder{dec: msgpack.NewDecoder(rd), rd: rd}
	value, err := b.value(0)
	if err != nil {
		var fe *FrameError
		if errors.As(err, &fe) {
			return nil, err
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, frameErrorf("the msgpack map ends after the frame does")
		}
		return nil, frameErrorf("frame body is not valid msgpack: %v", err)
	}
	if rd.Len() != 0 {
		return nil, frameErrorf("%d bytes left over after the msgpack map", rd.Len())
	}
	m, ok := value.(Map)
	if !ok {
		return nil, frameErrorf("frame body must be a msgpack map, not %s", typeName(value))
	}
	return m, nil
}

type bodyDecoder struct {
	dec *msgpack.Decoder
	rd  *bytes.Reader
}

// size checks a str, bin, array or map length against the bytes left: every
// element takes at least one byte, so a larger count is a lie (and must not
// make us allocate for it).
func (b *bodyDecoder) size(n int, what string) error {
	if n < 0 || n > b.rd.Len() {
		return frameErrorf("a %s of %d announced with only %d bytes left in the body", what, n, b.rd.Len())
	}
	return nil
}

func (b *bodyDecoder) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, frameErrorf("maps and arrays nested deeper than %d levels", MaxDepth)
	}
	c, err := b.dec.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case c == msgpcode.Nil:
		return nil, b.dec.DecodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		return b.dec.DecodeBool()
	case msgpcode.IsFixedNum(c), c == msgpcode.Uint8, c == msgpcode.Uint16, c == msgpcode.Uint32,
		c == msgpcode.Int8, c == msgpcode.Int16, c == msgpcode.Int32, c == msgpcode.Int64:
		return b.dec.DecodeInt64()
	case c == msgpcode.Uint64:
		n, err := b.dec.DecodeUint64()
		if err == nil && n <= math.MaxInt64 {
			return int64(n), nil
		}
		return n, err
	case c == msgpcode.Float || c == msgpcode.Double:
		return b.dec.DecodeFloat64()
	case msgpcode.IsString(c):
		return b.str()
	case msgpcode.IsBin(c):
		n, err := b.dec.DecodeBytesLen()
		if err != nil {
			return nil, err
		}
		if err := b.size(n, "bin"); err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		return buf, b.dec.ReadFull(buf)
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := b.dec.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if err := b.size(n, "array"); err != nil {
			return nil, err
		}
		list := make([]any, n)
		for i := range list {
			if list[i], err = b.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return list, nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := b.dec.DecodeMapLen()
		if err != nil {
			return nil, err
		}
		if err := b.size(n, "map"); err != nil {
			return nil, err
		}
		m := make(Map, n)
		for i := 0; i < n; i++ {
			kc, err := b.dec.PeekCode()
			if err != nil {
				return nil, err
			}
			if !msgpcode.IsString(kc) {
				return nil, frameErrorf("map keys must be str (found code 0x%02x)", kc)
			}
			key, err := b.str()
			if err != nil {
				return nil, err
			}
			if _, dup := m[key]; dup {
				return nil, frameErrorf("a map has the key %q twice", shorten(key))
			}
			if m[key], err = b.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return m, nil
	case msgpcode.IsExt(c):
		return nil, frameErrorf("msgpack ext values are not allowed in a message")
	}
	return nil, frameErrorf("byte 0x%02x is not a msgpack type", c)
}

func (b *bodyDecoder) str() (string, error) {
	s, err := b.dec.DecodeString()
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(s) {
		return "", frameErrorf("a str is not valid UTF-8")
	}
	return s, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "bool"
	case int64, uint64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bin"
	case []any:
		return "array"
	case Map:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}

// --- the bot's two messages (SPEC §6) ----------------------------------------

// The fields in SPEC order; with compact ints the encoder writes every int and
// str in its shortest format, so these are the canonical bytes of SPEC §3.4
// (the referee accepts any valid encoding anyway).
type helloMessage struct {
	Type     string `msgpack:"type"`
	Name     string `msgpack:"name"`
	Version  string `msgpack:"version"`
	Protocol int64  `msgpack:"protocol"`
}

type actionMessage struct {
	Type      string `msgpack:"type"`
	RequestID uint64 `msgpack:"request_id"`
	Choice    int64  `msgpack:"choice"`
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeHello returns the body of {type: "hello", name, version, protocol: 1}.
func EncodeHello(name, version string) ([]byte, error) {
	return encode(helloMessage{Type: "hello", Name: name, Version: version, Protocol: ProtocolVersion})
}

// EncodeAction returns the body of {type: "action", request_id, choice}.
func EncodeAction(requestID uint64, choice int64) ([]byte, error) {
	return encode(actionMessage{Type: "action", RequestID: requestID, Choice: choice})
}

// --- reading fields by name (unknown keys are simply never asked for) ---------

// GetInt returns m[key] if it is an int that fits int64.
func GetInt(m Map, key string) (int64, bool) {
	v, ok := m[key].(int64)
	return v, ok
}

// GetUint returns m[key] if it is an int >= 0 (up to 2^64 - 1, as request_id, SPEC §5.3).
func GetUint(m Map, key string) (uint64, bool) {
	switch v := m[key].(type) {
	case int64:
		return uint64(v), v >= 0
	case uint64:
		return v, true
	}
	return 0, false
}

// GetStr returns m[key] if it is a str.
func GetStr(m Map, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok
}

// GetMap returns m[key] if it is a map (nil otherwise; reading a nil Map is fine).
func GetMap(m Map, key string) Map {
	v, _ := m[key].(Map)
	return v
}

// GetList returns m[key] if it is an array.
func GetList(m Map, key string) ([]any, bool) {
	v, ok := m[key].([]any)
	return v, ok
}

// --- game messages as Go structs ----------------------------------------------

// Action kinds of act.legal (SPEC §7.2). A later protocol version may add
// kinds: they still appear in Act.Legal, with their name.
const (
	KindPlay = "play"
	KindQuad = "quad"
	KindBust = "bust"
)

// Legal is one entry of act.legal (SPEC §7.2). Card is "" for quad.
type Legal struct {
	Kind string
	Card string
}

// GameInfo is what game_start says (SPEC §5.2), kept for the game's acts.
type GameInfo struct {
	Seat    int    // -1 before the first game_start
	Players int    // seats at the table
	Edition string // "2022", "1980"
	Format  string // "single", "tokens", "points"
	GameID  string
	Msg     Map // the whole game_start message: names, options, clock ...
}

// ParseGameStart fills a GameInfo from a game_start message.
func ParseGameStart(msg Map) (GameInfo, error) {
	g := GameInfo{Seat: -1, Msg: msg}
	g.Edition, _ = GetStr(msg, "edition")
	g.Format, _ = GetStr(msg, "format")
	g.GameID, _ = GetStr(msg, "game_id")
	if p, ok := GetInt(msg, "players"); ok && p > 0 && p < 1000 {
		g.Players = int(p)
	}
	seat, ok := GetInt(msg, "seat")
	if !ok || seat < 0 || seat >= 1000 {
		return g, errors.New("game_start without a valid seat")
	}
	g.Seat = int(seat)
	return g, nil
}

// Act holds the parts of an act (SPEC §5.3, §7.3) a simple strategy needs.
// Everything else (events, hand_sizes, discard, scores, tokens ...) is in Msg:
// e.g. GetList(GetMap(a.Msg, "observation"), "discard").
type Act struct {
	RequestID     uint64   // a msgpack uint, up to 2^64 - 1 (SPEC §5.3)
	Total         int64    // observation.total (1980: may be negative)
	Owes          int64    // observation.owes: 1, or 2 after a Play 2 / Double Play
	Direction     int64    // observation.direction: 1 or -1
	PlayersInGame int      // count of true in observation.in_game
	Hand          []string // observation.hand, card codes (SPEC §7.1)
	Legal         []Legal  // never empty in a valid act
	DecisionMs    int64    // clock.decision_ms, or -1
	Msg           Map      // the whole act message
}

// ParseAct fills an Act from an act message. It fails only if the act cannot
// be answered: no int request_id or no non-empty legal array. Missing
// observation fields get neutral values (total 0, owes 1, direction 1).
func ParseAct(msg Map) (Act, error) {
	a := Act{Owes: 1, Direction: 1, DecisionMs: -1, Msg: msg}
	var ok bool
	if a.RequestID, ok = GetUint(msg, "request_id"); !ok {
		return a, errors.New("act without an int request_id")
	}
	legal, ok := GetList(msg, "legal")
	if !ok || len(legal) == 0 {
		return a, errors.New("act without legal actions")
	}
	obs := GetMap(msg, "observation")
	if v, ok := GetInt(obs, "total"); ok {
		a.Total = v
	}
	if v, ok := GetInt(obs, "owes"); ok {
		a.Owes = v
	}
	if v, ok := GetInt(obs, "direction"); ok {
		a.Direction = v
	}
	if v, ok := GetInt(GetMap(msg, "clock"), "decision_ms"); ok {
		a.DecisionMs = v
	}
	inGame, _ := GetList(obs, "in_game")
	for _, v := range inGame {
		if b, ok := v.(bool); ok && b {
			a.PlayersInGame++
		}
	}
	hand, _ := GetList(obs, "hand")
	for _, v := range hand {
		if card, ok := v.(string); ok {
			a.Hand = append(a.Hand, card)
		}
	}
	a.Legal = make([]Legal, len(legal))
	for i, v := range legal {
		entry, _ := v.(Map)
		a.Legal[i].Kind, _ = GetStr(entry, "kind")
		a.Legal[i].Card, _ = GetStr(entry, "card")
	}
	return a, nil
}
