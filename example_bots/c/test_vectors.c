/*
 * test_vectors.c - tests of the C kit against protocol/vectors/ (SPEC §12),
 * then of ./bot end to end.
 *
 * usage: test_vectors VECTORS_DIR [BOT]
 *
 * 1. Every vector with a .bin and a .json (bad_* skipped): the .bin is read
 *    with the kit's frame reader and decoder and must equal the .json (parsed
 *    by the small JSON reader below); key fields of referee messages are
 *    checked through the kit's accessors; bot messages (hello, action) are
 *    encoded with the kit's writer and must equal the .bin byte for byte.
 * 2. Every bad_frame_* vector must be refused by the reader or decoder.
 * 3. Frames arriving in pieces: every canonical frame split at every byte,
 *    the whole stream in chunks of several sizes, streams cut short.
 * 4. BOT (default ./bot) is run: a whole session fed at once, an exchange
 *    message by message, end of stdin without bye, an oversized frame.
 */
#define _GNU_SOURCE /* fopencookie, open_memstream */

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "strategy.h"

static int failures;
static int checks;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        checks++;                                                                         \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* --- files --------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (r == 0) {
            break;
        }
        n += r;
    }
    fclose(f);
    *len = n;
    return buf;
}

static char *vector_path(const char *dir, const char *name, const char *ext)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    return path;
}

/* --- a small JSON reader: JSON text -> msgpack bytes ---------------------- */

typedef struct {
    const char *p;
    const char *end;
} json_in;

static void json_ws(json_in *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) {
        j->p++;
    }
}

static void put_utf8(msgpack_sbuffer *s, unsigned long cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    msgpack_sbuffer_write(s, b, n);
}

static int json_hex4(json_in *j, unsigned long *out)
{
    if (j->end - j->p < 4) {
        return -1;
    }
    char hex[5] = {j->p[0], j->p[1], j->p[2], j->p[3], 0};
    char *endp;
    *out = strtoul(hex, &endp, 16);
    j->p += 4;
    return *endp == '\0' ? 0 : -1;
}

static int json_string(json_in *j, msgpack_packer *pk)
{
    msgpack_sbuffer s;
    msgpack_sbuffer_init(&s);
    j->p++; /* opening quote */
    while (j->p < j->end && *j->p != '"') {
        if (*j->p != '\\') {
            msgpack_sbuffer_write(&s, j->p, 1);
            j->p++;
            continue;
        }
        j->p++;
        if (j->p >= j->end) {
            break;
        }
        char c = *j->p++;
        unsigned long cp;
        switch (c) {
        case 'b': put_utf8(&s, '\b'); break;
        case 'f': put_utf8(&s, '\f'); break;
        case 'n': put_utf8(&s, '\n'); break;
        case 'r': put_utf8(&s, '\r'); break;
        case 't': put_utf8(&s, '\t'); break;
        case 'u':
            if (json_hex4(j, &cp) != 0) {
                msgpack_sbuffer_destroy(&s);
                return -1;
            }
            if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
                j->p[1] == 'u') {
                unsigned long lo;
                j->p += 2;
                if (json_hex4(j, &lo) != 0) {
                    msgpack_sbuffer_destroy(&s);
                    return -1;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(&s, cp);
            break;
        default: put_utf8(&s, (unsigned char)c); break; /* \" \\ \/ */
        }
    }
    if (j->p >= j->end) {
        msgpack_sbuffer_destroy(&s);
        return -1;
    }
    j->p++; /* closing quote */
    msgpack_pack_str(pk, s.size);
    msgpack_pack_str_body(pk, s.data, s.size);
    msgpack_sbuffer_destroy(&s);
    return 0;
}

static int json_value(json_in *j, msgpack_packer *pk);

/* An array or an object: the members go to a side buffer first, since msgpack
 * needs the count before them. */
static int json_container(json_in *j, msgpack_packer *pk, char close)
{
    msgpack_sbuffer s;
    msgpack_packer inner;
    msgpack_sbuffer_init(&s);
    msgpack_packer_init(&inner, &s, msgpack_sbuffer_write);
    size_t count = 0;
    j->p++;
    json_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
    } else {
        for (;;) {
            json_ws(j);
            if (close == '}') {
                if (j->p >= j->end || *j->p != '"' || json_string(j, &inner) != 0) {
                    goto fail;
                }
                json_ws(j);
                if (j->p >= j->end || *j->p != ':') {
                    goto fail;
                }
                j->p++;
            }
            if (json_value(j, &inner) != 0) {
                goto fail;
            }
            count++;
            json_ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == close) {
                j->p++;
                break;
            }
            goto fail;
        }
    }
    if (close == '}') {
        msgpack_pack_map(pk, count);
    } else {
        msgpack_pack_array(pk, count);
    }
    pk->callback(pk->data, s.data, s.size);
    msgpack_sbuffer_destroy(&s);
    return 0;
fail:
    msgpack_sbuffer_destroy(&s);
    return -1;
}

static int json_value(json_in *j, msgpack_packer *pk)
{
    json_ws(j);
    if (j->p >= j->end) {
        return -1;
    }
    char c = *j->p;
    if (c == '{') {
        return json_container(j, pk, '}');
    }
    if (c == '[') {
        return json_container(j, pk, ']');
    }
    if (c == '"') {
        return json_string(j, pk);
    }
    if (j->end - j->p >= 4 && strncmp(j->p, "true", 4) == 0) {
        j->p += 4;
        return msgpack_pack_true(pk);
    }
    if (j->end - j->p >= 5 && strncmp(j->p, "false", 5) == 0) {
        j->p += 5;
        return msgpack_pack_false(pk);
    }
    if (j->end - j->p >= 4 && strncmp(j->p, "null", 4) == 0) {
        j->p += 4;
        return msgpack_pack_nil(pk);
    }
    /* a number: copy it out so strto* stop at its end */
    char num[64];
    size_t n = 0;
    bool is_float = false;
    while (j->p < j->end && n + 1 < sizeof num && strchr("+-0123456789.eE", *j->p)) {
        if (strchr(".eE", *j->p)) {
            is_float = true;
        }
        num[n++] = *j->p++;
    }
    num[n] = '\0';
    if (n == 0) {
        return -1;
    }
    if (is_float) {
        return msgpack_pack_double(pk, strtod(num, NULL));
    }
    if (num[0] == '-') {
        return msgpack_pack_int64(pk, strtoll(num, NULL, 10));
    }
    return msgpack_pack_uint64(pk, strtoull(num, NULL, 10));
}

/* Parse JSON text into `out` (release with msgpack_unpacked_destroy and free
 * *storage). Returns 0 or -1. */
static int json_parse(const char *text, size_t len, msgpack_unpacked *out, char **storage)
{
    json_in j = {text, text + len};
    msgpack_sbuffer s;
    msgpack_packer pk;
    msgpack_sbuffer_init(&s);
    msgpack_packer_init(&pk, &s, msgpack_sbuffer_write);
    msgpack_unpacked_init(out);
    if (json_value(&j, &pk) != 0) {
        msgpack_sbuffer_destroy(&s);
        return -1;
    }
    size_t off = 0;
    if (msgpack_unpack_next(out, s.data, s.size, &off) != MSGPACK_UNPACK_SUCCESS) {
        msgpack_sbuffer_destroy(&s);
        return -1;
    }
    *storage = msgpack_sbuffer_release(&s);
    return 0;
}

/* --- comparing decoded values -------------------------------------------- */

static bool is_float(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64;
}

static bool obj_equal(const msgpack_object *a, const msgpack_object *b)
{
    if (is_float(a) && is_float(b)) {
        return a->via.f64 == b->via.f64;
    }
    if (a->type != b->type) {
        return false;
    }
    switch (a->type) {
    case MSGPACK_OBJECT_NIL:
        return true;
    case MSGPACK_OBJECT_BOOLEAN:
        return a->via.boolean == b->via.boolean;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return a->via.u64 == b->via.u64;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return a->via.i64 == b->via.i64;
    case MSGPACK_OBJECT_STR:
        return a->via.str.size == b->via.str.size &&
               memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0;
    case MSGPACK_OBJECT_ARRAY:
        if (a->via.array.size != b->via.array.size) {
            return false;
        }
        for (uint32_t i = 0; i < a->via.array.size; i++) {
            if (!obj_equal(&a->via.array.ptr[i], &b->via.array.ptr[i])) {
                return false;
            }
        }
        return true;
    case MSGPACK_OBJECT_MAP:
        /* key order does not matter (SPEC §3.4); keys are unique (§3.2) */
        if (a->via.map.size != b->via.map.size) {
            return false;
        }
        for (uint32_t i = 0; i < a->via.map.size; i++) {
            const msgpack_object_kv *kv = &a->via.map.ptr[i];
            bool found = false;
            for (uint32_t k = 0; k < b->via.map.size; k++) {
                if (obj_equal(&kv->key, &b->via.map.ptr[k].key)) {
                    if (!obj_equal(&kv->val, &b->via.map.ptr[k].val)) {
                        return false;
                    }
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    default:
        return false;
    }
}

static size_t array_size(const msgpack_object *o)
{
    return o != NULL && o->type == MSGPACK_OBJECT_ARRAY ? o->via.array.size : (size_t)-1;
}

/* --- 1. canonical and accepted vectors ------------------------------------ */

/* Referee frames, for the stream tests: body bytes of each .bin. */
typedef struct {
    char *frame;
    size_t len;
} frame_copy;
static frame_copy referee_frames[64];
static size_t n_referee_frames;

static bool from_bot(const msgpack_object *msg)
{
    const msgpack_object *type = proto_get(msg, "type");
    return proto_is_str(type, "action") ||
           (proto_is_str(type, "hello") && proto_get(msg, "name") != NULL);
}

/* Encode with the kit's writer and compare with the .bin, byte for byte. */
static void check_encoding(const char *name, const msgpack_object *json,
                           const char *bin, size_t bin_len)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    int r = -1;
    if (proto_is_str(proto_get(json, "type"), "hello")) {
        char who[256], version[256];
        proto_copy_str(proto_get(json, "name"), who, sizeof who);
        proto_copy_str(proto_get(json, "version"), version, sizeof version);
        r = proto_encode_hello(&sb, who, version);
    } else {
        uint64_t request_id = 0;
        int64_t choice = 0;
        CHECK(proto_as_uint(proto_get(json, "request_id"), &request_id) &&
                  proto_get_int(json, "choice", &choice),
              "%s: request_id and choice in json", name);
        r = proto_encode_action(&sb, request_id, choice);
    }
    CHECK(r == 0, "%s: encode", name);

    char *written = NULL;
    size_t written_len = 0;
    FILE *mem = open_memstream(&written, &written_len);
    CHECK(proto_write_frame(mem, sb.data, sb.size) == 0, "%s: proto_write_frame", name);
    fclose(mem);
    CHECK(written_len == bin_len && memcmp(written, bin, bin_len) == 0,
          "%s: encoded %zu bytes differ from the %zu bytes of the .bin", name, written_len,
          bin_len);
    free(written);
    msgpack_sbuffer_destroy(&sb);
}

/* Key fields of referee messages, read with the kit's accessors. */
static void check_referee_fields(const char *name, const msgpack_object *msg,
                                 const msgpack_object *json)
{
    const msgpack_object *type = proto_get(json, "type");
    CHECK(obj_equal(proto_get(msg, "type"), type), "%s: type", name);
    if (proto_is_str(type, "act")) {
        act_view act;
        char err[160];
        uint64_t rid = 0;
        int64_t total = -1000;
        proto_as_uint(proto_get(json, "request_id"), &rid);
        proto_get_int(proto_get(json, "observation"), "total", &total);
        CHECK(proto_parse_act(msg, &act, err, sizeof err) == 0, "%s: parse act: %s", name, err);
        CHECK(act.request_id == rid, "%s: request_id %llu, json %llu", name,
              (unsigned long long)act.request_id, (unsigned long long)rid);
        CHECK(act.n_legal == array_size(proto_get(json, "legal")), "%s: %zu legal actions",
              name, act.n_legal);
        CHECK(act.total == total, "%s: total %lld, json %lld", name, (long long)act.total,
              (long long)total);
        game_info g = {.seat = 0};
        size_t choice = strategy_choose(&g, &act);
        CHECK(choice < act.n_legal, "%s: strategy chose %zu of %zu", name, choice, act.n_legal);
        printf("  %-30s request_id %llu, total %lld, %zu legal, strategy picks %zu (%s %s)\n",
               name, (unsigned long long)act.request_id, (long long)act.total, act.n_legal, choice,
               act.legal[choice].kind == ACTION_PLAY ? "play"
               : act.legal[choice].kind == ACTION_BUST ? "bust"
               : act.legal[choice].kind == ACTION_QUAD ? "quad"
                                                       : "?",
               act.legal[choice].card);
        proto_act_free(&act);
    } else if (proto_is_str(type, "game_start")) {
        game_info g;
        int64_t seat = -1;
        proto_get_int(json, "seat", &seat);
        CHECK(proto_parse_game_start(msg, &g) == 0 && g.seat == seat, "%s: seat", name);
    }
}

static void check_vector(const char *dir, const char *name)
{
    size_t bin_len, json_len;
    char *bin = read_file(vector_path(dir, name, ".bin"), &bin_len);
    char *text = read_file(vector_path(dir, name, ".json"), &json_len);
    if (bin == NULL || text == NULL) {
        free(bin);
        free(text);
        return; /* only vectors with both files */
    }
    msgpack_unpacked json;
    char *storage = NULL;
    CHECK(json_parse(text, json_len, &json, &storage) == 0, "%s: the .json does not parse",
          name);

    /* the kit's reader, from a file */
    FILE *f = fopen(vector_path(dir, name, ".bin"), "rb");
    proto_message msg;
    char err[160] = "";
    int r = proto_read_message(f, PROTO_MAX_INCOMING, &msg, err, sizeof err);
    CHECK(r == PROTO_OK, "%s: read: %s", name, err);
    if (r == PROTO_OK) {
        char *extra;
        size_t extra_len;
        CHECK(proto_read_frame(f, PROTO_MAX_INCOMING, &extra, &extra_len, err, sizeof err) ==
                  PROTO_EOF,
              "%s: more after the frame", name);
        CHECK(obj_equal(msg.root, &json.data), "%s: decode(bin) != json", name);
        if (from_bot(&json.data)) {
            if (strncmp(name, "ok_", 3) != 0) { /* ok_*: not canonical on purpose */
                check_encoding(name, &json.data, bin, bin_len);
            }
        } else {
            check_referee_fields(name, msg.root, &json.data);
            if (n_referee_frames < sizeof referee_frames / sizeof referee_frames[0]) {
                referee_frames[n_referee_frames].frame = malloc(bin_len);
                memcpy(referee_frames[n_referee_frames].frame, bin, bin_len);
                referee_frames[n_referee_frames].len = bin_len;
                n_referee_frames++;
            }
        }
        proto_message_free(&msg);
    }
    fclose(f);
    msgpack_unpacked_destroy(&json);
    free(storage);
    free(bin);
    free(text);
}

/* --- 2. broken frames ----------------------------------------------------- */

static void check_refused(const char *dir, const char *name)
{
    FILE *f = fopen(vector_path(dir, name, ".bin"), "rb");
    proto_message msg;
    char err[160] = "";
    /* the referee's view of a bot frame: the default max_frame of 4096 bytes */
    int r = proto_read_message(f, PROTO_DEFAULT_MAX_FRAME, &msg, err, sizeof err);
    CHECK(r == PROTO_ERROR, "%s: not refused", name);
    if (r == PROTO_OK) {
        proto_message_free(&msg);
    }
    if (strcmp(name, "bad_frame_too_large") == 0) {
        CHECK(strstr(err, "exceeds") != NULL, "%s: refused for the wrong reason: %s", name, err);
    }
    printf("  %-30s refused: %s\n", name, err);
    fclose(f);
}

/* SPEC §5.3: request_id is a msgpack uint up to 2^64 - 1, copied unchanged into
 * the answer. The kit read it as an int64, and an act with an id of 2^63 or more
 * was "an act without an int request_id": the bot exited. */
static void check_large_request_id(void)
{
    const uint64_t ids[] = {1, (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        msgpack_sbuffer in;
        msgpack_sbuffer_init(&in);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &in, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 3);
        msgpack_pack_str_with_body(&pk, "type", 4);
        msgpack_pack_str_with_body(&pk, "act", 3);
        msgpack_pack_str_with_body(&pk, "request_id", 10);
        msgpack_pack_uint64(&pk, ids[i]);
        msgpack_pack_str_with_body(&pk, "legal", 5);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_map(&pk, 1);
        msgpack_pack_str_with_body(&pk, "kind", 4);
        msgpack_pack_str_with_body(&pk, "quad", 4);
        msgpack_unpacked msg;
        char err[160] = "";
        act_view act;
        CHECK(proto_decode(in.data, in.size, &msg, err, sizeof err) == PROTO_OK, "decode: %s", err);
        CHECK(proto_parse_act(&msg.data, &act, err, sizeof err) == 0, "request_id %llu: %s",
              (unsigned long long)ids[i], err);
        CHECK(act.request_id == ids[i], "request_id %llu read as %llu",
              (unsigned long long)ids[i], (unsigned long long)act.request_id);
        msgpack_sbuffer out;
        msgpack_sbuffer_init(&out);
        CHECK(proto_encode_action(&out, act.request_id, 0) == 0, "encode");
        msgpack_unpacked back;
        CHECK(proto_decode(out.data, out.size, &back, err, sizeof err) == PROTO_OK, "%s", err);
        uint64_t got = 0;
        CHECK(proto_as_uint(proto_get(&back.data, "request_id"), &got) && got == ids[i],
              "request_id %llu answered as %llu", (unsigned long long)ids[i],
              (unsigned long long)got);
        printf("  request_id %llu read and answered unchanged\n", (unsigned long long)ids[i]);
        msgpack_unpacked_destroy(&back);
        msgpack_sbuffer_destroy(&out);
        proto_act_free(&act);
        msgpack_unpacked_destroy(&msg);
        msgpack_sbuffer_destroy(&in);
    }
}

/* --- 3. frames in pieces --------------------------------------------------- */

typedef struct {
    const char *data;
    size_t len;
    size_t pos;
    size_t chunk;      /* at most this many bytes per read */
    size_t first;      /* if nonzero: the first read returns exactly this many */
} piece_reader;

static ssize_t piece_read(void *cookie, char *buf, size_t size)
{
    piece_reader *p = cookie;
    size_t n = p->len - p->pos;
    size_t limit = p->chunk;
    if (p->first != 0) {
        limit = p->first;
        p->first = 0;
    }
    if (n > limit) {
        n = limit;
    }
    if (n > size) {
        n = size;
    }
    memcpy(buf, p->data + p->pos, n);
    p->pos += n;
    return (ssize_t)n;
}

static FILE *open_pieces(piece_reader *p)
{
    cookie_io_functions_t io = {.read = piece_read};
    FILE *f = fopencookie(p, "r", io);
    setvbuf(f, NULL, _IONBF, 0); /* hand the short reads straight to the kit */
    return f;
}

/* Read all frames of `stream`; check they are `expect` in order, then EOF. */
static bool read_all(piece_reader *p, const frame_copy *expect, size_t n_expect)
{
    FILE *f = open_pieces(p);
    bool ok = true;
    for (size_t i = 0; i < n_expect && ok; i++) {
        proto_message msg;
        char err[160];
        if (proto_read_message(f, PROTO_MAX_INCOMING, &msg, err, sizeof err) != PROTO_OK) {
            ok = false;
            break;
        }
        ok = msg.len == expect[i].len - 4 && memcmp(msg.body, expect[i].frame + 4, msg.len) == 0;
        proto_message_free(&msg);
    }
    char *body;
    size_t len;
    char err[160];
    ok = ok && proto_read_frame(f, PROTO_MAX_INCOMING, &body, &len, err, sizeof err) == PROTO_EOF;
    fclose(f);
    return ok;
}

static void check_pieces(void)
{
    /* every frame split in two at every byte */
    size_t splits = 0;
    for (size_t i = 0; i < n_referee_frames; i++) {
        for (size_t k = 1; k < referee_frames[i].len; k++) {
            piece_reader p = {referee_frames[i].frame, referee_frames[i].len, 0, (size_t)-1, k};
            CHECK(read_all(&p, &referee_frames[i], 1), "frame %zu split at byte %zu", i, k);
            splits++;
        }
    }
    printf("  %zu frames split at every byte (%zu splits): ok unless FAIL above\n",
           n_referee_frames, splits);

    /* all frames back to back, in chunks of several sizes */
    size_t total = 0;
    for (size_t i = 0; i < n_referee_frames; i++) {
        total += referee_frames[i].len;
    }
    char *stream = malloc(total);
    size_t off = 0;
    for (size_t i = 0; i < n_referee_frames; i++) {
        memcpy(stream + off, referee_frames[i].frame, referee_frames[i].len);
        off += referee_frames[i].len;
    }
    const size_t chunks[] = {1, 2, 3, 4, 5, 7, 13, 64, 1000, 1 << 20};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        piece_reader p = {stream, total, 0, chunks[c], 0};
        CHECK(read_all(&p, referee_frames, n_referee_frames), "stream in chunks of %zu",
              chunks[c]);
    }
    printf("  %zu frames back to back (%zu bytes) in chunks of 1 .. 1 MiB bytes\n",
           n_referee_frames, total);

    /* a stream cut anywhere inside a frame is an error, not a clean end */
    if (n_referee_frames > 0) {
        for (size_t k = 1; k < referee_frames[0].len; k++) {
            piece_reader p = {referee_frames[0].frame, k, 0, 3, 0};
            FILE *f = open_pieces(&p);
            proto_message msg;
            char err[160];
            int r = proto_read_message(f, PROTO_MAX_INCOMING, &msg, err, sizeof err);
            CHECK(r == PROTO_ERROR, "stream cut after %zu bytes: %d", k, r);
            if (r == PROTO_OK) {
                proto_message_free(&msg);
            }
            fclose(f);
        }
        printf("  a frame cut after each of its bytes: refused\n");
    }
    free(stream);
}

/* --- 4. the bot end to end ------------------------------------------------- */

typedef struct {
    pid_t pid;
    int to_bot;
    int from_bot;
} child;

static int spawn(const char *bot, child *c, bool quiet)
{
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
        return -1;
    }
    c->pid = fork();
    if (c->pid < 0) {
        return -1;
    }
    if (c->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (quiet) {
            FILE *devnull = freopen("/dev/null", "w", stderr);
            (void)devnull;
        }
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(bot, bot, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", bot, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->to_bot = in[1];
    c->from_bot = out[0];
    return 0;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        data += w;
        len -= (size_t)w;
    }
    return true;
}

static bool send_vector(const char *dir, child *c, const char *name)
{
    size_t len;
    char *data = read_file(vector_path(dir, name, ".bin"), &len);
    bool ok = data != NULL && write_all(c->to_bot, data, len);
    free(data);
    return ok;
}

/* Read exactly n bytes within timeout_ms; returns the count read. */
static size_t read_fd(int fd, char *buf, size_t n, int timeout_ms)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, timeout_ms);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break;
        }
        got += (size_t)k;
    }
    return got;
}

/* One frame from the bot, decoded by the kit: PROTO_OK, PROTO_EOF, PROTO_ERROR. */
static int read_bot_frame(child *c, proto_message *msg, int timeout_ms)
{
    unsigned char prefix[4];
    memset(msg, 0, sizeof *msg);
    size_t got = read_fd(c->from_bot, (char *)prefix, 4, timeout_ms);
    if (got == 0) {
        return PROTO_EOF;
    }
    if (got < 4) {
        return PROTO_ERROR;
    }
    size_t n = (size_t)prefix[0] << 24 | (size_t)prefix[1] << 16 | (size_t)prefix[2] << 8 |
               prefix[3];
    if (n == 0 || n > PROTO_DEFAULT_MAX_FRAME) {
        return PROTO_ERROR;
    }
    msg->body = malloc(n);
    msg->len = n;
    char err[160];
    if (read_fd(c->from_bot, msg->body, n, timeout_ms) != n ||
        proto_decode(msg->body, n, &msg->unpacked, err, sizeof err) != PROTO_OK) {
        free(msg->body);
        memset(msg, 0, sizeof *msg);
        return PROTO_ERROR;
    }
    msg->root = &msg->unpacked.data;
    return PROTO_OK;
}

/* Wait up to timeout_ms for the bot to exit; returns its wait status or -1. */
static int wait_exit(child *c, int timeout_ms)
{
    for (int waited = 0; waited <= timeout_ms; waited += 10) {
        int status;
        pid_t r = waitpid(c->pid, &status, WNOHANG);
        if (r == c->pid) {
            return status;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    return -1;
}

static bool exited_zero(int status)
{
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void expect_hello(child *c, const char *what)
{
    proto_message m;
    int r = read_bot_frame(c, &m, 5000);
    CHECK(r == PROTO_OK, "%s: no hello frame from the bot (%d)", what, r);
    if (r != PROTO_OK) {
        return;
    }
    int64_t protocol = 0;
    const msgpack_object *name = proto_get(m.root, "name");
    const msgpack_object *version = proto_get(m.root, "version");
    CHECK(proto_is_str(proto_get(m.root, "type"), "hello"), "%s: hello type", what);
    CHECK(proto_get_int(m.root, "protocol", &protocol) && protocol == 1, "%s: protocol 1",
          what);
    CHECK(proto_is_str(name, "c-heuristic"), "%s: name", what);
    CHECK(version != NULL && version->type == MSGPACK_OBJECT_STR, "%s: version", what);
    proto_message_free(&m);
}

/* The act's request_id and number of legal actions, from its vector. */
static void act_facts(const char *dir, const char *act, int64_t *rid, size_t *n_legal)
{
    FILE *f = fopen(vector_path(dir, act, ".bin"), "rb");
    proto_message m;
    char err[160];
    *rid = -1;
    *n_legal = 0;
    if (f != NULL && proto_read_message(f, PROTO_MAX_INCOMING, &m, err, sizeof err) == PROTO_OK) {
        proto_get_int(m.root, "request_id", rid);
        *n_legal = array_size(proto_get(m.root, "legal"));
        proto_message_free(&m);
    }
    if (f != NULL) {
        fclose(f);
    }
}

static void expect_action(child *c, const char *dir, const char *act, const char *what)
{
    int64_t rid, got_rid = -2, choice = -1;
    size_t n_legal;
    act_facts(dir, act, &rid, &n_legal);
    proto_message m;
    int r = read_bot_frame(c, &m, 5000);
    CHECK(r == PROTO_OK, "%s: no action for %s (%d)", what, act, r);
    if (r != PROTO_OK) {
        return;
    }
    CHECK(proto_is_str(proto_get(m.root, "type"), "action"), "%s: %s: type action", what, act);
    CHECK(proto_get_int(m.root, "request_id", &got_rid) && got_rid == rid,
          "%s: %s: request_id %lld, want %lld", what, act, (long long)got_rid, (long long)rid);
    CHECK(proto_get_int(m.root, "choice", &choice) && choice >= 0 && (size_t)choice < n_legal,
          "%s: %s: choice %lld of %zu legal", what, act, (long long)choice, n_legal);
    printf("  %s: %s -> action request_id %lld choice %lld\n", what, act, (long long)got_rid,
           (long long)choice);
    proto_message_free(&m);
}

/* The golden session (index.json "session"), referee frames only. */
static const char *const SESSION[] = {
    "referee_hello",          "game_start_2022_single",     "act_2022_single",
    "act_2022_single_owes_two", "game_over_2022_single",    "game_start_1980_points",
    "act_1980_points_bust",   "game_over_1980_points_ties", "game_start_2022_tokens",
    "act_2022_tokens_quad",   "game_over_2022_tokens",      "bye",
};

static void check_bot(const char *dir, const char *bot)
{
    child c;

    /* a: the whole session written at once, as `cat *.bin | ./bot` would */
    CHECK(spawn(bot, &c, true) == 0, "spawn %s", bot);
    for (size_t i = 0; i < sizeof SESSION / sizeof SESSION[0]; i++) {
        CHECK(send_vector(dir, &c, SESSION[i]), "write %s to the bot", SESSION[i]);
    }
    close(c.to_bot);
    expect_hello(&c, "session at once");
    for (size_t i = 0; i < sizeof SESSION / sizeof SESSION[0]; i++) {
        if (strncmp(SESSION[i], "act_", 4) == 0) {
            expect_action(&c, dir, SESSION[i], "session at once");
        }
    }
    proto_message m;
    CHECK(read_bot_frame(&c, &m, 5000) == PROTO_EOF, "session at once: extra output");
    close(c.from_bot);
    CHECK(exited_zero(wait_exit(&c, 2000)), "session at once: exit status 0 after bye");

    /* b: message by message; an unknown message type is ignored */
    CHECK(spawn(bot, &c, true) == 0, "spawn %s", bot);
    send_vector(dir, &c, "referee_hello");
    expect_hello(&c, "one by one");
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    msgpack_pack_str(&pk, 4), msgpack_pack_str_body(&pk, "type", 4);
    msgpack_pack_str(&pk, 6), msgpack_pack_str_body(&pk, "future", 6);
    msgpack_pack_str(&pk, 5), msgpack_pack_str_body(&pk, "extra", 5);
    msgpack_pack_int64(&pk, 7);
    FILE *to = fdopen(dup(c.to_bot), "wb");
    CHECK(proto_write_frame(to, sb.data, sb.size) == 0, "write an unknown message");
    fclose(to);
    msgpack_sbuffer_destroy(&sb);
    send_vector(dir, &c, "game_start_2022_single");
    send_vector(dir, &c, "act_2022_single");
    expect_action(&c, dir, "act_2022_single", "one by one");
    send_vector(dir, &c, "act_2022_single_owes_two");
    expect_action(&c, dir, "act_2022_single_owes_two", "one by one");
    send_vector(dir, &c, "game_over_2022_single");
    send_vector(dir, &c, "bye");
    CHECK(exited_zero(wait_exit(&c, 2000)), "one by one: exit status 0 within 2 s of bye");
    close(c.to_bot);
    close(c.from_bot);

    /* c: end of stdin without bye */
    CHECK(spawn(bot, &c, true) == 0, "spawn %s", bot);
    send_vector(dir, &c, "referee_hello");
    expect_hello(&c, "no bye");
    send_vector(dir, &c, "game_start_2022_single");
    close(c.to_bot);
    CHECK(exited_zero(wait_exit(&c, 2000)), "no bye: exit status 0 at the end of stdin");
    close(c.from_bot);
    printf("  end of stdin without bye: exit 0\n");

    /* d: a length prefix above 16 MiB: refused, exit with an error */
    CHECK(spawn(bot, &c, true) == 0, "spawn %s", bot);
    send_vector(dir, &c, "referee_hello");
    expect_hello(&c, "oversized");
    const char huge[4] = {0x01, 0x00, 0x00, 0x01};
    write_all(c.to_bot, huge, 4);
    int status = wait_exit(&c, 2000);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0,
          "oversized: the bot should exit with an error");
    close(c.to_bot);
    close(c.from_bot);
    printf("  a 16 MiB + 1 length prefix: the bot exits with status %d\n",
           status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* --- main ------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s VECTORS_DIR [BOT]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    const char *bot = argc == 3 ? argv[2] : "./bot";
    signal(SIGPIPE, SIG_IGN);

    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
        return 2;
    }
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 512) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0) {
            names[n] = strndup(e->d_name, len - 4);
            n++;
        }
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);

    printf("vectors with .bin and .json (decode, compare, encode):\n");
    size_t vectors = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(names[i], "bad_", 4) != 0) {
            check_vector(dir, names[i]);
            vectors++;
        }
    }
    printf("  %zu vectors checked\n", vectors);
    CHECK(vectors >= 19, "expected the golden vectors in %s, found %zu", dir, vectors);

    printf("broken frames (bad_frame_*):\n");
    for (size_t i = 0; i < n; i++) {
        if (strncmp(names[i], "bad_frame_", 10) == 0) {
            check_refused(dir, names[i]);
        }
    }

    printf("request ids up to 2^64 - 1:\n");
    check_large_request_id();

    printf("frames in pieces:\n");
    check_pieces();

    printf("the bot end to end (%s):\n", bot);
    check_bot(dir, bot);

    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    for (size_t i = 0; i < n_referee_frames; i++) {
        free(referee_frames[i].frame);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
