/*
 * protocol.h - the wire protocol v1 of the ONO 99 arena (protocol/SPEC.md).
 *
 * Framing (SPEC §3): a 4-byte big-endian length N, then N bytes holding one
 * msgpack map. This module reads and writes frames, checks bodies the way
 * SPEC §3.2 asks, looks map keys up by name, and turns an `act` into a plain
 * C struct (act_view) that strategy.c can use without touching msgpack.
 *
 * It uses the msgpack-c library (Debian: libmsgpack-dev) for all msgpack
 * encoding and decoding.
 */
#ifndef ONO_PROTOCOL_H
#define ONO_PROTOCOL_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROTO_VERSION 1

/* The largest frame the referee ever sends (SPEC §3.3: a bot SHOULD accept
 * any N up to 16 MiB; a game_over after a long game can be a few hundred KiB).
 * Longer frames are refused before their body is read. */
#define PROTO_MAX_INCOMING (16u * 1024u * 1024u)

/* The referee's default limit for frames from a bot (hello.limits.max_frame,
 * SPEC §3.3, §8.1): 4 KiB. A hello or action comes nowhere near it. */
#define PROTO_DEFAULT_MAX_FRAME 4096u

/* Return values of the read functions. */
enum { PROTO_ERROR = -1, PROTO_EOF = 0, PROTO_OK = 1 };

/* One decoded message. `root` is a msgpack map; the objects inside point into
 * `body`, so both live until proto_message_free. */
typedef struct {
    char *body;
    size_t len;
    msgpack_unpacked unpacked;
    const msgpack_object *root;
} proto_message;

/* --- frames ------------------------------------------------------------- */

/* Read one frame's body (without the prefix) into a fresh malloc'ed buffer.
 * Returns PROTO_OK, PROTO_EOF (the stream ended cleanly before a frame), or
 * PROTO_ERROR with a message in err: N = 0, N > max_len (decided from the
 * prefix alone, the body is not read), or the stream ending inside a frame. */
int proto_read_frame(FILE *in, size_t max_len, char **body, size_t *len,
                     char *err, size_t errlen);

/* Decode a body: exactly one msgpack map, str keys, no duplicate keys, valid
 * UTF-8, no ext values, nothing left over (SPEC §3.2). On success `out`
 * holds the map (release it with msgpack_unpacked_destroy); its strings
 * point into `body`. Returns PROTO_OK or PROTO_ERROR with a message. */
int proto_decode(const char *body, size_t len, msgpack_unpacked *out,
                 char *err, size_t errlen);

/* proto_read_frame + proto_decode. On PROTO_OK release msg with
 * proto_message_free; on other results there is nothing to release. */
int proto_read_message(FILE *in, size_t max_len, proto_message *msg,
                       char *err, size_t errlen);
void proto_message_free(proto_message *msg);

/* Write the 4-byte prefix and the body with one fwrite, then fflush.
 * Returns 0, or -1 if the stream failed. */
int proto_write_frame(FILE *out, const char *body, size_t len);

/* --- the bot's two messages (SPEC §6), canonical encoding (SPEC §3.4) --- */

/* {type: "hello", name, version, protocol: 1}; appended to sb. */
int proto_encode_hello(msgpack_sbuffer *sb, const char *name, const char *version);
/* {type: "action", request_id, choice}; appended to sb. request_id is a
 * msgpack uint up to 2^64 - 1 (SPEC §5.3). */
int proto_encode_action(msgpack_sbuffer *sb, uint64_t request_id, int64_t choice);

/* --- reading fields by name (never by position; unknown keys are ignored) */

/* The value of `key` in `map`, or NULL if `map` is not a map or lacks it. */
const msgpack_object *proto_get(const msgpack_object *map, const char *key);
/* Whether `o` is a str equal to `s`. */
bool proto_is_str(const msgpack_object *o, const char *s);
/* Whether `o` is an int (any msgpack int format) that fits int64; sets *out. */
bool proto_as_int(const msgpack_object *o, int64_t *out);
/* Whether `o` is an int >= 0 (any msgpack int format) that fits uint64; sets *out. */
bool proto_as_uint(const msgpack_object *o, uint64_t *out);
/* proto_as_int(proto_get(map, key), out). */
bool proto_get_int(const msgpack_object *map, const char *key, int64_t *out);
/* Copy a str into dst (NUL-terminated). Returns false, with dst = "", if `o`
 * is not a str or does not fit in cap - 1 bytes. */
bool proto_copy_str(const msgpack_object *o, char *dst, size_t cap);

/* --- game messages as C structs ----------------------------------------- */

#define PROTO_CARD_MAX 8   /* card codes are short: "10", "-10", "P2" ... */
#define PROTO_HAND_MAX 16  /* a hand holds 4 cards; more are ignored */

typedef enum { ACTION_PLAY, ACTION_QUAD, ACTION_BUST, ACTION_UNKNOWN } action_kind;

/* One entry of act.legal (SPEC §7.2). card is "" for quad, or if the entry
 * has no card or a card code this kit does not know. */
typedef struct {
    action_kind kind;
    char card[PROTO_CARD_MAX];
} legal_action;

/* What game_start says (SPEC §5.2), kept for the game's acts. */
typedef struct {
    int seat;            /* -1 before the first game_start */
    int players;
    char edition[8];     /* "2022", "1980" ("" if unknown) */
    char format[16];     /* "single", "tokens", "points" */
    char game_id[64];
} game_info;

/* The parts of an act (SPEC §5.3, §7.3) a simple strategy needs. Anything
 * else (events, hand_sizes, scores, clock ...) is in `msg`: read it with
 * proto_get, e.g. proto_get(proto_get(a->msg, "observation"), "discard"). */
typedef struct {
    uint64_t request_id;  /* a msgpack uint, up to 2^64 - 1 (SPEC §5.3) */
    int64_t total;        /* observation.total */
    int64_t owes;         /* observation.owes: 1, or 2 after a Play 2 */
    int64_t direction;    /* observation.direction: 1 or -1 */
    int players_in_game;  /* count of true in observation.in_game */
    size_t n_hand;
    char hand[PROTO_HAND_MAX][PROTO_CARD_MAX];
    size_t n_legal;       /* never 0 in a valid act */
    legal_action *legal;  /* malloc'ed; free with proto_act_free */
    int64_t decision_ms;  /* clock.decision_ms, or -1 */
    const msgpack_object *msg; /* the whole act message */
} act_view;

/* Fill `g` from a game_start message. Returns 0, or -1 if seat is missing. */
int proto_parse_game_start(const msgpack_object *msg, game_info *g);
/* Fill `a` from an act message. Returns 0, or -1 (message in err) if the act
 * has no int request_id or no array `legal`: it cannot be answered. Missing
 * observation fields get neutral values (total 0, owes 1 ...). */
int proto_parse_act(const msgpack_object *msg, act_view *a, char *err, size_t errlen);
void proto_act_free(act_view *a);

#endif
