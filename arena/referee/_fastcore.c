/* arena.referee._fastcore: one game of ONO 99 for the referee's hot loop, in C.
 *
 * `Core` plays a game exactly as the Python engine `arena.rules.Game` does (that
 * engine stays the reference: this is a second implementation of it, ported function
 * by function, with the rule ids of its comments), and encodes the referee's `act`
 * frames itself, byte for byte as `protocol.encode_frame(_wire.act(...))` would
 * (msgpack-python's Packer(use_bin_type=True), dict keys in insertion order).
 * `arena.referee._core.PyCore` is the same API on the Python engine;
 * tests/referee/test_fastcore.py plays both side by side.
 *
 * The state is kept in C arrays: a card is its `Card` value (0..16), a hand holds at
 * most four cards, a pile at most a deck (112). Public events are C structs in a
 * growing array; each is encoded to msgpack once (when an act first needs it) and its
 * bytes are spliced into every act that carries it; event dicts are built only when
 * take_events()/news() ask for them. The randomness is the engine's own: every shuffle
 * calls `arena.rules._rng.Rng(seed).shuffle` on a list of the card values.
 *
 * No global mutable state: the module-level objects below are constants (interned
 * strings, imported classes and members), set up once at module init. The GIL is held
 * throughout.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ constants */

#define NCARDS 17
#define MAXP 6
#define HAND_SIZE 4      /* R3.1: cards dealt, and the most a hand holds */
#define MAXDECK 112
#define MAX_TOTAL 98     /* R4.2: the highest total a play may leave */
#define ROUND_ELIMINATED_POINTS 25 /* R9.3 */
#define NEST_LIMIT 511   /* msgpack-python's DEFAULT_RECURSE_LIMIT */
#define NONE_I64 INT64_MIN /* None in a round end's per-seat values */

enum {
    C_ONO99 = 11,
    C_REVERSE = 12,
    C_MINUS_TEN = 13,
    C_PLAY_TWO = 14,
    C_HOLD = 15,
    C_DOUBLE_PLAY = 16
};

enum { F_SINGLE, F_TOKENS, F_POINTS };

enum {
    CA_CANNOT_PLAY,
    CA_BUST,
    CA_TARGET,
    CA_TIMEOUT,
    CA_CRASH,
    CA_MALFORMED,
    CA_ILLEGAL,
    NCAUSES
};
static const char *const CAUSE_VALUES[NCAUSES] = {
    "cannot_play", "bust", "target", "timeout", "crash", "malformed", "illegal"};

enum { R_NONE = -1, R_LAST_PLAYER = 0, R_PLAY_CAP, R_TARGET, NREASONS };
static const char *const REASON_VALUES[NREASONS] = {"last_player", "play_cap", "target"};

enum {
    EV_ROUND_START,
    EV_PLAY,
    EV_DRAW,
    EV_RESHUFFLE,
    EV_QUAD,
    EV_BUST,
    EV_OWES_TWO,
    EV_OUT_OF_ROUND,
    EV_ELIMINATED,
    EV_TOKEN_LOST,
    EV_ROUND_END,
    NEVTYPES
};
static const char *const EVENT_NAMES[NEVTYPES] = {
    "round_start", "play", "draw", "reshuffle", "quad", "bust",
    "owes_two", "out_of_round", "eliminated", "token_lost", "round_end"};

/* Action codes: kind * 32 + card. */
enum { K_PLAY = 0, K_QUAD = 1, K_BUST = 2 };
#define ACT(kind, card) ((uint8_t)((kind) * 32 + (card)))
#define MAXLEGAL 16

/* Module-level constants, set at module init. */
static PyObject *S_shuffle, *S_value;
static PyObject *K_type, *K_seat, *K_card, *K_total, *K_count, *K_round, *K_starter,
    *K_hand_sizes, *K_draw_size, *K_cause, *K_cards, *K_place, *K_tokens, *K_hand_points,
    *K_scores;
/* the referee's log records (arena.referee._game): keys and values */
static PyObject *K_event, *K_request_id, *K_choice, *K_action, *K_ms, *K_kind, *S_event,
    *S_decision, *S_play, *S_bust, *S_quad;
static PyObject *EVENT_STR[NEVTYPES];
static PyObject *CODE_STR[NCARDS];     /* the wire code of each card */
static char CODE_MP[NCARDS][8];        /* its msgpack bytes */
static int CODE_MP_LEN[NCARDS];
static PyObject *CARD_OBJ[NCARDS];     /* Card members */
static PyObject *ACT_PLAY[NCARDS], *ACT_BUST[NCARDS], *ACT_QUAD; /* shared Action objects */
static PyObject *CAUSE_OBJ[NCAUSES], *CAUSE_STR[NCAUSES];
static PyObject *REASON_OBJ[NREASONS];
static PyObject *FAULTS;
static PyObject *RngType, *DeckFunc, *OutcomeType, *EliminationType;
static PyObject *RulesError, *GameOverError;

/* ------------------------------------------------------------------ buffers */

typedef struct {
    char *p;
    size_t len, cap;
} Buf;

static int buf_reserve(Buf *b, size_t need)
{
    if (b->cap - b->len >= need)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < need) {
        if (cap > ((size_t)PY_SSIZE_T_MAX) / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *p = PyMem_Realloc(b->p, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void buf_free(Buf *b)
{
    PyMem_Free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static inline int put(Buf *b, const void *data, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

static inline int put1(Buf *b, unsigned char c)
{
    if (b->len == b->cap && buf_reserve(b, 1) < 0)
        return -1;
    b->p[b->len++] = (char)c;
    return 0;
}

static inline void be16(unsigned char *o, uint16_t v)
{
    o[0] = (unsigned char)(v >> 8);
    o[1] = (unsigned char)v;
}

static inline void be32(unsigned char *o, uint32_t v)
{
    o[0] = (unsigned char)(v >> 24);
    o[1] = (unsigned char)(v >> 16);
    o[2] = (unsigned char)(v >> 8);
    o[3] = (unsigned char)v;
}

static inline void be64(unsigned char *o, uint64_t v)
{
    be32(o, (uint32_t)(v >> 32));
    be32(o + 4, (uint32_t)v);
}

/* ------------------------------------------------------------------ msgpack */

/* Integers in their smallest form, as msgpack-python's packer writes them. */
static int mp_uint(Buf *b, uint64_t v)
{
    unsigned char t[9];
    if (v < 128)
        return put1(b, (unsigned char)v);
    if (v < 256) {
        t[0] = 0xcc;
        t[1] = (unsigned char)v;
        return put(b, t, 2);
    }
    if (v < 65536) {
        t[0] = 0xcd;
        be16(t + 1, (uint16_t)v);
        return put(b, t, 3);
    }
    if (v <= 0xFFFFFFFFull) {
        t[0] = 0xce;
        be32(t + 1, (uint32_t)v);
        return put(b, t, 5);
    }
    t[0] = 0xcf;
    be64(t + 1, v);
    return put(b, t, 9);
}

static int mp_int(Buf *b, int64_t v)
{
    unsigned char t[9];
    if (v >= 0)
        return mp_uint(b, (uint64_t)v);
    if (v >= -32)
        return put1(b, (unsigned char)(0xe0 | (unsigned char)(v & 0x1f)));
    if (v >= -128) {
        t[0] = 0xd0;
        t[1] = (unsigned char)(int8_t)v;
        return put(b, t, 2);
    }
    if (v >= -32768) {
        t[0] = 0xd1;
        be16(t + 1, (uint16_t)(int16_t)v);
        return put(b, t, 3);
    }
    if (v >= -2147483648LL) {
        t[0] = 0xd2;
        be32(t + 1, (uint32_t)(int32_t)v);
        return put(b, t, 5);
    }
    t[0] = 0xd3;
    be64(t + 1, (uint64_t)v);
    return put(b, t, 9);
}

static int mp_header(Buf *b, size_t n, unsigned char fix, unsigned char c16, unsigned char c32)
{
    unsigned char t[5];
    if (n < 16)
        return put1(b, (unsigned char)(fix | n));
    if (n < 65536) {
        t[0] = c16;
        be16(t + 1, (uint16_t)n);
        return put(b, t, 3);
    }
    if (n > 0xFFFFFFFFull) {
        PyErr_SetString(PyExc_ValueError, "list is too large");
        return -1;
    }
    t[0] = c32;
    be32(t + 1, (uint32_t)n);
    return put(b, t, 5);
}

#define mp_array(b, n) mp_header((b), (n), 0x90, 0xdc, 0xdd)
#define mp_map(b, n) mp_header((b), (n), 0x80, 0xde, 0xdf)
#define mp_nil(b) put1((b), 0xc0)
#define mp_bool(b, v) put1((b), (v) ? 0xc3 : 0xc2)

/* The header of a str (fixstr, str8/16/32) or bin (bin8/16/32) of n bytes, then the
   bytes: `fix` is 0xa0 for a str (none for bin), c8/c16/c32 the codes of the sizes. */
static int mp_sized(Buf *b, const char *s, size_t n, unsigned char fix, unsigned char c8,
                    unsigned char c16, unsigned char c32, const char *too_large)
{
    unsigned char t[5];
    if (fix && n < 32) {
        if (put1(b, (unsigned char)(fix | n)) < 0)
            return -1;
    }
    else if (n < 256) {
        t[0] = c8;
        t[1] = (unsigned char)n;
        if (put(b, t, 2) < 0)
            return -1;
    }
    else if (n < 65536) {
        t[0] = c16;
        be16(t + 1, (uint16_t)n);
        if (put(b, t, 3) < 0)
            return -1;
    }
    else if (n <= 0xFFFFFFFFull) {
        t[0] = c32;
        be32(t + 1, (uint32_t)n);
        if (put(b, t, 5) < 0)
            return -1;
    }
    else {
        PyErr_SetString(PyExc_ValueError, too_large);
        return -1;
    }
    return put(b, s, n);
}

static int mp_str(Buf *b, const char *s, size_t n)
{
    return mp_sized(b, s, n, 0xa0, 0xd9, 0xda, 0xdb, "unicode string is too large");
}

/* A short ASCII key (fixstr). */
#define KEY(b, lit) mp_str((b), (lit), sizeof(lit) - 1)

static int mp_bin(Buf *b, const char *s, size_t n)
{
    return mp_sized(b, s, n, 0, 0xc4, 0xc5, 0xc6, "bytes object is too large");
}

static int mp_pylong(Buf *b, PyObject *o)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow == 0)
        return mp_int(b, (int64_t)v);
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (!(u == (unsigned long long)-1 && PyErr_Occurred()))
            return mp_uint(b, (uint64_t)u);
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
    }
    PyErr_SetString(PyExc_OverflowError, "Integer value out of range");
    return -1;
}

/* Any value, as msgpack-python's Packer(use_bin_type=True) packs it. */
static int mp_obj(Buf *b, PyObject *o, int nest)
{
    if (nest < 0) {
        PyErr_SetString(PyExc_ValueError, "recursion limit exceeded.");
        return -1;
    }
    if (o == Py_None)
        return mp_nil(b);
    if (o == Py_True)
        return put1(b, 0xc3);
    if (o == Py_False)
        return put1(b, 0xc2);
    if (PyLong_Check(o))
        return mp_pylong(b, o);
    if (PyFloat_Check(o)) {
        double d = PyFloat_AS_DOUBLE(o);
        uint64_t u;
        unsigned char t[9];
        memcpy(&u, &d, 8);
        t[0] = 0xcb;
        be64(t + 1, u);
        return put(b, t, 9);
    }
    if (PyBytes_Check(o))
        return mp_bin(b, PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o));
    if (PyByteArray_Check(o))
        return mp_bin(b, PyByteArray_AS_STRING(o), (size_t)PyByteArray_GET_SIZE(o));
    if (PyUnicode_Check(o)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == NULL)
            return -1;
        return mp_str(b, s, (size_t)n);
    }
    if (PyDict_Check(o)) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        if (mp_map(b, (size_t)PyDict_GET_SIZE(o)) < 0)
            return -1;
        while (PyDict_Next(o, &pos, &k, &v)) {
            int r;
            Py_INCREF(k);
            Py_INCREF(v);
            r = mp_obj(b, k, nest - 1);
            if (r == 0)
                r = mp_obj(b, v, nest - 1);
            Py_DECREF(k);
            Py_DECREF(v);
            if (r < 0)
                return -1;
        }
        return 0;
    }
    if (PyList_Check(o) || PyTuple_Check(o)) {
        PyObject *seq = PySequence_Fast(o, "not a sequence");
        if (seq == NULL)
            return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (mp_array(b, (size_t)n) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            int r;
            Py_INCREF(item);
            r = mp_obj(b, item, nest - 1);
            Py_DECREF(item);
            if (r < 0) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
        return 0;
    }
    if (PyMemoryView_Check(o)) {
        Py_buffer view;
        int r;
        if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0)
            return -1;
        r = mp_bin(b, view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        return r;
    }
    PyObject *name = PyType_GetName(Py_TYPE(o));
    if (name == NULL)
        return -1;
    PyErr_Format(PyExc_TypeError, "can not serialize %R object", name);
    Py_DECREF(name);
    return -1;
}

/* ------------------------------------------------------------------ the game state */

typedef struct {
    uint8_t type;
    uint8_t seat;    /* PLAY, DRAW, QUAD, BUST, OWES_TWO, OUT_OF_ROUND, ELIMINATED,
                        TOKEN_LOST; ROUND_START: the starter */
    uint8_t card;    /* PLAY, BUST */
    uint8_t cause;   /* ELIMINATED */
    uint8_t ncards;  /* ELIMINATED: cards laid face up; ROUND_START: seats */
    uint8_t cards[MAXP]; /* ELIMINATED: the cards; ROUND_START: the hand sizes */
    int64_t a;       /* ROUND_START, ROUND_END: round; PLAY: total; DRAW, RESHUFFLE: count;
                        ELIMINATED: place; TOKEN_LOST: the tokens left (fast tokens) or
                        the index of its value in tok_list (slow tokens) */
    int64_t b;       /* ROUND_START: draw size; ROUND_END: index of its values in rend */
} Event;

typedef struct {
    int seat, cause, place;
    int64_t round, plays;
} Elim;

typedef struct {
    PyObject_HEAD
    int ready;
    int busy;      /* inside a change: a shuffle runs Python code, which may switch threads */
    /* the rules */
    int n, e1980, tens, fmt, lowest;
    uint8_t deck[MAXDECK];
    int ndeck;
    PyObject *rng;
    PyObject *target;      /* compared with Python's >= unless target_fast */
    int target_fast;
    int64_t target_c;
    PyObject *cap_obj;     /* compared with Python's >= unless cap_fast */
    int cap_fast;
    int64_t cap;
    /* the state */
    uint8_t hands[MAXP][HAND_SIZE];
    int hlen[MAXP];
    uint8_t draw[MAXDECK]; /* top last */
    int ndraw;
    uint8_t discard[MAXDECK]; /* bottom first */
    int ndiscard;
    int nout;
    uint8_t face[MAXP][HAND_SIZE];
    int nface[MAXP];
    int64_t total;
    int direction;
    uint8_t in_game[MAXP], in_round[MAXP];
    int alive, round_alive;
    int places[MAXP];
    int has_tokens, tok_slow;
    int64_t tok[MAXP];         /* the tokens left (fast: an int in int64) */
    PyObject *tok_obj[MAXP];   /* the tokens left (slow: any object GameConfig took) */
    PyObject *tok_list;        /* slow: the values of the TokenLost events */
    int has_scores;
    int64_t scores[MAXP];
    Elim elims[MAXP];
    int nelims;
    int64_t round;
    int starter;
    int64_t plays;
    int current, owes, tens_used;
    uint8_t legal[MAXLEGAL];
    int nlegal;
    int reason;
    PyObject *legal_tuple; /* legal_actions(), built when first asked */
    /* the events */
    Event *ev;
    size_t nev, evcap;
    int64_t *rend; /* per round end: hand points then scores, n each */
    size_t nrend, rendcap;
    Buf evbuf;     /* msgpack of events 0..nenc-1 */
    size_t *evoff; /* evoff[i]: the start of event i in evbuf; nenc + 1 entries */
    size_t nenc, evoffcap;
    size_t nbad;   /* events msgpack cannot hold, left empty in evbuf */
    size_t taken;
    size_t heard[MAXP];
    Buf out;       /* scratch for act frames */
} Core;

static PyTypeObject CoreType;

/* ------------------------------------------------------------------ events */

static Event *ev_push(Core *s, int type)
{
    if (s->nev == s->evcap) {
        size_t cap = s->evcap ? s->evcap * 2 : 256;
        if (cap > PY_SSIZE_T_MAX / sizeof(Event)) {
            PyErr_NoMemory();
            return NULL;
        }
        Event *ev = PyMem_Realloc(s->ev, cap * sizeof(Event));
        if (ev == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        s->ev = ev;
        s->evcap = cap;
    }
    Event *e = &s->ev[s->nev++];
    memset(e, 0, sizeof(*e));
    e->type = (uint8_t)type;
    return e;
}

static int ev_seat(Core *s, int type, int seat)
{
    Event *e = ev_push(s, type);
    if (e == NULL)
        return -1;
    e->seat = (uint8_t)seat;
    return 0;
}

/* The tokens a TokenLost event, or a seat now, shows (a new reference). */
static PyObject *tokens_value(Core *s, int seat)
{
    if (s->tok_slow) {
        Py_INCREF(s->tok_obj[seat]);
        return s->tok_obj[seat];
    }
    return PyLong_FromLongLong(s->tok[seat]);
}

static PyObject *event_tokens(Core *s, const Event *e)
{
    if (s->tok_slow) {
        PyObject *v = PyList_GetItem(s->tok_list, (Py_ssize_t)e->a);
        Py_XINCREF(v);
        return v;
    }
    return PyLong_FromLongLong(e->a);
}

static int mp_event(Core *s, Buf *b, const Event *e)
{
    int n = s->n;
    const char *name = EVENT_NAMES[e->type];
    static const unsigned char fields[NEVTYPES] = {5, 4, 3, 2, 2, 3, 2, 2, 5, 3, 4};
    if (mp_map(b, fields[e->type]) < 0 || KEY(b, "type") < 0 || mp_str(b, name, strlen(name)) < 0)
        return -1;
    switch (e->type) {
    case EV_ROUND_START:
        if (KEY(b, "round") < 0 || mp_int(b, e->a) < 0 || KEY(b, "starter") < 0 ||
            mp_int(b, e->seat) < 0 || KEY(b, "hand_sizes") < 0 || mp_array(b, e->ncards) < 0)
            return -1;
        for (int i = 0; i < e->ncards; i++)
            if (mp_int(b, e->cards[i]) < 0)
                return -1;
        if (KEY(b, "draw_size") < 0 || mp_int(b, e->b) < 0)
            return -1;
        return 0;
    case EV_PLAY:
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0 || KEY(b, "card") < 0 ||
            put(b, CODE_MP[e->card], (size_t)CODE_MP_LEN[e->card]) < 0 || KEY(b, "total") < 0 ||
            mp_int(b, e->a) < 0)
            return -1;
        return 0;
    case EV_DRAW:
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0 || KEY(b, "count") < 0 ||
            mp_int(b, e->a) < 0)
            return -1;
        return 0;
    case EV_RESHUFFLE:
        if (KEY(b, "count") < 0 || mp_int(b, e->a) < 0)
            return -1;
        return 0;
    case EV_QUAD:
    case EV_OWES_TWO:
    case EV_OUT_OF_ROUND:
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0)
            return -1;
        return 0;
    case EV_BUST:
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0 || KEY(b, "card") < 0 ||
            put(b, CODE_MP[e->card], (size_t)CODE_MP_LEN[e->card]) < 0)
            return -1;
        return 0;
    case EV_ELIMINATED: {
        const char *cause = CAUSE_VALUES[e->cause];
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0 || KEY(b, "cause") < 0 ||
            mp_str(b, cause, strlen(cause)) < 0 || KEY(b, "cards") < 0 ||
            mp_array(b, e->ncards) < 0)
            return -1;
        for (int i = 0; i < e->ncards; i++)
            if (put(b, CODE_MP[e->cards[i]], (size_t)CODE_MP_LEN[e->cards[i]]) < 0)
                return -1;
        if (KEY(b, "place") < 0 || mp_int(b, e->a) < 0)
            return -1;
        return 0;
    }
    case EV_TOKEN_LOST: {
        if (KEY(b, "seat") < 0 || mp_int(b, e->seat) < 0 || KEY(b, "tokens") < 0)
            return -1;
        if (!s->tok_slow)
            return mp_int(b, e->a);
        PyObject *v = event_tokens(s, e);
        if (v == NULL)
            return -1;
        int r = mp_obj(b, v, NEST_LIMIT - 3);
        Py_DECREF(v);
        return r;
    }
    case EV_ROUND_END: {
        const int64_t *vals = s->rend + e->b;
        if (KEY(b, "round") < 0 || mp_int(b, e->a) < 0 || KEY(b, "hand_points") < 0 ||
            mp_array(b, (size_t)n) < 0)
            return -1;
        for (int i = 0; i < n; i++)
            if ((vals[i] == NONE_I64 ? mp_nil(b) : mp_int(b, vals[i])) < 0)
                return -1;
        if (KEY(b, "scores") < 0 || mp_array(b, (size_t)n) < 0)
            return -1;
        for (int i = 0; i < n; i++)
            if ((vals[n + i] == NONE_I64 ? mp_nil(b) : mp_int(b, vals[n + i])) < 0)
                return -1;
        return 0;
    }
    }
    PyErr_SetString(PyExc_SystemError, "unknown event type");
    return -1;
}

/* Encode the events up to `upto` into the cache. */
static int encode_events(Core *s, size_t upto)
{
    if (s->evoff == NULL || s->evoffcap < upto + 1) {
        size_t cap = s->evoffcap ? s->evoffcap : 256;
        while (cap < upto + 1)
            cap *= 2;
        size_t *off = PyMem_Realloc(s->evoff, cap * sizeof(size_t));
        if (off == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (s->evoff == NULL)
            off[0] = 0;
        s->evoff = off;
        s->evoffcap = cap;
    }
    while (s->nenc < upto) {
        size_t mark = s->evbuf.len;
        if (mp_event(s, &s->evbuf, &s->ev[s->nenc]) < 0) {
            /* msgpack cannot hold it (tokens past 2**64): left empty, and encoded again
               (raising again) into every act whose news carry it, as msgpack-python
               would raise packing the news of that act only */
            if (PyErr_ExceptionMatches(PyExc_MemoryError))
                return -1;
            PyErr_Clear();
            s->evbuf.len = mark;
            s->nbad++;
        }
        s->nenc++;
        s->evoff[s->nenc] = s->evbuf.len;
    }
    return 0;
}

/* The msgpack of events start..nev-1 (encoded once) into b. */
static int put_events(Core *s, Buf *b, size_t start)
{
    if (encode_events(s, s->nev) < 0)
        return -1;
    if (s->nbad == 0)
        return put(b, s->evbuf.p + s->evoff[start], s->evoff[s->nev] - s->evoff[start]);
    for (size_t i = start; i < s->nev; i++) {
        size_t len = s->evoff[i + 1] - s->evoff[i];
        if ((len ? put(b, s->evbuf.p + s->evoff[i], len) : mp_event(s, b, &s->ev[i])) < 0)
            return -1;
    }
    return 0;
}

static PyObject *list_of_ints(const uint8_t *v, int n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static PyObject *list_of_codes(const uint8_t *cards, int n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        Py_INCREF(CODE_STR[cards[i]]);
        PyList_SET_ITEM(l, i, CODE_STR[cards[i]]);
    }
    return l;
}

static PyObject *list_of_optional(const int64_t *v, int n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x;
        if (v[i] == NONE_I64) {
            x = Py_None;
            Py_INCREF(x);
        }
        else if ((x = PyLong_FromLongLong(v[i])) == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

/* dict[key] = value, stealing the reference to value. */
static int set_steal(PyObject *d, PyObject *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int r = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return r;
}

static int set_borrowed(PyObject *d, PyObject *key, PyObject *value)
{
    return PyDict_SetItem(d, key, value);
}

/* The wire dict of an event, as arena.referee._wire.event_to_dict gives it. */
static PyObject *event_dict(Core *s, const Event *e)
{
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (set_borrowed(d, K_type, EVENT_STR[e->type]) < 0)
        goto fail;
    switch (e->type) {
    case EV_ROUND_START:
        if (set_steal(d, K_round, PyLong_FromLongLong(e->a)) < 0 ||
            set_steal(d, K_starter, PyLong_FromLong(e->seat)) < 0 ||
            set_steal(d, K_hand_sizes, list_of_ints(e->cards, e->ncards)) < 0 ||
            set_steal(d, K_draw_size, PyLong_FromLongLong(e->b)) < 0)
            goto fail;
        break;
    case EV_PLAY:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0 ||
            set_borrowed(d, K_card, CODE_STR[e->card]) < 0 ||
            set_steal(d, K_total, PyLong_FromLongLong(e->a)) < 0)
            goto fail;
        break;
    case EV_DRAW:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0 ||
            set_steal(d, K_count, PyLong_FromLongLong(e->a)) < 0)
            goto fail;
        break;
    case EV_RESHUFFLE:
        if (set_steal(d, K_count, PyLong_FromLongLong(e->a)) < 0)
            goto fail;
        break;
    case EV_QUAD:
    case EV_OWES_TWO:
    case EV_OUT_OF_ROUND:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0)
            goto fail;
        break;
    case EV_BUST:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0 ||
            set_borrowed(d, K_card, CODE_STR[e->card]) < 0)
            goto fail;
        break;
    case EV_ELIMINATED:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0 ||
            set_borrowed(d, K_cause, CAUSE_STR[e->cause]) < 0 ||
            set_steal(d, K_cards, list_of_codes(e->cards, e->ncards)) < 0 ||
            set_steal(d, K_place, PyLong_FromLongLong(e->a)) < 0)
            goto fail;
        break;
    case EV_TOKEN_LOST:
        if (set_steal(d, K_seat, PyLong_FromLong(e->seat)) < 0 ||
            set_steal(d, K_tokens, event_tokens(s, e)) < 0)
            goto fail;
        break;
    case EV_ROUND_END:
        if (set_steal(d, K_round, PyLong_FromLongLong(e->a)) < 0 ||
            set_steal(d, K_hand_points, list_of_optional(s->rend + e->b, s->n)) < 0 ||
            set_steal(d, K_scores, list_of_optional(s->rend + e->b + s->n, s->n)) < 0)
            goto fail;
        break;
    default:
        PyErr_SetString(PyExc_SystemError, "unknown event type");
        goto fail;
    }
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

static PyObject *event_dicts(Core *s, size_t start, size_t stop)
{
    PyObject *l = PyList_New((Py_ssize_t)(stop - start));
    if (l == NULL)
        return NULL;
    for (size_t i = start; i < stop; i++) {
        PyObject *d = event_dict(s, &s->ev[i]);
        if (d == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)(i - start), d);
    }
    return l;
}

/* ------------------------------------------------------------------ the rules */

static int card_score(int card)
{
    if (card <= 10)
        return card;
    if (card == C_ONO99)
        return 20;
    return 15;
}

static void sort_cards(uint8_t *c, int n)
{
    for (int i = 1; i < n; i++) {
        uint8_t v = c[i];
        int j = i - 1;
        while (j >= 0 && c[j] > v) {
            c[j + 1] = c[j];
            j--;
        }
        c[j + 1] = v;
    }
}

static int hand_remove(Core *s, int seat, int card)
{
    uint8_t *h = s->hands[seat];
    for (int i = 0; i < s->hlen[seat]; i++) {
        if (h[i] == card) {
            /* the order of a hand is never seen: it is shown sorted */
            h[i] = h[--s->hlen[seat]];
            return 0;
        }
    }
    PyErr_SetString(PyExc_SystemError, "card not in hand");
    return -1;
}

static int hand_add(Core *s, int seat, int card)
{
    if (s->hlen[seat] >= HAND_SIZE) {
        PyErr_SetString(PyExc_SystemError, "a hand of more than four cards");
        return -1;
    }
    s->hands[seat][s->hlen[seat]++] = (uint8_t)card;
    return 0;
}

static int discard_push(Core *s, int card)
{
    if (s->ndiscard >= MAXDECK) {
        PyErr_SetString(PyExc_SystemError, "a discard pile of more than a deck");
        return -1;
    }
    s->discard[s->ndiscard++] = (uint8_t)card;
    return 0;
}

static int rng_shuffle(Core *s, uint8_t *cards, int len)
{
    if (s->rng == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the game was cleared");
        return -1;
    }
    PyObject *lst = list_of_ints(cards, len);
    if (lst == NULL)
        return -1;
    PyObject *r = PyObject_CallMethodOneArg(s->rng, S_shuffle, lst);
    if (r == NULL) {
        Py_DECREF(lst);
        return -1;
    }
    Py_DECREF(r);
    if (PyList_GET_SIZE(lst) != len) {
        Py_DECREF(lst);
        PyErr_SetString(PyExc_SystemError, "shuffle changed the length of the pile");
        return -1;
    }
    for (int i = 0; i < len; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(lst, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(lst);
            return -1;
        }
        if (v < 0 || v >= NCARDS) {
            Py_DECREF(lst);
            PyErr_SetString(PyExc_SystemError, "shuffle gave an unknown card");
            return -1;
        }
        cards[i] = (uint8_t)v;
    }
    Py_DECREF(lst);
    return 0;
}

static int finish(Core *s, int reason);
static int start_round(Core *s);

static int next_in_game(Core *s, int seat)
{
    int n = s->n;
    for (int step = 1; step <= n; step++) {
        int t = (seat + step) % n;
        if (s->in_game[t])
            return t;
    }
    PyErr_SetString(PyExc_AssertionError, "no player left in the game");
    return -1;
}

static int begin_turn(Core *s, int seat, int owes)
{
    s->current = seat;
    s->owes = owes;
    s->tens_used = 0;
    if (owes == 2)
        return ev_seat(s, EV_OWES_TWO, seat);
    return 0;
}

/* End `seat`'s turn: the next player in the round, in the direction, moves (R4.4). */
static int pass_turn(Core *s, int seat, int owes)
{
    int n = s->n, d = s->direction, t = seat;
    for (int i = 0; i < n; i++) {
        t = ((t + d) % n + n) % n;
        if (s->in_round[t])
            return begin_turn(s, t, owes);
    }
    PyErr_SetString(PyExc_AssertionError, "no player left in the round");
    return -1;
}

/* Deal a fresh round among the players still in the game (R3.1, R9.4). */
static int start_round(Core *s)
{
    int n = s->n;
    s->round += 1;
    if (s->round > 1) {
        int t = next_in_game(s, s->starter);
        if (t < 0)
            return -1;
        s->starter = t;
    }
    uint8_t cards[MAXDECK];
    memcpy(cards, s->deck, (size_t)s->ndeck);
    if (rng_shuffle(s, cards, s->ndeck) < 0)
        return -1;
    memcpy(s->draw, cards, (size_t)s->ndeck);
    s->ndraw = s->ndeck;
    s->ndiscard = 0;
    s->nout = 0;
    for (int i = 0; i < n; i++) {
        s->nface[i] = 0;
        s->hlen[i] = 0;
        s->in_round[i] = s->in_game[i];
    }
    s->total = 0;
    s->direction = 1;
    s->round_alive = s->alive;
    int order[MAXP], norder = 0;
    for (int i = 0; i < n; i++) {
        int t = (s->starter + i) % n;
        if (s->in_game[t])
            order[norder++] = t;
    }
    for (int k = 0; k < HAND_SIZE; k++) {
        for (int i = 0; i < norder; i++) {
            if (s->ndraw <= 0) {
                PyErr_SetString(PyExc_IndexError, "pop from empty list");
                return -1;
            }
            if (hand_add(s, order[i], s->draw[--s->ndraw]) < 0)
                return -1;
        }
    }
    Event *e = ev_push(s, EV_ROUND_START);
    if (e == NULL)
        return -1;
    e->a = s->round;
    e->seat = (uint8_t)s->starter;
    e->ncards = (uint8_t)n;
    for (int i = 0; i < n; i++)
        e->cards[i] = (uint8_t)s->hlen[i];
    e->b = s->ndraw;
    return begin_turn(s, s->starter, 1);
}

static void compute_legal(Core *s)
{
    int seat = s->current;
    int cnt[NCARDS] = {0};
    uint8_t unplayable[NCARDS];
    int nu = 0, k = 0;
    int64_t total = s->total;
    for (int i = 0; i < s->hlen[seat]; i++)
        cnt[s->hands[seat][i]]++;
    for (int card = 0; card < NCARDS; card++) {
        if (!cnt[card])
            continue;
        if (card <= 10) {
            if (total + card <= MAX_TOTAL) /* R4.2, R6.1 */
                s->legal[k++] = ACT(K_PLAY, card);
            else
                unplayable[nu++] = (uint8_t)card;
        }
        else if (card == C_ONO99) {
            /* R6.2: never in 2022; R8.4: on a total ending in zero, once a turn.
               Never a busting card either: it can never be played. */
            if (s->tens && !s->tens_used && total % 10 == 0)
                s->legal[k++] = ACT(K_PLAY, card);
        }
        else if (card == C_DOUBLE_PLAY) {
            if (s->owes != 2) /* R7.5: not the first of two owed cards */
                s->legal[k++] = ACT(K_PLAY, card);
            else
                unplayable[nu++] = (uint8_t)card;
        }
        else { /* Reverse, -10, Play 2, Hold add 0 or less (R6.4-R6.7) */
            s->legal[k++] = ACT(K_PLAY, card);
        }
    }
    if (!s->e1980 && cnt[C_ONO99] == 4) /* R6.3: four in a hand of four */
        s->legal[k++] = ACT(K_QUAD, 0);
    if (s->fmt == F_POINTS) {
        /* R9.3: a player with no playable card must bust with a card of their choice;
           R4.2 [ruling]: in this format alone a player may bust with a playable card
           in hand too. Either way the busting card is one that cannot be played. */
        for (int i = 0; i < nu; i++)
            s->legal[k++] = ACT(K_BUST, unplayable[i]);
    }
    s->nlegal = k;
}

/* Draw `count` cards for `seat`, reshuffling the discard pile when needed (R4.3). */
static int draw_cards(Core *s, int seat, int count)
{
    int drawn = 0;
    for (int i = 0; i < count; i++) {
        if (s->ndraw == 0) {
            if (s->ndiscard == 0)
                break; /* R4.3 [ruling]: both piles empty, no card is drawn */
            if (s->ndiscard > MAXDECK) {
                PyErr_SetString(PyExc_SystemError, "a discard pile of more than a deck");
                return -1;
            }
            memcpy(s->draw, s->discard, (size_t)s->ndiscard);
            s->ndraw = s->ndiscard;
            s->ndiscard = 0;
            if (rng_shuffle(s, s->draw, s->ndraw) < 0)
                return -1;
            Event *e = ev_push(s, EV_RESHUFFLE);
            if (e == NULL)
                return -1;
            e->a = s->ndraw;
        }
        if (s->ndraw <= 0 || s->ndraw > MAXDECK) {
            PyErr_SetString(PyExc_SystemError, "the draw pile changed under a draw");
            return -1;
        }
        if (hand_add(s, seat, s->draw[--s->ndraw]) < 0)
            return -1;
        drawn++;
    }
    Event *e = ev_push(s, EV_DRAW);
    if (e == NULL)
        return -1;
    e->seat = (uint8_t)seat;
    e->a = drawn;
    return 0;
}

static int ge_slow(int64_t value, PyObject *limit)
{
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL)
        return -1;
    int r = PyObject_RichCompareBool(v, limit, Py_GE);
    Py_DECREF(v);
    return r;
}

/* Count a play; end the game if that reaches the play cap (R5.4). 1 if it ended. */
static int count_play(Core *s)
{
    s->plays += 1;
    int reached = s->cap_fast ? s->plays >= s->cap : ge_slow(s->plays, s->cap_obj);
    if (reached < 0)
        return -1;
    if (reached) {
        if (finish(s, R_PLAY_CAP) < 0)
            return -1;
        return 1;
    }
    return 0;
}

static void leave_round(Core *s, int seat)
{
    s->in_round[seat] = 0;
    s->round_alive -= 1;
}

static void out_of_game(Core *s, int seat)
{
    s->in_game[seat] = 0;
    s->alive -= 1;
    if (s->in_round[seat])
        leave_round(s, seat);
}

/* End the game: those still in share the best remaining place (R5.2, R5.4). */
static int finish(Core *s, int reason)
{
    for (int i = 0; i < s->n; i++)
        if (s->in_game[i] && s->places[i] == 0)
            s->places[i] = 1;
    s->reason = reason;
    s->nlegal = 0;
    return 0;
}

static int add_elimination(Core *s, int seat, int cause, int place)
{
    if (s->nelims >= MAXP) {
        PyErr_SetString(PyExc_SystemError, "too many eliminations");
        return -1;
    }
    Elim *el = &s->elims[s->nelims++];
    el->seat = seat;
    el->cause = cause;
    el->place = place;
    el->round = s->round;
    el->plays = s->plays;
    return 0;
}

/* Take `seat` out of the game, ranked below everyone still in it (R5.3). */
static int eliminate_seat(Core *s, int seat, int cause)
{
    int place = s->alive;
    out_of_game(s, seat);
    uint8_t cards[HAND_SIZE];
    int nc = s->hlen[seat];
    memcpy(cards, s->hands[seat], (size_t)nc);
    sort_cards(cards, nc);
    memcpy(s->face[seat], cards, (size_t)nc);
    s->nface[seat] = nc;
    s->nout += nc; /* R5.1: laid face up, out of play, never reshuffled */
    s->hlen[seat] = 0;
    s->places[seat] = place;
    if (add_elimination(s, seat, cause, place) < 0)
        return -1;
    Event *e = ev_push(s, EV_ELIMINATED);
    if (e == NULL)
        return -1;
    e->seat = (uint8_t)seat;
    e->cause = (uint8_t)cause;
    e->ncards = (uint8_t)nc;
    memcpy(e->cards, cards, (size_t)nc);
    e->a = place;
    if (s->alive == 1)
        return finish(s, R_LAST_PLAYER);
    return 0;
}

/* Give `seats` the worst places still free, ranked by score, lowest first. */
static int rank_by_score(Core *s, const int *seats, int nseats, int cause)
{
    int base = s->alive - nseats + 1;
    for (int i = 0; i < nseats; i++) {
        int better = 0;
        for (int j = 0; j < nseats; j++)
            if (s->scores[seats[j]] < s->scores[seats[i]])
                better++;
        s->places[seats[i]] = base + better;
    }
    if (cause < 0)
        return 0;
    /* sorted by (place, seat), worst first */
    int order[MAXP];
    memcpy(order, seats, sizeof(int) * (size_t)nseats);
    for (int i = 1; i < nseats; i++) {
        int v = order[i], j = i - 1;
        while (j >= 0 && (s->places[order[j]] < s->places[v] ||
                          (s->places[order[j]] == s->places[v] && order[j] < v))) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = v;
    }
    for (int i = 0; i < nseats; i++) {
        int seat = order[i];
        out_of_game(s, seat);
        int place = s->places[seat];
        if (add_elimination(s, seat, cause, place) < 0)
            return -1;
        Event *e = ev_push(s, EV_ELIMINATED);
        if (e == NULL)
            return -1;
        e->seat = (uint8_t)seat;
        e->cause = (uint8_t)cause;
        e->ncards = 0;
        e->a = place;
    }
    return 0;
}

/* Score a points round (R9.3) and apply the ending (R9.3.a, R9.3.b). */
static int end_points_round(Core *s)
{
    int n = s->n;
    if (s->nrend + 2 * (size_t)n > s->rendcap) {
        size_t cap = s->rendcap ? s->rendcap * 2 : 64;
        while (cap < s->nrend + 2 * (size_t)n)
            cap *= 2;
        int64_t *r = PyMem_Realloc(s->rend, cap * sizeof(int64_t));
        if (r == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->rend = r;
        s->rendcap = cap;
    }
    int64_t *vals = s->rend + s->nrend;
    for (int seat = 0; seat < n; seat++) {
        if (s->in_game[seat]) {
            /* R8.5 [ruling]: the arena draws for the bot, so no card is ever "short". */
            int64_t pts = 0;
            for (int i = 0; i < s->hlen[seat]; i++)
                pts += card_score(s->hands[seat][i]);
            if (!s->in_round[seat])
                pts += ROUND_ELIMINATED_POINTS;
            vals[seat] = pts;
            s->scores[seat] += pts;
        }
        else {
            vals[seat] = NONE_I64;
        }
    }
    for (int seat = 0; seat < n; seat++)
        vals[n + seat] = s->in_game[seat] ? s->scores[seat] : NONE_I64;
    Event *e = ev_push(s, EV_ROUND_END);
    if (e == NULL)
        return -1;
    e->a = s->round;
    e->b = (int64_t)s->nrend;
    s->nrend += 2 * (size_t)n;
    int alive[MAXP], nalive = 0, reached[MAXP], nreached = 0;
    for (int seat = 0; seat < n; seat++) {
        if (!s->in_game[seat])
            continue;
        alive[nalive++] = seat;
        int r = s->target_fast ? s->scores[seat] >= s->target_c
                               : ge_slow(s->scores[seat], s->target);
        if (r < 0)
            return -1;
        if (r)
            reached[nreached++] = seat;
    }
    if (nreached == 0)
        return start_round(s);
    if (s->lowest || nreached == nalive) {
        if (rank_by_score(s, alive, nalive, -1) < 0) /* R9.3.b; R9.3.a everyone at once */
            return -1;
        return finish(s, R_TARGET);
    }
    if (rank_by_score(s, reached, nreached, CA_TARGET) < 0) /* R9.3.a */
        return -1;
    if (s->alive == 1)
        return finish(s, R_LAST_PLAYER);
    return start_round(s);
}

/* `seat` has no legal action at all (R5.1). */
static int cannot_play(Core *s, int seat)
{
    if (s->fmt == F_SINGLE) {
        if (eliminate_seat(s, seat, CA_CANNOT_PLAY) < 0)
            return -1;
        if (s->reason == R_NONE)
            return pass_turn(s, seat, 1); /* R7.4: the obligation ends with them */
        return 0;
    }
    if (s->fmt == F_TOKENS) {
        /* R9.2: the round ends at the first player who cannot play. */
        int zero;
        if (s->tok_slow) {
            PyObject *z = PyLong_FromLong(0);
            if (z == NULL)
                return -1;
            zero = PyObject_RichCompareBool(s->tok_obj[seat], z, Py_EQ);
            Py_DECREF(z);
            if (zero < 0)
                return -1;
        }
        else {
            zero = s->tok[seat] == 0;
        }
        if (zero) {
            if (eliminate_seat(s, seat, CA_CANNOT_PLAY) < 0)
                return -1;
        }
        else {
            Event *e;
            if (s->tok_slow) {
                PyObject *one = PyLong_FromLong(1);
                if (one == NULL)
                    return -1;
                PyObject *v = PyNumber_InPlaceSubtract(s->tok_obj[seat], one);
                Py_DECREF(one);
                if (v == NULL)
                    return -1;
                Py_SETREF(s->tok_obj[seat], v);
                if (PyList_Append(s->tok_list, v) < 0)
                    return -1;
                if ((e = ev_push(s, EV_TOKEN_LOST)) == NULL)
                    return -1;
                e->a = PyList_GET_SIZE(s->tok_list) - 1;
            }
            else {
                s->tok[seat] -= 1;
                if ((e = ev_push(s, EV_TOKEN_LOST)) == NULL)
                    return -1;
                e->a = s->tok[seat];
            }
            e->seat = (uint8_t)seat;
        }
        if (s->reason == R_NONE)
            return start_round(s);
        return 0;
    }
    /* R9.3 (1980): a hand of only ONO 99 cards ends the turn without a play and is
       out of the round; [ruling] so is a hand with no card at all. */
    if (ev_seat(s, EV_OUT_OF_ROUND, seat) < 0)
        return -1;
    leave_round(s, seat);
    if (s->round_alive == 1)
        return end_points_round(s);
    return pass_turn(s, seat, 1);
}

/* Resolve every step that needs no decision, up to the next decision or the end. */
static int settle(Core *s)
{
    Py_CLEAR(s->legal_tuple);
    while (s->reason == R_NONE) {
        compute_legal(s);
        if (s->nlegal)
            return 0;
        if (cannot_play(s, s->current) < 0)
            return -1;
    }
    s->nlegal = 0;
    return 0;
}

static int do_play(Core *s, int card)
{
    /* The hot path of every game: kept flat on purpose. */
    int seat = s->current;
    if (hand_remove(s, seat, card) < 0)
        return -1;
    if (discard_push(s, card) < 0)
        return -1;
    int first_of_two = s->owes == 2;
    int answered = 0; /* R7.2: the obligation passes on to the next player */
    if (card <= 10) {
        s->total += card; /* R6.1 */
    }
    else if (card == C_MINUS_TEN) {
        s->total -= 10; /* R6.5 */
        if (s->total < 0 && !s->e1980) /* R8.2: 1980 totals may go negative */
            s->total = 0;
    }
    else if (card == C_REVERSE) {
        if (s->alive > 2) { /* R6.4 [ruling]: two left in the game, a Reverse does nothing */
            s->direction = -s->direction;
            answered = first_of_two;
        }
    }
    else if (card == C_PLAY_TWO || card == C_DOUBLE_PLAY) {
        answered = 1; /* R6.6; R7.2 as an answer; R7.4 as a second card */
    }
    else if (card == C_HOLD) {
        answered = first_of_two; /* R7.5 */
    }
    else { /* ONO 99 on a ten (R8.4) */
        s->tens_used = 1;
    }
    Event *e = ev_push(s, EV_PLAY);
    if (e == NULL)
        return -1;
    e->seat = (uint8_t)seat;
    e->card = (uint8_t)card;
    e->a = s->total;
    if (draw_cards(s, seat, 1) < 0) /* R4.3 */
        return -1;
    int ended = count_play(s);
    if (ended)
        return ended < 0 ? -1 : 0;
    if (first_of_two && !answered) {
        s->owes = 1; /* R7.1: now the second card */
        return 0;
    }
    return pass_turn(s, seat, answered ? 2 : 1);
}

static int do_quad(Core *s)
{
    int seat = s->current;
    for (int i = 0; i < HAND_SIZE; i++) {
        if (hand_remove(s, seat, C_ONO99) < 0)
            return -1;
        if (discard_push(s, C_ONO99) < 0)
            return -1;
    }
    if (ev_seat(s, EV_QUAD, seat) < 0)
        return -1;
    if (draw_cards(s, seat, HAND_SIZE) < 0) /* R6.3: the four new cards are the refill */
        return -1;
    int ended = count_play(s);
    if (ended)
        return ended < 0 ? -1 : 0;
    if (s->owes == 2) { /* R6.3 [ruling]: counts as one of the two cards */
        s->owes = 1;
        return 0;
    }
    return pass_turn(s, seat, 1);
}

static int do_bust(Core *s, int card)
{
    int seat = s->current;
    if (hand_remove(s, seat, card) < 0)
        return -1;
    if (discard_push(s, card) < 0) /* R9.3 [ruling]: the total stays as it was */
        return -1;
    Event *e = ev_push(s, EV_BUST);
    if (e == NULL)
        return -1;
    e->seat = (uint8_t)seat;
    e->card = (uint8_t)card;
    leave_round(s, seat);
    if (draw_cards(s, seat, HAND_SIZE - s->hlen[seat]) < 0) /* R9.3: draw back up to four */
        return -1;
    int ended = count_play(s);
    if (ended)
        return ended < 0 ? -1 : 0;
    if (s->round_alive == 1)
        return end_points_round(s);
    return pass_turn(s, seat, 1); /* R7.4: an obligation ends with the busted player */
}

/* ------------------------------------------------------------------ argument helpers */

static int check_ready(Core *s)
{
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core is busy (called again while it changes)");
        return -1;
    }
    if (!s->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Core is not initialised");
        return -1;
    }
    return 0;
}

/* Python's `0 <= o < n`: 1 (and *idx) if true, 0 if false, -1 on error. A non-int
   that compares in range is then used as an index of a `what` (via __index__). */
static int in_range(PyObject *o, Py_ssize_t n, Py_ssize_t *idx, const char *what)
{
    if (PyLong_Check(o)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow || v < 0 || v >= n)
            return 0;
        *idx = (Py_ssize_t)v;
        return 1;
    }
    PyObject *bound = PyLong_FromLong(0);
    if (bound == NULL)
        return -1;
    int r = PyObject_RichCompareBool(bound, o, Py_LE);
    Py_DECREF(bound);
    if (r <= 0)
        return r;
    if ((bound = PyLong_FromSsize_t(n)) == NULL)
        return -1;
    r = PyObject_RichCompareBool(o, bound, Py_LT);
    Py_DECREF(bound);
    if (r <= 0)
        return r;
    if (!PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s indices must be integers or slices, not %.200s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_IndexError);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0)
        v += n;
    if (v < 0 || v >= n) {
        PyErr_Format(PyExc_IndexError, "%s index out of range", what);
        return -1;
    }
    *idx = v;
    return 1;
}

/* Python's list indexing `lst[o]` for a list of n: the index, or -1 on error. */
static Py_ssize_t list_index(PyObject *o, Py_ssize_t n)
{
    if (!PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "list indices must be integers or slices, not %.200s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_IndexError);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0)
        v += n;
    if (v < 0 || v >= n) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    return v;
}

/* Positional-or-keyword arguments of a METH_FASTCALL | METH_KEYWORDS method. */
static int parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *const *names, int count, PyObject **out)
{
    if (nargs > count) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given",
                     fname, count + 1, nargs + 1);
        return -1;
    }
    for (int i = 0; i < count; i++)
        out[i] = i < nargs ? args[i] : NULL;
    if (kwnames != NULL) {
        Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k);
            int found = 0;
            for (int i = 0; i < count; i++) {
                if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) {
                    if (out[i] != NULL) {
                        PyErr_Format(PyExc_TypeError,
                                     "%s() got multiple values for argument '%s'", fname,
                                     names[i]);
                        return -1;
                    }
                    out[i] = args[nargs + k];
                    found = 1;
                    break;
                }
            }
            if (!found) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                             fname, key);
                return -1;
            }
        }
    }
    for (int i = 0; i < count; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument: '%s'", fname,
                         names[i]);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the type */

static void core_clear_state(Core *s)
{
    s->ready = 0;
    Py_CLEAR(s->rng);
    Py_CLEAR(s->target);
    Py_CLEAR(s->cap_obj);
    for (int i = 0; i < MAXP; i++)
        Py_CLEAR(s->tok_obj[i]);
    Py_CLEAR(s->tok_list);
    Py_CLEAR(s->legal_tuple);
}

static int core_traverse(Core *s, visitproc visit, void *arg)
{
    Py_VISIT(s->rng);
    Py_VISIT(s->target);
    Py_VISIT(s->cap_obj);
    for (int i = 0; i < MAXP; i++)
        Py_VISIT(s->tok_obj[i]);
    Py_VISIT(s->tok_list);
    Py_VISIT(s->legal_tuple);
    return 0;
}

static int core_clear(Core *s)
{
    core_clear_state(s);
    return 0;
}

static void core_dealloc(Core *s)
{
    PyObject_GC_UnTrack(s);
    core_clear_state(s);
    PyMem_Free(s->ev);
    PyMem_Free(s->rend);
    PyMem_Free(s->evoff);
    buf_free(&s->evbuf);
    buf_free(&s->out);
    s->ev = NULL;
    s->rend = NULL;
    s->evoff = NULL;
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int get_enum_value(PyObject *config, const char *field, const char *const *choices,
                          int nchoices)
{
    PyObject *member = PyObject_GetAttrString(config, field);
    if (member == NULL)
        return -1;
    PyObject *value = PyObject_GetAttr(member, S_value);
    Py_DECREF(member);
    if (value == NULL)
        return -1;
    for (int i = 0; i < nchoices; i++) {
        if (PyUnicode_Check(value) && PyUnicode_CompareWithASCIIString(value, choices[i]) == 0) {
            Py_DECREF(value);
            return i;
        }
    }
    PyErr_Format(PyExc_ValueError, "unknown %s %R", field, value);
    Py_DECREF(value);
    return -1;
}

/* An exact int in int64 (1 and *out), another object (0), or an error (-1). */
static int exact_int64(PyObject *o, int64_t *out)
{
    if (!PyLong_CheckExact(o))
        return 0;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int core_init(Core *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"config", "seed", NULL};
    PyObject *config, *seed, *obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:Core", kwlist, &config, &seed))
        return -1;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core is busy (called again while it changes)");
        return -1;
    }
    core_clear_state(s);
    /* a fresh game: every counter back to zero, the buffers kept */
    s->nev = 0;
    s->nrend = 0;
    s->nenc = 0;
    s->nbad = 0;
    s->evbuf.len = 0;
    s->taken = 0;
    memset(s->heard, 0, sizeof(s->heard));

    if ((obj = PyObject_GetAttrString(config, "players")) == NULL)
        return -1;
    long n = PyLong_AsLong(obj);
    Py_DECREF(obj);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n < 2 || n > MAXP) {
        PyErr_Format(PyExc_ValueError, "players must be 2 to 6, not %ld", n);
        return -1;
    }
    s->n = (int)n;
    static const char *const editions[] = {"2022", "1980"};
    static const char *const formats[] = {"single", "tokens", "points"};
    static const char *const endings[] = {"elimination", "lowest"};
    int edition = get_enum_value(config, "edition", editions, 2);
    if (edition < 0)
        return -1;
    s->e1980 = edition == 1;
    if ((s->fmt = get_enum_value(config, "format", formats, 3)) < 0)
        return -1;
    int ending = get_enum_value(config, "ending", endings, 2);
    if (ending < 0)
        return -1;
    s->lowest = ending == 1;
    if ((obj = PyObject_GetAttrString(config, "ono_on_tens")) == NULL)
        return -1;
    s->tens = PyObject_IsTrue(obj);
    Py_DECREF(obj);
    if (s->tens < 0)
        return -1;

    /* the deck of the edition, in card order (arena.rules._cards.deck) */
    if ((obj = PyObject_GetAttrString(config, "edition")) == NULL)
        return -1;
    PyObject *deck = PyObject_CallOneArg(DeckFunc, obj);
    Py_DECREF(obj);
    if (deck == NULL)
        return -1;
    PyObject *fast = PySequence_Fast(deck, "deck() must give a list");
    Py_DECREF(deck);
    if (fast == NULL)
        return -1;
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(fast);
    if (nd > MAXDECK) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "a deck of more than 112 cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nd; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v >= NCARDS) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "an unknown card in the deck");
            return -1;
        }
        s->deck[i] = (uint8_t)v;
    }
    Py_DECREF(fast);
    s->ndeck = (int)nd;

    int r;
    if ((s->target = PyObject_GetAttrString(config, "target")) == NULL)
        return -1;
    if ((r = exact_int64(s->target, &s->target_c)) < 0)
        return -1;
    s->target_fast = r;
    if ((s->cap_obj = PyObject_GetAttrString(config, "play_cap")) == NULL)
        return -1;
    if ((r = exact_int64(s->cap_obj, &s->cap)) < 0)
        return -1;
    s->cap_fast = r;

    s->has_tokens = s->fmt == F_TOKENS;
    s->tok_slow = 0;
    if (s->has_tokens) {
        if ((obj = PyObject_GetAttrString(config, "tokens")) == NULL)
            return -1;
        int64_t t;
        if ((r = exact_int64(obj, &t)) < 0) {
            Py_DECREF(obj);
            return -1;
        }
        if (r) {
            for (int i = 0; i < MAXP; i++)
                s->tok[i] = t;
        }
        else { /* a bool, a huge int, ...: Python's own arithmetic */
            s->tok_slow = 1;
            if ((s->tok_list = PyList_New(0)) == NULL) {
                Py_DECREF(obj);
                return -1;
            }
            for (int i = 0; i < s->n; i++) {
                Py_INCREF(obj);
                s->tok_obj[i] = obj;
            }
        }
        Py_DECREF(obj);
    }
    s->has_scores = s->fmt == F_POINTS;

    if ((s->rng = PyObject_CallOneArg(RngType, seed)) == NULL)
        return -1;

    for (int i = 0; i < MAXP; i++) {
        s->hlen[i] = 0;
        s->nface[i] = 0;
        s->in_game[i] = i < s->n;
        s->in_round[i] = i < s->n;
        s->places[i] = 0;
        s->scores[i] = 0;
    }
    s->ndraw = s->ndiscard = s->nout = 0;
    s->total = 0;
    s->direction = 1;
    s->alive = s->round_alive = s->n;
    s->nelims = 0;
    s->round = 0;
    s->starter = 0;
    s->plays = 0;
    s->current = 0;
    s->owes = 1;
    s->tens_used = 0;
    s->nlegal = 0;
    s->reason = R_NONE;
    s->busy = 1;
    r = start_round(s);
    if (r == 0)
        r = settle(s);
    s->busy = 0;
    if (r < 0)
        return -1;
    s->ready = 1;
    return 0;
}

/* ------------------------------------------------------------------ queries */

static PyObject *core_get_to_move(Core *s, void *Py_UNUSED(closure))
{
    if (check_ready(s) < 0)
        return NULL;
    if (s->reason != R_NONE)
        Py_RETURN_NONE;
    return PyLong_FromLong(s->current);
}

static PyObject *core_get_is_over(Core *s, void *Py_UNUSED(closure))
{
    if (check_ready(s) < 0)
        return NULL;
    return PyBool_FromLong(s->reason != R_NONE);
}

static PyObject *core_get_plays(Core *s, void *Py_UNUSED(closure))
{
    if (check_ready(s) < 0)
        return NULL;
    return PyLong_FromLongLong(s->plays);
}

static PyObject *action_obj(uint8_t code)
{
    int kind = code / 32, card = code % 32;
    if (kind == K_PLAY)
        return ACT_PLAY[card];
    if (kind == K_BUST)
        return ACT_BUST[card];
    return ACT_QUAD;
}

static PyObject *core_legal_actions(Core *s, PyObject *Py_UNUSED(ignored))
{
    if (check_ready(s) < 0)
        return NULL;
    if (s->legal_tuple == NULL) {
        PyObject *t = PyTuple_New(s->nlegal);
        if (t == NULL)
            return NULL;
        for (int i = 0; i < s->nlegal; i++) {
            PyObject *a = action_obj(s->legal[i]);
            Py_INCREF(a);
            PyTuple_SET_ITEM(t, i, a);
        }
        s->legal_tuple = t;
    }
    Py_INCREF(s->legal_tuple);
    return s->legal_tuple;
}

static PyObject *game_over_error(void)
{
    PyErr_SetString(GameOverError, "the game is over");
    return NULL;
}

/* Play legal action i (in range) and settle. */
static int apply_legal(Core *s, Py_ssize_t i)
{
    uint8_t code = s->legal[i];
    int kind = code / 32, card = code % 32, r;
    s->busy = 1;
    if (kind == K_PLAY)
        r = do_play(s, card);
    else if (kind == K_QUAD)
        r = do_quad(s);
    else
        r = do_bust(s, card);
    if (r == 0)
        r = settle(s);
    s->busy = 0;
    if (r < 0) {
        Py_CLEAR(s->legal_tuple);
        return -1;
    }
    return 0;
}

/* The index of a legal action, from `index` (as apply takes it): 0 and *i, or -1 with
   IndexError (or another error). */
static int legal_index(Core *s, PyObject *index, Py_ssize_t *i)
{
    int r = in_range(index, s->nlegal, i, "tuple");
    if (r < 0)
        return -1;
    if (r == 0) {
        PyObject *text = PyObject_Format(index, NULL);
        if (text == NULL)
            return -1;
        PyErr_Format(PyExc_IndexError, "no legal action %U of %d", text, s->nlegal);
        Py_DECREF(text);
        return -1;
    }
    return 0;
}

static PyObject *core_apply(Core *s, PyObject *index)
{
    if (check_ready(s) < 0)
        return NULL;
    if (s->reason != R_NONE)
        return game_over_error();
    Py_ssize_t i;
    if (legal_index(s, index, &i) < 0)
        return NULL;
    if (apply_legal(s, i) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *core_eliminate(Core *s, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"seat", "cause"};
    PyObject *a[2];
    if (parse_args("eliminate", args, nargs, kwnames, names, 2, a) < 0)
        return NULL;
    PyObject *seat_obj = a[0], *cause_obj = a[1];
    if (check_ready(s) < 0)
        return NULL;
    if (s->reason != R_NONE)
        return game_over_error();
    int r = PySequence_Contains(FAULTS, cause_obj);
    if (r < 0)
        return NULL;
    if (r == 0) {
        PyObject *value = PyObject_GetAttr(cause_obj, S_value);
        if (value == NULL)
            return NULL;
        PyObject *text = PyObject_Format(value, NULL);
        Py_DECREF(value);
        if (text == NULL)
            return NULL;
        PyErr_Format(RulesError, "%U is decided by the rules, not by the caller", text);
        Py_DECREF(text);
        return NULL;
    }
    int cause = -1;
    for (int i = 0; i < NCAUSES; i++)
        if (CAUSE_OBJ[i] == cause_obj)
            cause = i;
    if (cause < 0) {
        PyErr_SetString(PyExc_SystemError, "a fault that is not a Cause");
        return NULL;
    }
    Py_ssize_t seat;
    r = in_range(seat_obj, s->n, &seat, "list");
    if (r < 0)
        return NULL;
    if (r == 0 || !s->in_game[seat]) {
        PyObject *text = PyObject_Format(seat_obj, NULL);
        if (text == NULL)
            return NULL;
        PyErr_Format(RulesError, "seat %U is not in the game", text);
        Py_DECREF(text);
        return NULL;
    }
    int was_current = seat == s->current;
    int was_in_round = s->in_round[seat];
    s->busy = 1;
    r = eliminate_seat(s, (int)seat, cause);
    if (r == 0 && s->reason == R_NONE) {
        if (s->fmt == F_POINTS && was_in_round && s->round_alive == 1)
            r = end_points_round(s);
        else if (was_current)
            r = pass_turn(s, (int)seat, 1);
    }
    if (r == 0)
        r = settle(s);
    s->busy = 0;
    if (r < 0) {
        Py_CLEAR(s->legal_tuple);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *no_seat(Core *s, PyObject *seat_obj)
{
    PyObject *text = PyObject_Format(seat_obj, NULL);
    if (text == NULL)
        return NULL;
    PyErr_Format(RulesError, "no seat %U in a game of %d", text, s->n);
    Py_DECREF(text);
    return NULL;
}

static PyObject *core_in_game(Core *s, PyObject *seat_obj)
{
    if (check_ready(s) < 0)
        return NULL;
    Py_ssize_t seat;
    int r = in_range(seat_obj, s->n, &seat, "list");
    if (r < 0)
        return NULL;
    if (r == 0)
        return no_seat(s, seat_obj);
    return PyBool_FromLong(s->in_game[seat]);
}

static PyObject *sorted_hand(Core *s, int seat)
{
    uint8_t cards[HAND_SIZE];
    int nc = s->hlen[seat];
    memcpy(cards, s->hands[seat], (size_t)nc);
    sort_cards(cards, nc);
    PyObject *t = PyTuple_New(nc);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < nc; i++) {
        Py_INCREF(CARD_OBJ[cards[i]]);
        PyTuple_SET_ITEM(t, i, CARD_OBJ[cards[i]]);
    }
    return t;
}

static PyObject *core_hand(Core *s, PyObject *seat_obj)
{
    if (check_ready(s) < 0)
        return NULL;
    Py_ssize_t seat = list_index(seat_obj, s->n);
    if (seat < 0)
        return NULL;
    return sorted_hand(s, (int)seat);
}

static PyObject *int_tuple(const int *v, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *int64_tuple(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *tokens_tuple(Core *s)
{
    PyObject *t = PyTuple_New(s->n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < s->n; i++) {
        PyObject *x = tokens_value(s, i);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *core_outcome(Core *s, PyObject *Py_UNUSED(ignored))
{
    if (check_ready(s) < 0)
        return NULL;
    if (s->reason == R_NONE) {
        PyErr_SetString(RulesError, "the game is not over");
        return NULL;
    }
    PyObject *places = NULL, *points = NULL, *tokens = NULL, *elims = NULL, *out = NULL;
    if ((places = int_tuple(s->places, s->n)) == NULL)
        goto done;
    if (s->has_scores) {
        if ((points = int64_tuple(s->scores, s->n)) == NULL)
            goto done;
    }
    else {
        points = Py_None;
        Py_INCREF(points);
    }
    if (s->has_tokens) {
        if ((tokens = tokens_tuple(s)) == NULL)
            goto done;
    }
    else {
        tokens = Py_None;
        Py_INCREF(tokens);
    }
    if ((elims = PyTuple_New(s->nelims)) == NULL)
        goto done;
    for (int i = 0; i < s->nelims; i++) {
        Elim *el = &s->elims[i];
        PyObject *e = PyObject_CallFunction(EliminationType, "iOiLL", el->seat,
                                            CAUSE_OBJ[el->cause], el->place,
                                            (long long)el->round, (long long)el->plays);
        if (e == NULL)
            goto done;
        PyTuple_SET_ITEM(elims, i, e);
    }
    out = PyObject_CallFunction(OutcomeType, "OOOOOLL", places, points, tokens, elims,
                                REASON_OBJ[s->reason], (long long)s->round,
                                (long long)s->plays);
done:
    Py_XDECREF(places);
    Py_XDECREF(points);
    Py_XDECREF(tokens);
    Py_XDECREF(elims);
    return out;
}

static PyObject *core_take_events(Core *s, PyObject *Py_UNUSED(ignored))
{
    if (check_ready(s) < 0)
        return NULL;
    PyObject *l = event_dicts(s, s->taken, s->nev);
    if (l != NULL)
        s->taken = s->nev;
    return l;
}

static PyObject *core_news(Core *s, PyObject *seat_obj)
{
    if (check_ready(s) < 0)
        return NULL;
    Py_ssize_t seat = list_index(seat_obj, s->n);
    if (seat < 0)
        return NULL;
    PyObject *l = event_dicts(s, s->heard[seat], s->nev);
    if (l != NULL)
        s->heard[seat] = s->nev;
    return l;
}

/* Append {"type": "event", "event": <wire dict>} to `log` for each event since the last
   take_events() or log_events(). */
static int log_events(Core *s, PyObject *log)
{
    for (; s->taken < s->nev; s->taken++) {
        PyObject *record = PyDict_New();
        if (record == NULL)
            return -1;
        if (set_borrowed(record, K_type, S_event) < 0 ||
            set_steal(record, K_event, event_dict(s, &s->ev[s->taken])) < 0 ||
            PyList_Append(log, record) < 0) {
            Py_DECREF(record);
            return -1;
        }
        Py_DECREF(record);
    }
    return 0;
}

static int check_log(PyObject *log)
{
    if (!PyList_Check(log)) {
        PyErr_Format(PyExc_TypeError, "the log must be a list, not %.200s",
                     Py_TYPE(log)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *core_log_events(Core *s, PyObject *log)
{
    if (check_ready(s) < 0 || check_log(log) < 0 || log_events(s, log) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* The wire dict of legal action code (as arena.referee._wire.action_to_dict). */
static PyObject *action_dict(uint8_t code)
{
    int kind = code / 32, card = code % 32;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (set_borrowed(d, K_kind, kind == K_PLAY ? S_play : kind == K_BUST ? S_bust : S_quad) < 0 ||
        (kind != K_QUAD && set_borrowed(d, K_card, CODE_STR[card]) < 0)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* play(index, log, request_id, ms): the referee's decision. Appends the decision's
   record to `log` ({"type": "decision", "seat", "request_id", "choice", "action",
   "ms"}), plays legal action `index` as apply() does, then appends the records of the
   events it made, as log_events() does. */
static PyObject *core_play(Core *s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"index", "log", "request_id", "ms"};
    PyObject *a[4];
    if (kwnames == NULL && nargs == 4) {
        a[0] = args[0];
        a[1] = args[1];
        a[2] = args[2];
        a[3] = args[3];
    }
    else if (parse_args("play", args, nargs, kwnames, names, 4, a) < 0) {
        return NULL;
    }
    if (check_ready(s) < 0 || check_log(a[1]) < 0)
        return NULL;
    if (s->reason != R_NONE)
        return game_over_error();
    Py_ssize_t i;
    if (legal_index(s, a[0], &i) < 0)
        return NULL;
    PyObject *record = PyDict_New();
    if (record == NULL)
        return NULL;
    if (set_borrowed(record, K_type, S_decision) < 0 ||
        set_steal(record, K_seat, PyLong_FromLong(s->current)) < 0 ||
        set_borrowed(record, K_request_id, a[2]) < 0 ||
        set_steal(record, K_choice, PyLong_FromSsize_t(i)) < 0 ||
        set_steal(record, K_action, action_dict(s->legal[i])) < 0 ||
        set_borrowed(record, K_ms, a[3]) < 0 || PyList_Append(a[1], record) < 0) {
        Py_DECREF(record);
        return NULL;
    }
    Py_DECREF(record);
    if (apply_legal(s, i) < 0 || log_events(s, a[1]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* canonical_action(request_id): the frame of an action answering request_id as SPEC
   3.4 writes it, but for its last byte (as arena.referee._wire.canonical_action). */
static PyObject *canonical_action(PyObject *Py_UNUSED(module), PyObject *request_id)
{
    if (!PyLong_Check(request_id)) {
        PyErr_Format(PyExc_TypeError, "a request id is an int, not %.200s",
                     Py_TYPE(request_id)->tp_name);
        return NULL;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(request_id);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    static const char head[] = "\x83\xa4" "type" "\xa6" "action" "\xaa" "request_id";
    static const char tail[] = "\xa6" "choice";
    unsigned char out[4 + sizeof(head) - 1 + 9 + sizeof(tail) - 1];
    size_t n = 4;
    memcpy(out + n, head, sizeof(head) - 1);
    n += sizeof(head) - 1;
    if (v < 0x80) {
        out[n++] = (unsigned char)v;
    }
    else if (v < 0x100) {
        out[n++] = 0xcc;
        out[n++] = (unsigned char)v;
    }
    else if (v < 0x10000) {
        out[n++] = 0xcd;
        be16(out + n, (uint16_t)v);
        n += 2;
    }
    else if (v < 0x100000000ull) {
        out[n++] = 0xce;
        be32(out + n, (uint32_t)v);
        n += 4;
    }
    else {
        out[n++] = 0xcf;
        be64(out + n, (uint64_t)v);
        n += 8;
    }
    memcpy(out + n, tail, sizeof(tail) - 1);
    n += sizeof(tail) - 1;
    be32(out, (uint32_t)(n - 4 + 1)); /* the body, with its last byte: the choice */
    return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)n);
}

static int mp_cards(Buf *b, const uint8_t *cards, int n)
{
    if (mp_array(b, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (put(b, CODE_MP[cards[i]], (size_t)CODE_MP_LEN[cards[i]]) < 0)
            return -1;
    return 0;
}

static int mp_value(Buf *b, PyObject *o, int nest)
{
    if (PyLong_CheckExact(o))
        return mp_pylong(b, o);
    return mp_obj(b, o, nest);
}

/* The observation map (Game.observation_dict) and the rest of the act (SPEC §5.3). */
static int write_act(Core *s, Buf *b, PyObject *seat_obj, int seat, size_t start,
                     PyObject *request_id, PyObject *decision_ms, PyObject *bank_ms)
{
    int n = s->n;
    uint8_t hand[HAND_SIZE];
    int nh = s->hlen[seat];
    memcpy(hand, s->hands[seat], (size_t)nh);
    sort_cards(hand, nh);
    if (mp_map(b, 6) < 0 || KEY(b, "type") < 0 || KEY(b, "act") < 0 || KEY(b, "request_id") < 0 ||
        mp_value(b, request_id, NEST_LIMIT - 1) < 0 || KEY(b, "observation") < 0 ||
        mp_map(b, 16) < 0 || KEY(b, "seat") < 0 || mp_value(b, seat_obj, NEST_LIMIT - 2) < 0 ||
        KEY(b, "hand") < 0 || mp_cards(b, hand, nh) < 0 || KEY(b, "total") < 0 ||
        mp_int(b, s->total) < 0 || KEY(b, "direction") < 0 || mp_int(b, s->direction) < 0 ||
        KEY(b, "to_move") < 0 ||
        (s->reason != R_NONE ? mp_nil(b) : mp_int(b, s->current)) < 0 || KEY(b, "owes") < 0 ||
        mp_int(b, s->owes) < 0 || KEY(b, "hand_sizes") < 0 || mp_array(b, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (mp_int(b, s->hlen[i]) < 0)
            return -1;
    if (KEY(b, "in_game") < 0 || mp_array(b, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (mp_bool(b, s->in_game[i]) < 0)
            return -1;
    if (KEY(b, "in_round") < 0 || mp_array(b, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (mp_bool(b, s->in_round[i]) < 0)
            return -1;
    if (KEY(b, "face_up") < 0 || mp_array(b, (size_t)n) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (mp_cards(b, s->face[i], s->nface[i]) < 0)
            return -1;
    if (KEY(b, "draw_size") < 0 || mp_int(b, s->ndraw) < 0 || KEY(b, "discard") < 0 ||
        mp_cards(b, s->discard, s->ndiscard) < 0 || KEY(b, "scores") < 0)
        return -1;
    if (s->has_scores) {
        if (mp_array(b, (size_t)n) < 0)
            return -1;
        for (int i = 0; i < n; i++)
            if (mp_int(b, s->scores[i]) < 0)
                return -1;
    }
    else if (mp_nil(b) < 0) {
        return -1;
    }
    if (KEY(b, "tokens") < 0)
        return -1;
    if (s->has_tokens) {
        if (mp_array(b, (size_t)n) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            if (s->tok_slow) {
                if (mp_obj(b, s->tok_obj[i], NEST_LIMIT - 3) < 0)
                    return -1;
            }
            else if (mp_int(b, s->tok[i]) < 0) {
                return -1;
            }
        }
    }
    else if (mp_nil(b) < 0) {
        return -1;
    }
    if (KEY(b, "round") < 0 || mp_int(b, s->round) < 0 || KEY(b, "plays") < 0 ||
        mp_int(b, s->plays) < 0)
        return -1;
    /* the news, their bytes encoded once */
    if (KEY(b, "events") < 0 || mp_array(b, s->nev - start) < 0 || put_events(s, b, start) < 0)
        return -1;
    if (KEY(b, "clock") < 0 || mp_map(b, 2) < 0 || KEY(b, "decision_ms") < 0 ||
        mp_value(b, decision_ms, NEST_LIMIT - 2) < 0 || KEY(b, "bank_ms") < 0 ||
        mp_value(b, bank_ms, NEST_LIMIT - 2) < 0 || KEY(b, "legal") < 0 ||
        mp_array(b, (size_t)s->nlegal) < 0)
        return -1;
    for (int i = 0; i < s->nlegal; i++) {
        uint8_t code = s->legal[i];
        int kind = code / 32, card = code % 32;
        if (kind == K_QUAD) {
            if (mp_map(b, 1) < 0 || KEY(b, "kind") < 0 || KEY(b, "quad") < 0)
                return -1;
            continue;
        }
        if (mp_map(b, 2) < 0 || KEY(b, "kind") < 0 ||
            (kind == K_PLAY ? KEY(b, "play") : KEY(b, "bust")) < 0 || KEY(b, "card") < 0 ||
            put(b, CODE_MP[card], (size_t)CODE_MP_LEN[card]) < 0)
            return -1;
    }
    return 0;
}

static PyObject *core_act_frame(Core *s, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"seat", "request_id", "decision_ms", "bank_ms"};
    PyObject *a[4];
    if (kwnames == NULL && nargs == 4) {
        a[0] = args[0];
        a[1] = args[1];
        a[2] = args[2];
        a[3] = args[3];
    }
    else if (parse_args("act_frame", args, nargs, kwnames, names, 4, a) < 0) {
        return NULL;
    }
    if (check_ready(s) < 0)
        return NULL;
    Py_ssize_t seat;
    int r = in_range(a[0], s->n, &seat, "list");
    if (r < 0)
        return NULL;
    if (r == 0)
        return no_seat(s, a[0]);
    /* the news count as sent, whatever happens to the frame (as PyCore) */
    size_t start = s->heard[seat];
    s->heard[seat] = s->nev;
    Buf *b = &s->out;
    b->len = 0;
    if (buf_reserve(b, 4) < 0)
        return NULL;
    b->len = 4;
    if (write_act(s, b, a[0], (int)seat, start, a[1], a[2], a[3]) < 0)
        return NULL;
    size_t body = b->len - 4;
    if (body > 0xFFFFFFFFull) {
        PyErr_Format(PyExc_ValueError, "message of %zu bytes does not fit in one frame", body);
        return NULL;
    }
    be32((unsigned char *)b->p, (uint32_t)body);
    PyObject *frame = PyBytes_FromStringAndSize(b->p, (Py_ssize_t)b->len);
    if (b->cap > (1u << 20)) { /* let go of a scratch buffer a long news grew */
        buf_free(b);
    }
    return frame;
}

static PyGetSetDef core_getset[] = {
    {"to_move", (getter)core_get_to_move, NULL, "The seat that must act, or None when over.",
     NULL},
    {"is_over", (getter)core_get_is_over, NULL, "True once the game has ended.", NULL},
    {"plays", (getter)core_get_plays, NULL, "Plays made so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    {"legal_actions", (PyCFunction)core_legal_actions, METH_NOARGS,
     "The legal actions of the seat to move (the engine's shared Action objects)."},
    {"apply", (PyCFunction)core_apply, METH_O, "Play legal_actions()[index]."},
    {"eliminate", (PyCFunction)(void (*)(void))core_eliminate, METH_FASTCALL | METH_KEYWORDS,
     "Remove seat from the game for a fault cause (as Game.eliminate)."},
    {"in_game", (PyCFunction)core_in_game, METH_O, "True while seat is in the game."},
    {"hand", (PyCFunction)core_hand, METH_O, "The hand of seat, sorted."},
    {"outcome", (PyCFunction)core_outcome, METH_NOARGS, "The result of the finished game."},
    {"take_events", (PyCFunction)core_take_events, METH_NOARGS,
     "The wire dicts of the events since the previous call."},
    {"news", (PyCFunction)core_news, METH_O,
     "The wire dicts of the events not sent to seat yet; they count as sent."},
    {"act_frame", (PyCFunction)(void (*)(void))core_act_frame, METH_FASTCALL | METH_KEYWORDS,
     "The act frame for seat (SPEC 5.3), with its news (which count as sent)."},
    {"log_events", (PyCFunction)core_log_events, METH_O,
     "Append the records of the events since the last take_events() or log_events()."},
    {"play", (PyCFunction)(void (*)(void))core_play, METH_FASTCALL | METH_KEYWORDS,
     "Log the decision to play legal_actions()[index], play it, and log its events."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef module_methods[] = {
    {"canonical_action", (PyCFunction)canonical_action, METH_O,
     "The frame of an action answering request_id, as SPEC 3.4 writes it, but its last byte."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.referee._fastcore.Core",
    .tp_basicsize = sizeof(Core),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One game of ONO 99 as arena.rules.Game plays it, with the referee's act frames.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

/* ------------------------------------------------------------------ module init */

static PyObject *import_attr(const char *module, const char *name)
{
    PyObject *m = PyImport_ImportModule(module);
    if (m == NULL)
        return NULL;
    PyObject *v = PyObject_GetAttrString(m, name);
    Py_DECREF(m);
    return v;
}

static int intern(PyObject **slot, const char *s)
{
    *slot = PyUnicode_InternFromString(s);
    return *slot == NULL ? -1 : 0;
}

static int setup_constants(void)
{
    if (intern(&S_shuffle, "shuffle") < 0 || intern(&S_value, "value") < 0 ||
        intern(&K_type, "type") < 0 || intern(&K_seat, "seat") < 0 ||
        intern(&K_card, "card") < 0 || intern(&K_total, "total") < 0 ||
        intern(&K_count, "count") < 0 || intern(&K_round, "round") < 0 ||
        intern(&K_starter, "starter") < 0 || intern(&K_hand_sizes, "hand_sizes") < 0 ||
        intern(&K_draw_size, "draw_size") < 0 || intern(&K_cause, "cause") < 0 ||
        intern(&K_cards, "cards") < 0 || intern(&K_place, "place") < 0 ||
        intern(&K_tokens, "tokens") < 0 || intern(&K_hand_points, "hand_points") < 0 ||
        intern(&K_scores, "scores") < 0 || intern(&K_event, "event") < 0 ||
        intern(&K_request_id, "request_id") < 0 || intern(&K_choice, "choice") < 0 ||
        intern(&K_action, "action") < 0 || intern(&K_ms, "ms") < 0 ||
        intern(&K_kind, "kind") < 0 || intern(&S_event, "event") < 0 ||
        intern(&S_decision, "decision") < 0 || intern(&S_play, "play") < 0 ||
        intern(&S_bust, "bust") < 0 || intern(&S_quad, "quad") < 0)
        return -1;
    for (int i = 0; i < NEVTYPES; i++)
        if (intern(&EVENT_STR[i], EVENT_NAMES[i]) < 0)
            return -1;
    for (int i = 0; i < NCAUSES; i++)
        if (intern(&CAUSE_STR[i], CAUSE_VALUES[i]) < 0)
            return -1;

    PyObject *card_cls = import_attr("arena.rules._cards", "Card");
    PyObject *codes = import_attr("arena.rules._cards", "CODES");
    PyObject *action = import_attr("arena.rules._game", "Action");
    int ok = card_cls != NULL && codes != NULL && action != NULL;
    for (int v = 0; ok && v < NCARDS; v++) {
        PyObject *card = PyObject_CallFunction(card_cls, "i", v);
        if (card == NULL) {
            ok = 0;
            break;
        }
        CARD_OBJ[v] = card;
        PyObject *code = PyDict_GetItemWithError(codes, card);
        if (code == NULL || !PyUnicode_Check(code)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ImportError, "a card without a code");
            ok = 0;
            break;
        }
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(code, &len);
        if (text == NULL || len > 6) {
            if (text != NULL)
                PyErr_SetString(PyExc_ImportError, "a card code of more than 6 bytes");
            ok = 0;
            break;
        }
        Py_INCREF(code);
        CODE_STR[v] = code;
        CODE_MP[v][0] = (char)(0xa0 | len);
        memcpy(CODE_MP[v] + 1, text, (size_t)len);
        CODE_MP_LEN[v] = (int)len + 1;
        if ((ACT_PLAY[v] = PyObject_CallMethod(action, "play", "O", card)) == NULL ||
            (ACT_BUST[v] = PyObject_CallMethod(action, "bust", "O", card)) == NULL) {
            ok = 0;
            break;
        }
    }
    if (ok && (ACT_QUAD = PyObject_CallMethod(action, "quad", NULL)) == NULL)
        ok = 0;
    Py_XDECREF(card_cls);
    Py_XDECREF(codes);
    Py_XDECREF(action);
    if (!ok)
        return -1;

    PyObject *cause_cls = import_attr("arena.rules._events", "Cause");
    if (cause_cls == NULL)
        return -1;
    for (int i = 0; i < NCAUSES; i++) {
        if ((CAUSE_OBJ[i] = PyObject_CallFunction(cause_cls, "s", CAUSE_VALUES[i])) == NULL) {
            Py_DECREF(cause_cls);
            return -1;
        }
    }
    Py_DECREF(cause_cls);
    PyObject *reason_cls = import_attr("arena.rules._game", "EndReason");
    if (reason_cls == NULL)
        return -1;
    for (int i = 0; i < NREASONS; i++) {
        if ((REASON_OBJ[i] = PyObject_CallFunction(reason_cls, "s", REASON_VALUES[i])) == NULL) {
            Py_DECREF(reason_cls);
            return -1;
        }
    }
    Py_DECREF(reason_cls);
    if ((FAULTS = import_attr("arena.rules._events", "FAULTS")) == NULL ||
        (RngType = import_attr("arena.rules._rng", "Rng")) == NULL ||
        (DeckFunc = import_attr("arena.rules._cards", "deck")) == NULL ||
        (OutcomeType = import_attr("arena.rules._game", "Outcome")) == NULL ||
        (EliminationType = import_attr("arena.rules._game", "Elimination")) == NULL ||
        (RulesError = import_attr("arena.errors", "RulesError")) == NULL ||
        (GameOverError = import_attr("arena.errors", "GameOverError")) == NULL)
        return -1;
    return 0;
}

static struct PyModuleDef fastcore_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "arena.referee._fastcore",
    .m_doc = "The referee's game in C: arena.rules.Game's rules and the act frames of _wire.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__fastcore(void)
{
    if (setup_constants() < 0)
        return NULL;
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fastcore_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
