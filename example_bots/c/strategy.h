/*
 * strategy.h - how the bot chooses. This is the file to change.
 *
 * The referee sends every legal action; the bot only picks an index into
 * act->legal. protocol.h describes what an act_view holds (SPEC §5.3, §7.2,
 * §7.3); everything else of the act is in act->msg.
 */
#ifndef ONO_STRATEGY_H
#define ONO_STRATEGY_H

#include <stddef.h>

#include "protocol.h"

/* Called at each game_start (g->seat, g->edition, g->format ...). */
void strategy_game_start(const game_info *g);

/* Return an index into act->legal, 0 <= index < act->n_legal. */
size_t strategy_choose(const game_info *g, const act_view *act);

#endif
