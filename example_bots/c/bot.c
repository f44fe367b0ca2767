/*
 * bot.c - the message loop of the C starter bot for the ONO 99 arena.
 *
 * Reads frames from stdin, answers the referee's hello and every act, and
 * exits with status 0 on bye or at the end of stdin (SPEC §4). Diagnostics
 * go to stderr; stdout carries frames only. The choice itself is made in
 * strategy.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "protocol.h"
#include "strategy.h"

#define BOT_NAME "c-heuristic"
#define BOT_VERSION "1.0"

static void send_or_die(msgpack_sbuffer *sb)
{
    if (proto_write_frame(stdout, sb->data, sb->size) != 0) {
        fprintf(stderr, BOT_NAME ": cannot write to stdout; exiting\n");
        exit(1);
    }
}

static void on_hello(const msgpack_object *msg)
{
    int64_t protocol = -1;
    proto_get_int(msg, "protocol", &protocol);
    if (protocol != PROTO_VERSION || !proto_is_str(proto_get(msg, "game"), "ono99")) {
        fprintf(stderr, BOT_NAME ": the referee speaks protocol %lld of another game; "
                        "this bot speaks protocol %d of ono99; exiting\n",
                (long long)protocol, PROTO_VERSION);
        exit(1);
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    if (proto_encode_hello(&sb, BOT_NAME, BOT_VERSION) != 0) {
        fprintf(stderr, BOT_NAME ": cannot encode hello\n");
        exit(1);
    }
    send_or_die(&sb);
    msgpack_sbuffer_destroy(&sb);
}

static void on_act(const msgpack_object *msg, const game_info *game)
{
    act_view act;
    char err[160];
    if (proto_parse_act(msg, &act, err, sizeof err) != 0) {
        fprintf(stderr, BOT_NAME ": cannot answer an act: %s; exiting\n", err);
        exit(1);
    }
    size_t choice = 0;
    if (act.n_legal == 0) {
        fprintf(stderr, BOT_NAME ": act %llu has no legal action; answering 0\n",
                (unsigned long long)act.request_id);
    } else {
        choice = strategy_choose(game, &act);
        if (choice >= act.n_legal) {
            fprintf(stderr, BOT_NAME ": strategy chose %zu of %zu actions; using 0\n",
                    choice, act.n_legal);
            choice = 0;
        }
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    if (proto_encode_action(&sb, act.request_id, (int64_t)choice) != 0) {
        fprintf(stderr, BOT_NAME ": cannot encode action\n");
        exit(1);
    }
    send_or_die(&sb);
    msgpack_sbuffer_destroy(&sb);
    proto_act_free(&act);
}

int main(void)
{
    /* A closed stdout must give a write error we can report, not SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    game_info game = {.seat = -1};
    for (;;) {
        proto_message msg;
        char err[160];
        int r = proto_read_message(stdin, PROTO_MAX_INCOMING, &msg, err, sizeof err);
        if (r == PROTO_EOF) {
            fprintf(stderr, BOT_NAME ": end of stdin; exiting\n");
            return 0;
        }
        if (r == PROTO_ERROR) {
            fprintf(stderr, BOT_NAME ": bad frame from the referee: %s; exiting\n", err);
            return 1;
        }
        const msgpack_object *type = proto_get(msg.root, "type");
        if (proto_is_str(type, "hello")) {
            on_hello(msg.root);
        } else if (proto_is_str(type, "game_start")) {
            if (proto_parse_game_start(msg.root, &game) != 0) {
                fprintf(stderr, BOT_NAME ": game_start without a seat\n");
            }
            fprintf(stderr, BOT_NAME ": game %s: edition %s, format %s, seat %d of %d\n",
                    game.game_id, game.edition, game.format, game.seat, game.players);
            strategy_game_start(&game);
        } else if (proto_is_str(type, "act")) {
            on_act(msg.root, &game);
        } else if (proto_is_str(type, "game_over")) {
            const msgpack_object *places = proto_get(msg.root, "places");
            int64_t place = 0;
            if (places != NULL && places->type == MSGPACK_OBJECT_ARRAY && game.seat >= 0 &&
                (uint32_t)game.seat < places->via.array.size) {
                proto_as_int(&places->via.array.ptr[game.seat], &place);
            }
            fprintf(stderr, BOT_NAME ": game %s over: place %lld\n", game.game_id,
                    (long long)place);
        } else if (proto_is_str(type, "bye")) {
            proto_message_free(&msg);
            return 0;
        }
        /* any other type: ignored (SPEC §10.2) */
        proto_message_free(&msg);
    }
}
