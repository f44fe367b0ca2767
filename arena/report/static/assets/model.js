/* arena report: a game's replay as a model, from its payload (arena's game_payload): the
 * frames (the state after each step, every hand included: arena replays its rules
 * engine, so the viewer never plays the rules itself), the notable events among them,
 * and the faults. No DOM: the player (player.js, board.js) draws what this says. */
(function (A) {
  "use strict";

  var isNum = A.isNum, causeText = A.causeText, isFault = A.isFault, count = A.count;

  function replayModel(game) {
    var frames = game.frames || [];
    var names = game.names || [];
    var n = names.length;
    var cfg = game.config || {};
    var result = game.result || {};
    var last = Math.max(0, frames.length - 1);
    // The fault of each seat (its message), by seat.
    var faults = Object.create(null);
    (game.faults || []).forEach(function (f) { faults[f.seat] = f; });

    function who(seat) { return "seat " + seat + " (" + names[seat] + ")"; }

    // The notable frames: a fault, an elimination, the end of a round, the end.
    var events = [];
    frames.forEach(function (f, i) {
      if (i === 0) return;
      var p = frames[i - 1];
      var bits = [];
      var was = Object.create(null);
      (p.eliminated || []).forEach(function (e) { was[e.seat] = true; });
      var fault = f.kind === "fault" && isNum(f.seat);
      if (fault) {
        // A fault of a seat already out, or after the end, is recorded but changes nothing.
        var late = p.to_move === null ? "after the end" : p.in_game && p.in_game[f.seat] === false ? "already out" : null;
        bits.push("fault of " + who(f.seat) + (late ? " (" + late + ": no effect)" : ""));
      }
      (f.eliminated || []).forEach(function (e) {
        if (was[e.seat]) return;
        if (fault && e.seat === f.seat) bits[0] += ", out: " + causeText(e.cause);
        else bits.push(who(e.seat) + " out: " + causeText(e.cause));
      });
      if (isNum(f.round) && isNum(p.round) && f.round !== p.round) bits.push("round " + p.round + " ends");
      if (i === last) bits.push("the end");
      if (bits.length) events.push({ i: i, text: bits.join("; "), fault: f.kind === "fault" });
    });
    var notable = Object.create(null);
    events.forEach(function (ev) { notable[ev.i] = true; });

    function eventAfter(i) { for (var k = 0; k < events.length; k++) if (events[k].i > i) return events[k].i; return null; }
    function eventBefore(i) { for (var k = events.length - 1; k >= 0; k--) if (events[k].i < i) return events[k].i; return null; }

    // The frame of the first fault of a bot (a link from a list of faults opens there):
    // its fault frame, else the frame it was put out for a fault.
    function faultFrame(bot) {
      for (var i = 0; i < frames.length; i++) {
        if (frames[i].kind === "fault" && names[frames[i].seat] === bot) return i;
      }
      for (var j = 0; j < frames.length; j++) {
        var hit = (frames[j].eliminated || []).some(function (e) { return names[e.seat] === bot && isFault(e.cause); });
        if (hit) return j;
      }
      return null;
    }

    // What put each seat out, by seat, at the end of the game.
    function outCauses() {
      var causes = Object.create(null);
      ((frames[last] || {}).eliminated || []).forEach(function (e) { causes[e.seat] = e.cause; });
      return causes;
    }

    // The seats in the order of their places (the unplaced last, then by seat).
    function placeOrder() {
      var places = result.places || [];
      return names.map(function (nm, seat) { return seat; })
        .sort(function (a, b) { return (places[a] || 99) - (places[b] || 99) || a - b; });
    }

    // The game's settings in a line.
    function configText() {
      var bits = [];
      if (cfg.edition) bits.push(cfg.edition + " edition");
      if (cfg.format) {
        var f = String(cfg.format);
        if (f === "tokens" && isNum(cfg.tokens)) f += " (" + cfg.tokens + " each)";
        if (f === "points") f += " (target " + cfg.target + ", " + cfg.ending + ")";
        bits.push(f);
      }
      bits.push(n + " players");
      if (cfg.ono_on_tens) bits.push("ONO on tens");
      if (isNum(cfg.play_cap)) bits.push("play cap " + count(cfg.play_cap));
      return bits.join(" \u00b7 ");
    }

    // Whether the game is played in rounds (the status shows the round then).
    function hasRounds(f) {
      return !!((cfg.format && cfg.format !== "single") || (isNum(f.round) && f.round > 1));
    }

    return {
      id: game.id, frames: frames, names: names, n: n, config: cfg, result: result, last: last,
      faults: faults, events: events, notable: notable, who: who, eventAfter: eventAfter,
      eventBefore: eventBefore, faultFrame: faultFrame, outCauses: outCauses,
      placeOrder: placeOrder, configText: configText, hasRounds: hasRounds,
    };
  }

  A.replayModel = replayModel;
})(window.ARENA);
