/* protocol.c - framing, checking and field access for wire protocol v1. */
#include "protocol.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* --- frames ------------------------------------------------------------- */

/* fread until n bytes have arrived or the stream ends; returns the count. */
static size_t read_exactly(FILE *in, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t r = fread(buf + got, 1, n - got, in);
        if (r == 0) {
            if (ferror(in) && errno == EINTR) {
                clearerr(in);
                continue;
            }
            break;
        }
        got += r;
    }
    return got;
}

int proto_read_frame(FILE *in, size_t max_len, char **body, size_t *len,
                     char *err, size_t errlen)
{
    unsigned char prefix[4];
    *body = NULL;
    *len = 0;
    size_t got = read_exactly(in, prefix, sizeof prefix);
    if (got == 0 && !ferror(in)) {
        return PROTO_EOF;
    }
    if (got < sizeof prefix) {
        set_err(err, errlen, "%s after %zu of the 4 length-prefix bytes",
                ferror(in) ? "read error" : "stream ended", got);
        return PROTO_ERROR;
    }
    uint32_t n = (uint32_t)prefix[0] << 24 | (uint32_t)prefix[1] << 16 |
                 (uint32_t)prefix[2] << 8 | (uint32_t)prefix[3];
    if (n == 0) {
        set_err(err, errlen, "frame length 0 (a frame holds one non-empty msgpack map)");
        return PROTO_ERROR;
    }
    if (n > max_len) {
        set_err(err, errlen, "frame length %lu exceeds the limit of %zu bytes",
                (unsigned long)n, max_len);
        return PROTO_ERROR;
    }
    unsigned char *buf = malloc(n);
    if (buf == NULL) {
        set_err(err, errlen, "out of memory for a frame of %lu bytes", (unsigned long)n);
        return PROTO_ERROR;
    }
    got = read_exactly(in, buf, n);
    if (got < n) {
        set_err(err, errlen, "%s after %zu of %lu body bytes",
                ferror(in) ? "read error" : "stream ended", got, (unsigned long)n);
        free(buf);
        return PROTO_ERROR;
    }
    *body = (char *)buf;
    *len = n;
    return PROTO_OK;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        uint32_t min;
        if ((c & 0xE0) == 0xC0) {
            len = 2, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i < len) {
            return false;
        }
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return false;
            }
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += len;
    }
    return true;
}

static bool str_equal(const msgpack_object *a, const msgpack_object *b)
{
    return a->via.str.size == b->via.str.size &&
           (a->via.str.size == 0 ||
            memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0);
}

/* SPEC §3.2 for one value and everything inside it. */
static bool check_value(const msgpack_object *o, char *err, size_t errlen)
{
    switch (o->type) {
    case MSGPACK_OBJECT_STR:
        if (!utf8_valid((const unsigned char *)o->via.str.ptr, o->via.str.size)) {
            set_err(err, errlen, "a str is not valid UTF-8");
            return false;
        }
        return true;
    case MSGPACK_OBJECT_EXT:
        set_err(err, errlen, "msgpack ext type %d is not allowed in a message",
                (int)o->via.ext.type);
        return false;
    case MSGPACK_OBJECT_ARRAY:
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (!check_value(&o->via.array.ptr[i], err, errlen)) {
                return false;
            }
        }
        return true;
    case MSGPACK_OBJECT_MAP:
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *key = &o->via.map.ptr[i].key;
            if (key->type != MSGPACK_OBJECT_STR) {
                set_err(err, errlen, "map keys must be str");
                return false;
            }
            if (!check_value(key, err, errlen) ||
                !check_value(&o->via.map.ptr[i].val, err, errlen)) {
                return false;
            }
            for (uint32_t j = 0; j < i; j++) {
                if (str_equal(key, &o->via.map.ptr[j].key)) {
                    set_err(err, errlen, "a map has the key \"%.*s\" twice",
                            (int)(key->via.str.size > 40 ? 40 : key->via.str.size),
                            key->via.str.ptr);
                    return false;
                }
            }
        }
        return true;
    default: /* nil, bool, int, float, bin: the message checks decide */
        return true;
    }
}

int proto_decode(const char *body, size_t len, msgpack_unpacked *out,
                 char *err, size_t errlen)
{
    size_t off = 0;
    msgpack_unpacked_init(out);
    if (len == 0) {
        set_err(err, errlen, "empty frame body");
        return PROTO_ERROR;
    }
    msgpack_unpack_return r = msgpack_unpack_next(out, body, len, &off);
    if (r == MSGPACK_UNPACK_CONTINUE) {
        set_err(err, errlen, "the msgpack map ends after the frame does");
    } else if (r == MSGPACK_UNPACK_NOMEM_ERROR) {
        /* msgpack-c also says so for containers nested past its fixed stack */
        set_err(err, errlen, "out of memory decoding msgpack, or maps and arrays nested "
                             "more than 32 levels below the top map (msgpack-c's limit)");
    } else if (r < 0) {
        set_err(err, errlen, "frame body is not valid msgpack");
    } else if (off != len) {
        set_err(err, errlen, "%zu bytes left over after the msgpack map", len - off);
    } else if (out->data.type != MSGPACK_OBJECT_MAP) {
        set_err(err, errlen, "frame body must be a msgpack map");
    } else if (check_value(&out->data, err, errlen)) {
        return PROTO_OK;
    }
    msgpack_unpacked_destroy(out);
    msgpack_unpacked_init(out);
    return PROTO_ERROR;
}

int proto_read_message(FILE *in, size_t max_len, proto_message *msg,
                       char *err, size_t errlen)
{
    memset(msg, 0, sizeof *msg);
    int r = proto_read_frame(in, max_len, &msg->body, &msg->len, err, errlen);
    if (r != PROTO_OK) {
        return r;
    }
    if (proto_decode(msg->body, msg->len, &msg->unpacked, err, errlen) != PROTO_OK) {
        msgpack_unpacked_destroy(&msg->unpacked);
        free(msg->body);
        memset(msg, 0, sizeof *msg);
        return PROTO_ERROR;
    }
    msg->root = &msg->unpacked.data;
    return PROTO_OK;
}

void proto_message_free(proto_message *msg)
{
    if (msg->body != NULL) {
        msgpack_unpacked_destroy(&msg->unpacked);
        free(msg->body);
    }
    memset(msg, 0, sizeof *msg);
}

int proto_write_frame(FILE *out, const char *body, size_t len)
{
    if (len == 0 || len > 0xFFFFFFFFu) {
        return -1;
    }
    unsigned char *frame = malloc(len + 4);
    if (frame == NULL) {
        return -1;
    }
    frame[0] = (unsigned char)(len >> 24);
    frame[1] = (unsigned char)(len >> 16);
    frame[2] = (unsigned char)(len >> 8);
    frame[3] = (unsigned char)len;
    memcpy(frame + 4, body, len);
    size_t written = fwrite(frame, 1, len + 4, out);
    free(frame);
    if (written != len + 4 || fflush(out) != 0) {
        return -1;
    }
    return 0;
}

/* --- encoding ------------------------------------------------------------ */

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    if (msgpack_pack_str(pk, n) != 0) {
        return -1;
    }
    return msgpack_pack_str_body(pk, s, n);
}

/* msgpack-c writes every int and str in its shortest format, so keys in
 * SPEC field order give the canonical bytes of SPEC §3.4. */
int proto_encode_hello(msgpack_sbuffer *sb, const char *name, const char *version)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    if (msgpack_pack_map(&pk, 4) != 0 ||
        pack_cstr(&pk, "type") != 0 || pack_cstr(&pk, "hello") != 0 ||
        pack_cstr(&pk, "name") != 0 || pack_cstr(&pk, name) != 0 ||
        pack_cstr(&pk, "version") != 0 || pack_cstr(&pk, version) != 0 ||
        pack_cstr(&pk, "protocol") != 0 || msgpack_pack_int64(&pk, PROTO_VERSION) != 0) {
        return -1;
    }
    return 0;
}

int proto_encode_action(msgpack_sbuffer *sb, uint64_t request_id, int64_t choice)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    if (msgpack_pack_map(&pk, 3) != 0 ||
        pack_cstr(&pk, "type") != 0 || pack_cstr(&pk, "action") != 0 ||
        pack_cstr(&pk, "request_id") != 0 || msgpack_pack_uint64(&pk, request_id) != 0 ||
        pack_cstr(&pk, "choice") != 0 || msgpack_pack_int64(&pk, choice) != 0) {
        return -1;
    }
    return 0;
}

/* --- field access -------------------------------------------------------- */

bool proto_is_str(const msgpack_object *o, const char *s)
{
    if (o == NULL || o->type != MSGPACK_OBJECT_STR) {
        return false;
    }
    size_t n = strlen(s);
    return o->via.str.size == n && (n == 0 || memcmp(o->via.str.ptr, s, n) == 0);
}

const msgpack_object *proto_get(const msgpack_object *map, const char *key)
{
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) {
        return NULL;
    }
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        if (proto_is_str(&map->via.map.ptr[i].key, key)) {
            return &map->via.map.ptr[i].val;
        }
    }
    return NULL;
}

bool proto_as_int(const msgpack_object *o, int64_t *out)
{
    if (o == NULL) {
        return false;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)INT64_MAX) {
        *out = (int64_t)o->via.u64;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = o->via.i64;
        return true;
    }
    return false;
}

bool proto_as_uint(const msgpack_object *o, uint64_t *out)
{
    /* msgpack-c decodes every int >= 0, signed formats included, as POSITIVE_INTEGER */
    if (o == NULL || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
        return false;
    }
    *out = o->via.u64;
    return true;
}

bool proto_get_int(const msgpack_object *map, const char *key, int64_t *out)
{
    return proto_as_int(proto_get(map, key), out);
}

bool proto_copy_str(const msgpack_object *o, char *dst, size_t cap)
{
    if (cap == 0) {
        return false;
    }
    dst[0] = '\0';
    if (o == NULL || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= cap) {
        return false;
    }
    memcpy(dst, o->via.str.ptr, o->via.str.size);
    dst[o->via.str.size] = '\0';
    return true;
}

/* --- game messages ------------------------------------------------------- */

int proto_parse_game_start(const msgpack_object *msg, game_info *g)
{
    int64_t v;
    memset(g, 0, sizeof *g);
    g->seat = -1;
    proto_copy_str(proto_get(msg, "edition"), g->edition, sizeof g->edition);
    proto_copy_str(proto_get(msg, "format"), g->format, sizeof g->format);
    proto_copy_str(proto_get(msg, "game_id"), g->game_id, sizeof g->game_id);
    if (proto_get_int(msg, "players", &v) && v > 0 && v < 1000) {
        g->players = (int)v;
    }
    if (!proto_get_int(msg, "seat", &v) || v < 0 || v >= 1000) {
        return -1;
    }
    g->seat = (int)v;
    return 0;
}

static action_kind parse_kind(const msgpack_object *o)
{
    if (proto_is_str(o, "play")) {
        return ACTION_PLAY;
    }
    if (proto_is_str(o, "quad")) {
        return ACTION_QUAD;
    }
    if (proto_is_str(o, "bust")) {
        return ACTION_BUST;
    }
    return ACTION_UNKNOWN; /* a later version's kind: still choosable by index */
}

int proto_parse_act(const msgpack_object *msg, act_view *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->msg = msg;
    a->owes = 1;
    a->direction = 1;
    a->decision_ms = -1;
    if (!proto_as_uint(proto_get(msg, "request_id"), &a->request_id)) {
        set_err(err, errlen, "act without an int request_id");
        return -1;
    }
    const msgpack_object *legal = proto_get(msg, "legal");
    if (legal == NULL || legal->type != MSGPACK_OBJECT_ARRAY) {
        set_err(err, errlen, "act without a legal array");
        return -1;
    }

    const msgpack_object *obs = proto_get(msg, "observation");
    proto_get_int(obs, "total", &a->total);
    proto_get_int(obs, "owes", &a->owes);
    proto_get_int(obs, "direction", &a->direction);
    proto_get_int(proto_get(msg, "clock"), "decision_ms", &a->decision_ms);
    const msgpack_object *in_game = proto_get(obs, "in_game");
    if (in_game != NULL && in_game->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < in_game->via.array.size; i++) {
            const msgpack_object *b = &in_game->via.array.ptr[i];
            if (b->type == MSGPACK_OBJECT_BOOLEAN && b->via.boolean) {
                a->players_in_game++;
            }
        }
    }
    const msgpack_object *hand = proto_get(obs, "hand");
    if (hand != NULL && hand->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < hand->via.array.size && a->n_hand < PROTO_HAND_MAX; i++) {
            if (proto_copy_str(&hand->via.array.ptr[i], a->hand[a->n_hand], PROTO_CARD_MAX)) {
                a->n_hand++;
            }
        }
    }

    a->n_legal = legal->via.array.size;
    if (a->n_legal > 0) {
        a->legal = calloc(a->n_legal, sizeof *a->legal);
        if (a->legal == NULL) {
            set_err(err, errlen, "out of memory for %zu legal actions", a->n_legal);
            return -1;
        }
    }
    for (size_t i = 0; i < a->n_legal; i++) {
        const msgpack_object *entry = &legal->via.array.ptr[i];
        a->legal[i].kind = parse_kind(proto_get(entry, "kind"));
        proto_copy_str(proto_get(entry, "card"), a->legal[i].card, PROTO_CARD_MAX);
    }
    return 0;
}

void proto_act_free(act_view *a)
{
    free(a->legal);
    a->legal = NULL;
    a->n_legal = 0;
}
