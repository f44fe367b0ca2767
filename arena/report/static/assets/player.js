/* arena report: the replay page. It loads a game (held back while its deal is still to
 * be played), makes its model (model.js) and plays it: the controls, the frame on
 * screen, whose view, the speed, and the frame in the URL. The board (board.js) draws
 * each frame; the keys (keys.js) drive the controls. */
(function (A) {
  "use strict";

  var h = A.h, append = A.append, fill = A.fill, section = A.section, notice = A.notice;
  var botLink = A.botLink, icon = A.icon, cardKindClass = A.cardKindClass, chartBox = A.chartBox;
  var href = A.href, state = A.state, board = A.board, SPEEDS = A.SPEEDS;

  function gameView(route) {
    var id = route.name;
    var box = h("div", { class: "stack" },
      h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
      notice("Loading game " + id + "\u2026"));
    var player = null;
    var live = true;
    // A game of a duplicate deal still being played is withheld (its hands are those of
    // games to come), and a forfeit was never played: the game list says so, and there
    // is no replay to load.
    function listed() {
      var fresh = !!(state.league && state.league.live);
      return A.loadGames(fresh).then(function (games) {
        for (var i = 0; i < games.length; i++) if (games[i].id === id) return games[i];
        return null;
      }, function () { return null; });
    }
    function forfeit(g) {
      var gone = (g.faults || []).filter(function (f) { return f[1] === "forfeit"; })
        .map(function (f) { return f[0]; });
      fill(box,
        h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
        h("h1", null, "Game ", id),
        notice("Game " + id + " is a forfeit: it was never played, so it has no replay. " +
          (gone.length ? gone.join(", ") + (gone.length === 1 ? " was" : " were") +
            " disqualified for faults in a row before it; " : "") +
          "a forfeit counts in no bot's games, wins, places or ratings, only in its forfeits.", "warn"),
        h("p", { class: "players" }, (g.seats || []).map(function (nm, seat) {
          return h("span", { class: "seat-chip" }, h("span", { class: "place" }, String(seat)), botLink(nm),
            gone.indexOf(nm) >= 0 ? h("span", { class: "badge bad" }, "forfeit") : null);
        })));
    }
    function start() {
      listed().then(function (g) {
        if (!live) return;
        if (g && g.forfeit === true) { forfeit(g); return; }
        if (!(g && g.withheld === true)) { show(); return; }
        fill(box,
          h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
          notice("The replay of game " + id + " is held back until every game of its deal is played: it shows the hands of games still to come.", "warn"),
          h("p", null, h("button", { type: "button", class: "button", onclick: start }, "Try again")));
      });
    }
    function show() {
      A.loadReplay(id).then(function (game) {
        if (!live) return;
        var view = A.currentView();
        player = replayPlayer(game, (view && view.route && view.route.params) || route.params);
        fill(box, player.el);
        player.mounted();
      }, function (err) {
        if (!live) return;
        fill(box,
          h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
          err.format ? notice(err.message, "bad format")
            : notice("Could not load game " + id + ": " + err.message + ". It may not be exported yet.", "bad"),
          h("p", null, h("button", { type: "button", class: "button", onclick: start }, "Try again")));
      });
    }
    return {
      el: box,
      title: "Game " + id,
      mounted: start,
      params: function (r) { if (player) player.params(r.params); },
      keydown: function (e) { return player ? player.keydown(e) : false; },
      resize: function () { if (player) player.resize(); },
      destroy: function () { live = false; if (player) player.destroy(); },
    };
  }

  function replayPlayer(game, initial) {
    var m = A.replayModel(game);
    var frames = m.frames, names = m.names, events = m.events, last = m.last;
    var at = 0;
    var viewer = null;
    var timer = null;
    var speed = 1;
    var chart = null;

    // Controls
    function button(content, title, onclick, cls) {
      return h("button", { type: "button", class: "button" + (cls ? " " + cls : ""), title: title, "aria-label": title, onclick: onclick }, content);
    }
    var bFirst = button(icon("first"), "first frame (Home)", function () { go(0); }, "icon");
    var bPrev = button(icon("prev"), "previous frame (Left)", function () { go(at - 1); }, "icon");
    var bPlay = button([icon("play"), h("span", { class: "label" }, " play")], "play or pause (Space)", toggle, "play");
    bPlay.id = "play";
    var bNext = button(icon("next"), "next frame (Right)", function () { go(at + 1); }, "icon");
    bNext.id = "next-frame";
    var bLast = button(icon("last"), "last frame (End)", function () { go(last); }, "icon");
    var bPrevEvent = button([icon("prev"), "event"], "previous event: a fault, an elimination or a round end (Shift+Left)",
      function () { var i = m.eventBefore(at); if (i !== null) go(i); }, "event");
    var bNextEvent = button(["event", icon("next")], "next event: a fault, an elimination or a round end (Shift+Right)",
      function () { var i = m.eventAfter(at); if (i !== null) go(i); }, "event");
    bPrevEvent.id = "prev-event";
    bNextEvent.id = "next-event";
    var eventSelect = h("select", { id: "event-list", "aria-label": "jump to an event",
      onchange: function () { if (eventSelect.value !== "") go(Number(eventSelect.value)); } },
      h("option", { value: "" }, events.length ? "jump to an event (" + events.length + ")" : "no events"),
      events.map(function (ev) { return h("option", { value: String(ev.i) }, "frame " + ev.i + ": " + ev.text); }));
    var counter = h("span", { class: "counter", id: "frame-counter", "aria-live": "polite" });
    var speedSelect = h("select", { id: "speed", "aria-label": "speed", title: "speed (- and +)",
      onchange: function () { setSpeed(Number(speedSelect.value)); } },
      SPEEDS.map(function (v) { return h("option", { value: String(v) }, v + "\u00d7"); }));
    speedSelect.value = "1";
    var slider = h("input", { type: "range", min: 0, max: last, value: 0, class: "slider", "aria-label": "frame",
      oninput: function () { go(Number(slider.value)); } });
    var seatSelect = h("select", { id: "view-as", "aria-label": "whose view",
      onchange: function () { viewer = seatSelect.value === "" ? null : Number(seatSelect.value); paint(); remember(); } },
      h("option", { value: "" }, "all hands"),
      names.map(function (nm, seat) { return h("option", { value: String(seat) }, "only " + m.who(seat) + "'s view"); }));

    // Board
    var banner = h("div", { class: "step" });
    var status = h("div", { class: "status" });
    var seatsBox = h("div", { class: "seats" });
    var log = h("ol", { class: "log", start: 0, onclick: function (e) {
      var li = e.target.closest("li[data-i]");
      if (li) go(Number(li.dataset.i));
    } });
    var logItems = frames.map(function (f, i) {
      return h("li", { dataset: { i: String(i), kind: String(f.kind || "") }, class: "k-" + cardKindClass(f.kind) + (m.notable[i] ? " notable" : "") },
        h("span", { class: "i" }, String(i)), " ", f.text || f.kind || "");
    });
    append(log, logItems);
    var timeline = chartBox(function (width) {
      chart = board.totalChart(m, width, at, go);
      return chart.svg;
    });

    var head = h("div", { class: "heading" },
      h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", String(game.id)),
      h("h1", null, "Game ", String(game.id)),
      h("p", { class: "players" }, names.map(function (nm, seat) {
        return h("span", { class: "seat-chip" }, h("span", { class: "place" }, String(seat)), botLink(nm));
      })),
      h("p", { class: "muted" }, m.configText()));

    var el = h("div", { class: "replay" }, head,
      h("div", { class: "controls panel" },
        h("div", { class: "buttons" }, bFirst, bPrev, bPlay, bNext, bLast, speedSelect),
        h("div", { class: "buttons events" }, counter, bPrevEvent, bNextEvent),
        slider,
        h("label", { class: "viewas" }, "Show ", seatSelect),
        A.keys.hint()),
      banner,
      h("div", { class: "board" },
        h("div", { class: "main-col" }, status, seatsBox),
        h("div", { class: "side-col panel" }, h("h2", null, "Moves"),
          events.length ? h("label", { class: "jump" }, eventSelect) : null,
          h("div", { class: "logbox" }, log))),
      section("Total over the game", timeline.el, "timeline"),
      board.result(m));

    function paintLog() {
      var prev = log.querySelector("li.current");
      if (prev) prev.classList.remove("current");
      var li = logItems[at];
      if (!li) return;
      li.classList.add("current");
      var box = log.parentNode;
      if (box && box.clientHeight) {
        var top = li.offsetTop;
        if (top < box.scrollTop || top + li.offsetHeight > box.scrollTop + box.clientHeight) {
          box.scrollTop = Math.max(0, top - box.clientHeight / 2);
        }
      }
    }

    function paintMarker() { if (chart) chart.mark(at); }

    function paint() {
      var f = frames[at];
      if (!f) { fill(banner, notice("This game has no frames.")); return; }
      counter.textContent = "frame " + at + " / " + last;
      slider.value = String(at);
      bFirst.disabled = bPrev.disabled = at === 0;
      bNext.disabled = bLast.disabled = at === last;
      bPrevEvent.disabled = m.eventBefore(at) === null;
      bNextEvent.disabled = m.eventAfter(at) === null;
      eventSelect.value = m.notable[at] ? String(at) : "";
      board.paintBanner(banner, f);
      board.paintStatus(status, m, f);
      fill(seatsBox, board.seats(m, at, viewer));
      paintLog();
      paintMarker();
    }

    function remember() {
      var url = href.game(game.id, at || null, viewer === null ? null : viewer);
      if (location.hash !== url) {
        try { history.replaceState(null, "", url); } catch (e) { /* some file:// setups refuse */ }
      }
    }

    function go(i) {
      var next = Math.max(0, Math.min(last, i));
      if (next === at && frames.length) return;
      at = next;
      if (at === last) stop();
      paint();
      remember();
    }

    function stop() {
      if (timer) { clearInterval(timer); timer = null; }
      fill(bPlay, icon("play"), h("span", { class: "label" }, " play"));
      bPlay.classList.remove("on");
    }

    function toggle() {
      if (timer) { stop(); return; }
      if (at === last) go(0);
      fill(bPlay, icon("pause"), h("span", { class: "label" }, " pause"));
      bPlay.classList.add("on");
      run();
    }

    function run() {
      if (timer) clearInterval(timer);
      timer = setInterval(function () { if (at >= last) stop(); else go(at + 1); }, A.FRAME_MS / speed);
    }

    function setSpeed(v) {
      if (SPEEDS.indexOf(v) < 0) return;
      speed = v;
      speedSelect.value = String(v);
      if (timer) run(); // playing: on at the new speed
    }

    function params(p) {
      var fr = parseInt(p.frame, 10);
      var fault = !isFinite(fr) && typeof p.fault === "string" ? m.faultFrame(p.fault) : null;
      if (fault !== null) fr = fault;
      at = isFinite(fr) ? Math.max(0, Math.min(last, fr)) : 0;
      var seat = p.seat === undefined || p.seat === "" ? null : parseInt(p.seat, 10);
      viewer = seat !== null && seat >= 0 && seat < m.n ? seat : null;
      seatSelect.value = viewer === null ? "" : String(viewer);
      paint();
      if (fault !== null) remember(); // the link names the fault; the URL now names its frame
    }

    // What the keys do (keys.js maps each key to one of these).
    var actions = {
      toggle: toggle,
      slower: function () { setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]); },
      faster: function () { setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]); },
      nextEvent: function () { bNextEvent.click(); },
      prevEvent: function () { bPrevEvent.click(); },
      next: function () { go(at + 1); },
      prev: function () { go(at - 1); },
      first: function () { go(0); },
      last: function () { go(last); },
    };

    return {
      el: el,
      mounted: function () { params(initial); timeline.paint(); paintMarker(); paintLog(); },
      params: params,
      keydown: function (e) { return A.keys.player(e, actions); },
      resize: function () { timeline.paint(); paintMarker(); },
      destroy: stop,
    };
  }

  A.gameView = gameView;
})(window.ARENA);
