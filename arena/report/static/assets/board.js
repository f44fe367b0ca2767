/* arena report: the replay's board, drawn from a replay model (model.js) and one of its
 * frames: the step, the status tiles, the seats with their hands, the result, and the
 * chart of the total over the game. The player (player.js) says which frame. */
(function (A) {
  "use strict";

  var h = A.h, s = A.s, append = A.append, fill = A.fill, card = A.card, cardBack = A.cardBack;
  var botLink = A.botLink, section = A.section, scroll = A.scroll, table = A.table, td = A.td;
  var cardKindClass = A.cardKindClass, isNum = A.isNum, count = A.count, ms = A.ms;
  var ordinal = A.ordinal, causeText = A.causeText, reasonText = A.reasonText, isFault = A.isFault;
  var MAX_DOTS = A.MAX_DOTS;

  // The game's result: places, points or tokens, and what put each seat out.
  function resultSection(m) {
    var result = m.result, names = m.names;
    var places = result.places || [];
    var causes = m.outCauses();
    var headers = [">place", "seat", "bot"];
    if (result.points) headers.push(">points");
    if (result.tokens) headers.push(">tokens");
    headers.push("out by");
    var rows = m.placeOrder().map(function (seat) {
      var cause = causes[seat];
      var fm = m.faults[seat];
      var cells = [td(isNum(places[seat]) ? ordinal(places[seat]) : "\u2013", "place", "num strong"),
        td("seat " + seat, "seat", "plain"), td(botLink(names[seat]), "bot", "name")];
      if (result.points) cells.push(td(count(result.points[seat]), "points"));
      if (result.tokens) cells.push(td(count(result.tokens[seat]), "tokens"));
      // A fault that did not put the seat out (it was out already, or the game over)
      // is told as one of its own: its message explains no place.
      var later = fm && !(cause && isFault(cause));
      cells.push(h("td", { dataset: { col: "cause" } },
        cause ? h("span", { class: "badge" + (isFault(cause) ? " bad" : "") }, causeText(cause))
          : result.reason === "play_cap" ? h("span", { class: "badge warn" }, "still in at the cap")
          : places[seat] === 1 ? h("span", { class: "badge good" }, "winner") : "",
        later ? [" ", h("span", { class: "badge bad", dataset: { later: fm.cause } }, "then a fault: " + causeText(fm.cause))] : null,
        fm && fm.message ? h("span", { class: "message" }, " " + fm.message) : null));
      return h("tr", { dataset: { seat: String(seat) } }, cells);
    });
    return section("Result", [
      scroll(table(headers, rows, "result")),
      h("p", { class: "muted small" }, "Ended by: " + reasonText(result.reason) + " after " + count(result.plays) + " plays."),
    ], "result-panel");
  }

  function statusTile(key, labelText, value, cls) {
    return h("div", { class: "tile" + (cls ? " " + cls : ""), dataset: { tile: key } },
      h("div", { class: "label" }, labelText), h("div", { class: "value" }, value));
  }

  // The status of frame `f` into the box `status`: total, direction, who moves, piles.
  function paintStatus(status, m, f) {
    var dir = f.direction === -1
      ? h("span", null, h("span", { class: "dir" }, "\u21ba"), " counter-clockwise")
      : h("span", null, h("span", { class: "dir" }, "\u21bb"), " clockwise");
    var toMove = isNum(f.to_move) ? m.who(f.to_move) : "\u2013";
    var tiles = [
      statusTile("total", "Total", h("span", { id: "total", class: "total" + (f.total >= 90 ? " hot" : "") }, String(f.total)), "total-tile"),
      statusTile("direction", "Direction", dir),
      statusTile("to-move", "To move", h("span", null, toMove,
        f.owes === 2 && isNum(f.to_move) ? h("span", { class: "badge owes" }, "owes 2") : null), f.owes === 2 ? "owes-tile" : null),
      statusTile("discard", "Discard", f.discard_top ? card(f.discard_top) : h("span", { class: "muted" }, "empty")),
      statusTile("draw", "Draw pile", h("span", { class: "nowrap" }, count(f.draw) + (f.draw === 1 ? " card" : " cards"))),
    ];
    var rounds = m.hasRounds(f);
    if (rounds) tiles.push(statusTile("round", "Round", String(f.round)));
    status.className = "status" + (rounds ? " has-round" : "");
    fill(status, tiles);
  }

  // The step of frame `f` into the box `banner`: its kind, card, text and time.
  function paintBanner(banner, f) {
    var actor = isNum(f.seat) ? f.seat : null;
    fill(banner,
      h("span", { class: "kind k-" + cardKindClass(f.kind) }, String(f.kind || "step")),
      f.card ? card(f.card, "current") : null,
      h("span", { class: "text", id: "step-text" }, f.text || ""),
      isNum(f.ms) ? h("span", { class: "ms", title: "how long the decision took" }, (actor !== null ? "decided in " : "") + ms(f.ms)) : null);
    banner.className = "step panel k-" + cardKindClass(f.kind);
  }

  // The seats at frame `at`, as the seat `viewer` saw them (null: every hand).
  function seatPanels(m, at, viewer) {
    var f = m.frames[at], names = m.names, result = m.result, cfg = m.config;
    var out = Object.create(null);
    (f.eliminated || []).forEach(function (e) { out[e.seat] = e; });
    var final = at === m.last && result.places;
    return names.map(function (nm, seat) {
      var inGame = f.in_game ? f.in_game[seat] : true;
      var inRound = f.in_round ? f.in_round[seat] : inGame;
      var acted = f.seat === seat;
      var moving = f.to_move === seat;
      var hand = (f.hands && f.hands[seat]) || [];
      var faceUp = (f.face_up && f.face_up[seat]) || [];
      var hidden = viewer !== null && viewer !== seat;
      var e = out[seat];
      var place = final ? result.places[seat] : e ? e.place : null;
      var cls = "seat panel" + (acted ? " acted" : "") + (moving ? " moving" : "") + (!inGame ? " out" : !inRound ? " out-round" : "") +
        (viewer === seat ? " viewer" : "") + (hidden ? " hidden" : "");
      var badges = [];
      if (moving) badges.push(h("span", { class: "badge move" }, "to move"));
      if (moving && f.owes === 2) badges.push(h("span", { class: "badge owes" }, "owes 2"));
      if (inGame && !inRound) badges.push(h("span", { class: "badge warn" }, "out of round"));
      if (e) badges.push(h("span", { class: "badge" + (isFault(e.cause) ? " bad" : ""), dataset: { cause: e.cause } }, "out: " + causeText(e.cause)));
      if (isNum(place)) badges.push(h("span", { class: "badge place" + (place === 1 ? " good" : ""), dataset: { place: String(place) } }, ordinal(place)));
      var extra = [];
      if (f.tokens && isNum(f.tokens[seat])) {
        var left = f.tokens[seat];
        var max = Math.max(isNum(cfg.tokens) ? cfg.tokens : 0, left);
        var dots = "";
        // A dot a token while they fit; past a few, one dot and the count.
        if (max <= MAX_DOTS) for (var t = 0; t < max; t++) dots += t < left ? "\u25cf" : "\u25cb";
        else dots = "\u25cf\u00d7" + left;
        extra.push(h("span", { class: "tokens", title: left + (left === 1 ? " token" : " tokens") + " left" + (max > left ? " of " + max : "") },
          "tokens ", h("span", { class: "dots" + (max > MAX_DOTS ? " many" : "") }, dots), max <= MAX_DOTS ? " " + left : null));
      }
      if (f.scores && isNum(f.scores[seat])) extra.push(h("span", { class: "score" }, "score ", h("strong", null, String(f.scores[seat]))));
      var handBox = h("div", { class: "hand", dataset: { size: String(hand.length) } },
        hidden ? hand.map(cardBack) : hand.map(function (c) { return card(c); }),
        hidden && hand.length ? h("span", { class: "muted small count" }, hand.length + (hand.length === 1 ? " card" : " cards")) : null,
        !hand.length ? h("span", { class: "muted small" }, "no cards") : null);
      var fm = m.faults[seat];
      return h("div", { class: cls, dataset: { seat: String(seat) } },
        h("div", { class: "seat-head" },
          h("span", { class: "seat-no" }, "seat " + seat),
          h("span", { class: "seat-name" }, botLink(nm)),
          h("span", { class: "badges" }, badges)),
        extra.length ? h("div", { class: "extra" }, extra) : null,
        handBox,
        faceUp.length ? h("div", { class: "faceup" }, h("span", { class: "muted small" }, "laid face up "), faceUp.map(function (c) { return card(c, "dim"); })) : null,
        acted && (f.card || isNum(f.ms)) ? h("div", { class: "acted-line" },
          f.card ? [h("span", { class: "muted small" }, f.kind === "bust" ? "busted with " : f.kind === "quad" ? "discarded " : "played "), card(f.card, "current")] : null,
          isNum(f.ms) ? h("span", { class: "muted small" }, " in " + ms(f.ms)) : null) : null,
        e && isFault(e.cause) && fm && fm.message ? h("div", { class: "fault-message" }, h("span", { class: "muted small" }, "message: "), fm.message) : null);
    });
  }

  // The total over the game, `width` wide, with the frame `at` marked; a click on it
  // calls `pick` with the frame under it. Returns {svg, mark(i)}: mark moves the marker.
  function totalChart(m, width, at, pick) {
    var frames = m.frames, last = m.last;
    var height = 110, padL = 34, padR = 10, padT = 8, padB = 18;
    var totals = frames.map(function (f) { return f.total; });
    var lo = Math.min(0, Math.min.apply(null, totals.length ? totals : [0]));
    var hi = 99;
    var w = width - padL - padR, hgt = height - padT - padB;
    function xOf(i) { return padL + (last ? (i / last) * w : 0); }
    function y(v) { return padT + (1 - (v - lo) / (hi - lo)) * hgt; }
    var pts = totals.map(function (t, i) { return xOf(i).toFixed(1) + "," + y(t).toFixed(1); }).join(" ");
    var svg = s("svg", { class: "total-chart", width: width, height: height, viewBox: "0 0 " + width + " " + height,
      role: "img", "aria-label": "the running total over the game" });
    [0, 50, 99].forEach(function (v) {
      append(svg, [s("line", { class: v === 99 ? "limit" : "grid", x1: padL, x2: width - padR, y1: y(v), y2: y(v) }),
        s("text", { class: "tick", x: padL - 6, y: y(v) + 4, "text-anchor": "end" }, String(v))]);
    });
    // A line where a new round begins: the frames carry the round, not a kind of their own.
    frames.forEach(function (f, i) {
      if (i === 0 || !isNum(f.round) || f.round === frames[i - 1].round) return;
      append(svg, s("line", { class: "round", x1: xOf(i), x2: xOf(i), y1: padT, y2: padT + hgt, dataset: { frame: String(i) } },
        s("title", null, "round " + f.round + " from frame " + i)));
    });
    append(svg, s("polyline", { class: "line", points: pts }));
    frames.forEach(function (f, i) {
      if (f.kind === "fault" || (f.kind === "bust" && f.in_game && isNum(f.seat) && !f.in_game[f.seat])) {
        append(svg, s("circle", { class: f.kind === "fault" ? "dot bad" : "dot", cx: xOf(i), cy: y(f.total), r: 4 },
          s("title", null, f.text || "")));
      }
    });
    var marker = s("line", { class: "marker", x1: xOf(at), x2: xOf(at), y1: padT - 4, y2: padT + hgt + 4 });
    append(svg, marker);
    append(svg, s("text", { class: "tick", x: padL, y: height - 3 }, "frame 0"),
      s("text", { class: "tick", x: width - padR, y: height - 3, "text-anchor": "end" }, "frame " + last));
    svg.addEventListener("click", function (e) {
      var r = svg.getBoundingClientRect();
      var fx = (e.clientX - r.left - padL) / w;
      pick(Math.round(Math.max(0, Math.min(1, fx)) * last));
    });
    function mark(i) {
      marker.setAttribute("x1", xOf(i));
      marker.setAttribute("x2", xOf(i));
    }
    return { svg: svg, mark: mark };
  }

  A.board = {
    result: resultSection, paintStatus: paintStatus, paintBanner: paintBanner,
    seats: seatPanels, totalChart: totalChart,
  };
})(window.ARENA);
