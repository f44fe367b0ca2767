/* arena report: a single-page viewer of a league, from static data files.
 *
 * Data arrives as scripts (file:// forbids fetch): data/league.js, data/games.js and
 * data/games/<id>.js each call ARENA.receive(kind, payload). Pages are routes in the
 * URL hash: #/ (standings), #/h2h, #/bot/NAME,
 * #/games?bot=NAME&outcome=faults|cap|all&result=won|lost&sort=newest|shortest|longest&q=TEXT,
 * #/game/ID?frame=N&seat=K, and #/game/ID?fault=NAME (opens on the fault of that bot).
 *
 * Everything in the data is untrusted text (bot names, fault messages): the DOM is
 * built with createElement and textContent only, never from HTML strings, and every
 * piece of data in a URL goes through encodeURIComponent.
 */
(function () {
  "use strict";

  var LIVE_MS = 3000;
  var FRAME_MS = 650; // a frame's time on screen when playing at 1x
  var SPEEDS = [0.25, 0.5, 1, 2, 4];
  var PAGE_ROWS = 200;
  var MAX_DOTS = 10; // tokens drawn one dot each; more are one dot and a count
  var CACHED_GAMES = 40; // more than one data file holds (a static report packs 16 games a file)
  var FAULT_CAUSES = ["timeout", "crash", "malformed", "illegal", "forfeit"];
  var CAUSE_TEXT = {
    cannot_play: "could not play",
    bust: "bust",
    target: "reached the target",
    timeout: "timeout",
    crash: "crash",
    malformed: "malformed message",
    illegal: "illegal choice",
    forfeit: "forfeit",
  };
  var REASON_TEXT = {
    last_player: "last player left",
    out: "last player left",
    play_cap: "draw at the play cap",
    target: "target score",
    forfeit: "forfeit",
  };
  var CARD_NAMES = {
    "99": "ONO 99", R: "Reverse", "-10": "minus ten", P2: "Play 2", H: "Hold", DP: "Double Play",
  };
  var CARD_LABELS = { R: "Rev", "-10": "\u221210", H: "Hold" };

  // -- state -------------------------------------------------------------------------

  var state = {
    league: null,
    leagueText: "",
    games: null,
    gamesText: "",
    replays: Object.create(null),
    replayOrder: [],
    pending: Object.create(null),
    started: false,
    liveTimer: null,
    liveFailures: 0,
    liveUpdated: null,
    polling: false,
  };
  var view = null; // the page on screen: {key, el, mounted(), params(route), data(kind), destroy()}

  window.ARENA = {
    receive: function (kind, payload) {
      if (kind === "league") {
        // Only a change of the data counts, not a new time of writing.
        var text = JSON.stringify(Object.assign({}, payload, { generated: null }));
        var changed = text !== state.leagueText;
        state.league = payload;
        state.leagueText = text;
        if (state.started && changed) dataChanged("league");
      } else if (kind === "games") {
        var gtext = JSON.stringify(payload);
        var gchanged = gtext !== state.gamesText;
        state.games = Array.isArray(payload) ? payload : [];
        state.gamesText = gtext;
        if (state.started && gchanged) dataChanged("games");
      } else if (kind === "game") {
        if (payload && typeof payload.id === "string") {
          state.replays[payload.id] = payload;
          state.replayOrder = state.replayOrder.filter(function (id) { return id !== payload.id; });
          state.replayOrder.push(payload.id);
          while (state.replayOrder.length > CACHED_GAMES) delete state.replays[state.replayOrder.shift()];
        }
      }
    },
  };

  // -- DOM building: elements and text nodes only --------------------------------------

  function append(el, children) {
    if (!Array.isArray(children)) children = Array.prototype.slice.call(arguments, 1);
    for (var i = 0; i < children.length; i++) {
      var c = children[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (c instanceof Node) el.appendChild(c);
      else el.appendChild(document.createTextNode(String(c)));
    }
    return el;
  }

  function setProps(el, props) {
    if (!props) return;
    Object.keys(props).forEach(function (k) {
      var v = props[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "class") el.setAttribute("class", v);
      else if (k === "text") el.textContent = String(v);
      else if (k === "style") Object.assign(el.style, v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
      else if (k === "href" && String(v).charAt(0) !== "#") throw new Error("only in-page links");
      else if (k === "value" || k === "checked" || k === "selected" || k === "disabled") el[k] = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    });
  }

  function fill(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return append(el, Array.prototype.slice.call(arguments, 1));
  }

  function h(tag, props) {
    var el = document.createElement(tag);
    setProps(el, props);
    return append(el, Array.prototype.slice.call(arguments, 2));
  }

  var SVG_NS = "http://www.w3.org/2000/svg";
  function s(tag, props) {
    var el = document.createElementNS(SVG_NS, tag);
    setProps(el, props);
    return append(el, Array.prototype.slice.call(arguments, 2));
  }

  // -- routes ------------------------------------------------------------------------

  function enc(text) { return encodeURIComponent(String(text)); }

  function decode(text) {
    try { return decodeURIComponent(text); } catch (e) { return text; }
  }

  function query(params) {
    var parts = [];
    Object.keys(params).forEach(function (k) {
      var v = params[k];
      if (v !== null && v !== undefined && v !== "") parts.push(enc(k) + "=" + enc(v));
    });
    return parts.length ? "?" + parts.join("&") : "";
  }

  var href = {
    index: function () { return "#/"; },
    h2h: function () { return "#/h2h"; },
    bot: function (name) { return "#/bot/" + enc(name); },
    games: function (bot, outcome, more) {
      more = more || {};
      return "#/games" + query({ bot: bot, outcome: outcome && outcome !== "all" ? outcome : null,
        result: bot && more.result && more.result !== "all" ? more.result : null,
        sort: more.sort && more.sort !== "played" ? more.sort : null, q: more.q });
    },
    game: function (id, frame, seat, fault) {
      return "#/game/" + enc(id) + query({ frame: frame || null, seat: seat, fault: fault });
    },
  };

  function parseRoute() {
    var hash = location.hash.replace(/^#/, "");
    var q = "";
    var at = hash.indexOf("?");
    if (at >= 0) { q = hash.slice(at + 1); hash = hash.slice(0, at); }
    var params = Object.create(null);
    q.split("&").forEach(function (pair) {
      if (!pair) return;
      var eq = pair.indexOf("=");
      var key = decode(eq < 0 ? pair : pair.slice(0, eq));
      params[key] = eq < 0 ? "" : decode(pair.slice(eq + 1));
    });
    var parts = hash.split("/").filter(function (p) { return p !== ""; }).map(decode);
    var page = parts[0] || "index";
    if (page === "index" || page === "h2h" || page === "games") {
      return { page: page, params: params, key: page };
    }
    if ((page === "bot" || page === "game") && parts.length >= 2) {
      var name = parts.slice(1).join("/");
      return { page: page, name: name, params: params, key: page + "\u0000" + name };
    }
    return { page: "missing", path: location.hash, params: params, key: "missing" + location.hash };
  }

  // -- loading data scripts ----------------------------------------------------------

  function loadScript(path) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = path;
      el.async = true;
      el.onload = function () { el.remove(); resolve(); };
      el.onerror = function () { el.remove(); reject(new Error("could not load " + path)); };
      document.head.appendChild(el);
    });
  }

  function once(key, path) {
    if (!state.pending[key]) {
      state.pending[key] = loadScript(path).then(
        function () { delete state.pending[key]; },
        function (err) { delete state.pending[key]; throw err; });
    }
    return state.pending[key];
  }

  function loadGames(fresh) {
    if (state.games && !fresh) return Promise.resolve(state.games);
    var path = "data/games.js" + (fresh ? "?t=" + Date.now() : "");
    return once("games", path).then(function () {
      if (!state.games) throw new Error("data/games.js holds no game list");
      return state.games;
    });
  }

  // The game list says which data file holds a game: a static report packs several games
  // in a file (fewer files to write); without a "file", the file is named after the game.
  function fileOf(id) {
    return loadGames(false).then(function (games) {
      for (var i = 0; i < games.length; i++) {
        if (games[i].id === id && typeof games[i].file === "string") return games[i].file;
      }
      return id;
    }, function () { return id; });
  }

  function loadReplay(id) {
    if (state.replays[id]) return Promise.resolve(state.replays[id]);
    return fileOf(id).then(function (file) {
      var path = "data/games/" + enc(file) + ".js";
      return once("file:" + file, path).then(function () {
        if (!state.replays[id]) throw new Error(path + " does not hold game " + id);
        return state.replays[id];
      });
    });
  }

  // -- formatting --------------------------------------------------------------------

  function isNum(v) { return typeof v === "number" && isFinite(v); }
  // A value of the data by a bot's name: its own, never one every object inherits (a bot
  // may be named "constructor" or "toString").
  function own(obj, key) {
    return obj && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
  }
  function count(v) { return isNum(v) ? v.toLocaleString("en-US") : "\u2013"; }
  function fixed(v, digits) { return isNum(v) ? v.toFixed(digits) : "\u2013"; }
  function whole(v) { return isNum(v) ? String(Math.round(v)) : "\u2013"; }
  function percent(share, digits) {
    return isNum(share) ? (100 * share).toFixed(digits === undefined ? 1 : digits) + "%" : "\u2013";
  }
  function los(share) {
    if (!isNum(share)) return "\u2013";
    if (share > 0.995) return ">99%";
    if (share < 0.005) return "<1%";
    return Math.round(100 * share) + "%";
  }
  function ms(v) {
    if (!isNum(v)) return "\u2013";
    if (v < 10) return v.toFixed(2) + " ms";
    if (v < 100) return v.toFixed(1) + " ms";
    return Math.round(v).toLocaleString("en-US") + " ms";
  }
  function ordinal(n) {
    var t = n % 100;
    if (t >= 11 && t <= 13) return n + "th";
    return n + (["th", "st", "nd", "rd"][n % 10] || "th");
  }
  function when(text) {
    var d = new Date(text);
    return isNaN(d.getTime()) ? String(text) : d.toLocaleString();
  }
  function causeText(cause) { return CAUSE_TEXT[cause] || String(cause); }
  function reasonText(reason) {
    if (reason === null || reason === undefined) return "\u2013";
    return REASON_TEXT[reason] || String(reason);
  }
  function isFault(cause) { return FAULT_CAUSES.indexOf(cause) >= 0; }
  function label(key) { return String(key).replace(/_ms$/, "").replace(/_/g, " "); }

  // -- shared pieces -----------------------------------------------------------------

  function cardType(code) {
    if (/^(10|[0-9])$/.test(code)) return "num";
    return { "99": "ono", R: "rev", "-10": "minus", P2: "two", DP: "two", H: "hold" }[code] || "other";
  }

  function card(code, extra) {
    var c = String(code);
    var name = CARD_NAMES[c] || (cardType(c) === "num" ? "number " + c : c);
    return h("span", { class: "card card-" + cardType(c) + (extra ? " " + extra : ""), title: name,
      dataset: { card: c } }, CARD_LABELS[c] || c);
  }

  function cardBack() { return h("span", { class: "card card-back", title: "a hidden card" }); }

  function botLink(name) { return h("a", { href: href.bot(name), class: "bot" }, name); }

  function section(title, children, cls) {
    return h("section", { class: "panel" + (cls ? " " + cls : "") }, title ? h("h2", null, title) : null, children);
  }

  function scroll(table) { return h("div", { class: "scroll" }, table); }

  function table(headers, rows, cls) {
    var head = h("tr", null, headers.map(function (hd) {
      if (hd instanceof Node) return hd;
      var num = hd.charAt(0) === ">";
      return h("th", { scope: "col", class: num ? "num" : null }, num ? hd.slice(1) : hd);
    }));
    return h("table", { class: cls || null }, h("thead", null, head), h("tbody", null, rows));
  }

  function td(value, col, cls) {
    return h("td", { class: cls || "num", dataset: col ? { col: col } : null }, value);
  }

  function notice(text, cls) { return h("p", { class: "notice" + (cls ? " " + cls : "") }, text); }

  function standingsRow(name) {
    var rows = (state.league && state.league.standings && state.league.standings.rows) || [];
    for (var i = 0; i < rows.length; i++) if (rows[i].bot === name) return rows[i];
    return null;
  }

  function botOrder() {
    var names = [];
    var seen = Object.create(null);
    function add(n) { if (typeof n === "string" && !seen[n]) { seen[n] = true; names.push(n); } }
    var L = state.league || {};
    ((L.standings && L.standings.rows) || []).forEach(function (r) { add(r.bot); });
    Object.keys(L.bots || {}).forEach(add);
    (state.games || []).forEach(function (g) { (g.seats || []).forEach(add); });
    return names;
  }

  // -- the index page ----------------------------------------------------------------

  function settingsList(settings) {
    var dl = h("dl", { class: "settings" });
    function row(key, value) {
      if (value === null || value === undefined || value === "") return;
      append(dl, [h("dt", null, key), h("dd", null, value)]);
    }
    var shown = Object.create(null);
    // The rules may come at the top level or as a game configuration under "game".
    var game = settings.game && typeof settings.game === "object" ? settings.game : {};
    shown.game = true;
    function take(key) {
      shown[key] = true;
      var v = settings[key];
      return v === null || v === undefined ? game[key] : v;
    }
    var fmt = take("format");
    var fmtText = fmt;
    var tokens = take("tokens"), target = take("target"), ending = take("ending");
    if (fmt === "tokens" && isNum(tokens)) fmtText = "tokens (" + tokens + " each)";
    if (fmt === "points") {
      var bits = [];
      if (isNum(target)) bits.push("target " + target);
      if (ending) bits.push("ending " + ending);
      if (bits.length) fmtText = "points (" + bits.join(", ") + ")";
    }
    row("Edition", take("edition"));
    row("Format", fmtText);
    if (take("ono_on_tens") === true) row("ONO on tens", "yes");
    var cap = take("play_cap");
    row("Play cap", isNum(cap) ? count(cap) + " plays" : cap);
    var players = take("players");
    var size = take("table_size");
    row("Table size", isNum(size) ? size + " bots a table" : isNum(players) ? players + " players" : size);
    row("Games per table", take("games_per_table"));
    var dup = take("duplicate");
    row("Duplicate deals", dup === true ? "yes: one deal replayed across the seat rotations" : dup === false ? "no" : dup);
    var clocks = take("clocks");
    if (clocks && typeof clocks === "object") {
      var items = Object.keys(clocks).map(function (k) {
        var v = clocks[k];
        var text = v === null || v === undefined ? "none" : /_ms$/.test(k) && isNum(v) ? count(v) + " ms" : String(v);
        return h("li", null, h("span", { class: "muted" }, label(k) + " "), text);
      });
      if (items.length) row("Clocks", h("ul", { class: "inline" }, items));
    }
    row("Seed", take("seed_note"));
    row("Schedule", take("schedule_note"));
    Object.keys(settings).forEach(function (k) {
      if (shown[k]) return;
      var v = settings[k];
      if (v !== null && typeof v === "object") v = JSON.stringify(v);
      if (typeof v === "boolean") v = v ? "yes" : "no";
      row(label(k), v);
    });
    return dl;
  }

  function progressPanel(L) {
    var p = L.progress || {};
    var done = p.done || 0;
    var total = p.total || 0;
    var share = total ? Math.min(1, done / total) : 0;
    var bar = h("div", { class: "bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": total,
      "aria-valuenow": done }, h("span", { style: { width: (100 * share).toFixed(1) + "%" } }));
    return section("Progress", [
      h("p", { class: "big", id: "progress" }, h("strong", null, count(done)), " of ", count(total), " games"),
      bar,
      h("p", { class: "muted" },
        total ? percent(share, 0) + " done" : "no games scheduled",
        isNum(p.forfeits) && p.forfeits > 0 ? " \u00b7 " + count(p.forfeits) + " forfeited" : "",
        L.live ? " \u00b7 still running: this page updates by itself" : ""),
      h("p", null, h("a", { href: href.games() }, "All games \u2192")),
    ], "progress");
  }

  function faultCauses(rows) {
    var seen = [];
    FAULT_CAUSES.concat(rows.reduce(function (acc, r) { return acc.concat(Object.keys(r.faults || {})); }, []))
      .forEach(function (c) {
        if (seen.indexOf(c) < 0 && rows.some(function (r) { return r.faults && r.faults[c] > 0; })) seen.push(c);
      });
    return seen;
  }

  function standingsTable(st) {
    var rows = st.rows || [];
    var hasPoints = rows.some(function (r) { return r.points !== null && r.points !== undefined; });
    var hasInterval = rows.some(function (r) { return isNum(r.plus_minus); });
    var hasLos = rows.some(function (r) { return isNum(r.los); });
    var causes = faultCauses(rows);
    var headers = [">#", "bot", ">Elo"];
    if (hasInterval) headers.push(">\u00b1", ">95% interval");
    if (hasLos) headers.push(h("th", { scope: "col", class: "num", title: "likelihood of superiority over the next bot down" }, "LOS"));
    headers.push(">games", ">wins", ">win %", ">avg place");
    if (hasPoints) headers.push(">points");
    if (causes.length) causes.forEach(function (c) {
      headers.push(h("th", { scope: "col", class: "num fault-col", title: "faults: " + causeText(c) }, c));
    });
    else headers.push(">faults");
    var body = rows.map(function (r) {
      var cells = [td(String(r.rank), "rank"), td(botLink(r.bot), "bot", "name"), td(whole(r.elo), "elo", "num strong")];
      if (hasInterval) {
        cells.push(td(isNum(r.plus_minus) ? "\u00b1" + whole(r.plus_minus) : "\u2013", "plus_minus"));
        cells.push(td(isNum(r.elo_low) ? whole(r.elo_low) + "\u2013" + whole(r.elo_high) : "\u2013", "interval", "num muted"));
      }
      if (hasLos) cells.push(td(los(r.los), "los", "num muted"));
      cells.push(td(count(r.games), "games"), td(count(r.wins), "wins"), td(fixed(100 * r.win_rate, 1), "win_rate"),
        td(fixed(r.average_place, 2), "average_place"));
      if (hasPoints) cells.push(td(fixed(r.points, 1), "points"));
      if (causes.length) causes.forEach(function (c) {
        var n = (r.faults && r.faults[c]) || 0;
        cells.push(td(n ? h("a", { href: href.games(r.bot, "faults"), class: "fault-count" }, String(n)) : "0",
          "fault-" + c, n ? "num bad" : "num muted"));
      });
      else cells.push(td("0", "faults", "num muted"));
      return h("tr", { dataset: { bot: r.bot } }, cells);
    });
    return table(headers, body, "standings");
  }

  function describeStandings(st) {
    var bits = [];
    if (st.method === "sequential") bits.push("Elo: classic sequential updates" + (isNum(st.k_factor) ? " (K = " + st.k_factor + ")" : "") + ", in game order.");
    else {
      bits.push("Elo: Plackett\u2013Luce fit of " + (st.games === 1 ? "the one finishing order" : "all " + count(st.games) + " finishing orders") +
        (isNum(st.prior) && st.prior > 0 ? ", with a prior of " + st.prior + (st.prior === 1 ? " pseudo-win and 1 pseudo-loss" : " pseudo-wins and " + st.prior + " pseudo-losses") + " per bot" : "") +
        (isNum(st.mean) ? "; the bots average " + st.mean + "." : "."));
    }
    if (st.intervals === "fisher") bits.push("\u00b1: " + percent(st.confidence || 0.95, 0) + " interval from the Fisher information.");
    else if (st.intervals === "bootstrap") bits.push("\u00b1: from " + ((st.bootstrap && st.bootstrap.resamples) || "") + " bootstrap resamples.");
    if (st.intervals) bits.push("LOS: likelihood that the bot is stronger than the next one down.");
    return h("p", { class: "muted small" }, bits.join(" "));
  }

  function niceStep(span, ticks) {
    var raw = span / Math.max(1, ticks);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
  }

  function shorten(text, chars) {
    text = String(text);
    return text.length > chars ? text.slice(0, Math.max(1, chars - 1)) + "\u2026" : text;
  }

  var measurer = null;
  function textWidth(text, font) {
    if (!measurer) measurer = document.createElement("canvas").getContext("2d");
    if (!measurer) return String(text).length * 8;
    measurer.font = font;
    return measurer.measureText(String(text)).width;
  }

  function fitText(text, width, font) {
    text = String(text);
    if (textWidth(text, font) <= width) return text;
    var lo = 0, hi = text.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (textWidth(text.slice(0, mid) + "\u2026", font) <= width) lo = mid; else hi = mid - 1;
    }
    return text.slice(0, Math.max(1, lo)) + "\u2026";
  }

  function chartFont(px, weight) {
    var family = getComputedStyle(document.body).fontFamily || "sans-serif";
    return (weight || 400) + " " + px + "px " + family;
  }

  function eloChart(st, width) {
    var rows = (st.rows || []).slice().sort(function (a, b) { return b.elo - a.elo; });
    if (!rows.length) return notice("No rated bots yet.");
    var narrow = width < 560;
    var nameFont = chartFont(13, 600), valueFont = chartFont(12, 400);
    function valueText(r) { return isNum(r.plus_minus) ? whole(r.elo) + " \u00b1" + whole(r.plus_minus) : whole(r.elo); }
    var labelW = Math.min(narrow ? 120 : 220, 12 + Math.max.apply(null, rows.map(function (r) { return textWidth(r.bot, nameFont); })));
    labelW = Math.max(labelW, 60);
    var valueW = 16 + Math.max.apply(null, rows.map(function (r) { return textWidth(valueText(r), valueFont); }));
    var rowH = 26, top = 6, axisH = 26;
    var plotW = Math.max(60, width - labelW - valueW - 12);
    var lo = Infinity, hi = -Infinity;
    rows.forEach(function (r) {
      lo = Math.min(lo, isNum(r.elo_low) ? r.elo_low : r.elo, r.elo);
      hi = Math.max(hi, isNum(r.elo_high) ? r.elo_high : r.elo, r.elo);
    });
    if (isNum(st.mean)) { lo = Math.min(lo, st.mean); hi = Math.max(hi, st.mean); }
    if (hi - lo < 20) { lo -= 10; hi += 10; }
    var step = niceStep(hi - lo, narrow ? 3 : 6);
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    var height = top + rows.length * rowH + axisH;
    function x(v) { return labelW + ((v - lo) / (hi - lo)) * plotW; }
    var svg = s("svg", { class: "elo-chart", width: width, height: height, viewBox: "0 0 " + width + " " + height,
      role: "img", "aria-label": "Elo of each bot with its interval" });
    for (var t = lo; t <= hi + step / 2; t += step) {
      append(svg, [
        s("line", { class: "grid", x1: x(t), x2: x(t), y1: top, y2: height - axisH + 4 }),
        s("text", { class: "tick", x: x(t), y: height - 8, "text-anchor": "middle" }, String(Math.round(t))),
      ]);
    }
    if (isNum(st.mean)) {
      append(svg, s("line", { class: "mean", x1: x(st.mean), x2: x(st.mean), y1: top, y2: height - axisH + 4 },
        s("title", null, "the average, " + st.mean)));
    }
    rows.forEach(function (r, i) {
      var y = top + i * rowH + rowH / 2;
      var g = s("g", { class: "row" });
      var text = valueText(r);
      append(g, [
        s("a", { href: href.bot(r.bot) },
          s("text", { class: "name", x: labelW - 10, y: y + 4, "text-anchor": "end" }, fitText(r.bot, labelW - 12, nameFont)),
          s("title", null, r.bot)),
      ]);
      if (isNum(r.elo_low) && isNum(r.elo_high)) {
        append(g, [
          s("line", { class: "interval", x1: x(r.elo_low), x2: x(r.elo_high), y1: y, y2: y }),
          s("line", { class: "cap", x1: x(r.elo_low), x2: x(r.elo_low), y1: y - 5, y2: y + 5 }),
          s("line", { class: "cap", x1: x(r.elo_high), x2: x(r.elo_high), y1: y - 5, y2: y + 5 }),
        ]);
      }
      append(g, [
        s("circle", { class: "point", cx: x(r.elo), cy: y, r: 5 },
          s("title", null, r.bot + ": " + text + (isNum(r.elo_low) ? " (" + whole(r.elo_low) + "\u2013" + whole(r.elo_high) + ")" : ""))),
        s("text", { class: "value", x: labelW + plotW + 10, y: y + 4 }, text),
      ]);
      append(svg, g);
    });
    return svg;
  }

  function chartBox(draw) {
    var box = h("div", { class: "chart" });
    var last = -1;
    function paint() {
      var w = Math.floor(box.clientWidth);
      if (w <= 0 || w === last) return;
      last = w;
      fill(box, draw(w));
    }
    return { el: box, paint: paint };
  }

  function indexView() {
    var L = state.league;
    var st = L.standings || { rows: [] };
    var chart = chartBox(function (w) { return eloChart(st, w); });
    var el = h("div", { class: "stack index" },
      h("div", { class: "heading" },
        h("h1", null, L.title || "arena league report"),
        h("p", { class: "muted" }, "Generated " + when(L.generated))),
      h("div", { class: "two" },
        section("Settings", settingsList(L.settings || {}), "settings-panel"),
        progressPanel(L)),
      section("Standings", [
        (st.rows && st.rows.length) ? scroll(standingsTable(st)) : notice("No finished games yet."),
        (st.rows && st.rows.length) ? describeStandings(st) : null,
      ], "standings-panel"),
      section("Elo with " + percent(st.confidence || 0.95, 0) + " intervals", chart.el, "chart-panel"));
    return { el: el, title: L.title || "arena report", mounted: chart.paint, resize: chart.paint };
  }

  // -- head to head ------------------------------------------------------------------

  function mix(a, b, t) { return a.map(function (v, i) { return Math.round(v + (b[i] - v) * t); }); }
  var LOW = [214, 76, 62], MID = [246, 244, 238], HIGH = [38, 146, 96];
  function heat(share) {
    var rgb = share < 0.5 ? mix(LOW, MID, share / 0.5) : mix(MID, HIGH, (share - 0.5) / 0.5);
    return "rgb(" + rgb.join(",") + ")";
  }

  function h2hView() {
    var m = state.league.matrix || { players: [], share: [], games: [] };
    var players = m.players || [];
    if (!players.length) return { el: h("div", { class: "stack" }, h("h1", null, "Head-to-head"), notice("No games yet.")) };
    var head = [h("th", { class: "corner", scope: "col" }, h("span", { class: "muted small" }, "row above column"))]
      .concat(players.map(function (p) {
        return h("th", { scope: "col", class: "colname", title: p }, h("a", { href: href.bot(p), class: "vert" }, shorten(p, 22)));
      }));
    var rows = players.map(function (p, r) {
      return h("tr", { dataset: { bot: p } },
        h("th", { scope: "row", class: "rowname" }, botLink(p)),
        players.map(function (q, c) {
          var share = (m.share[r] || [])[c];
          var games = (m.games[r] || [])[c] || 0;
          if (r === c) return h("td", { class: "cell self", title: p }, "\u2014");
          if (!isNum(share)) return h("td", { class: "cell none", title: "no shared games" }, "\u00b7");
          var strong = Math.abs(share - 0.5) > 0.3;
          return h("td", {
            class: "cell" + (strong ? " strong" : ""),
            style: { backgroundColor: heat(share) },
            title: p + " finished above " + q + " in " + percent(share, 1) + " of their " + count(games) + " shared games",
            dataset: { games: String(games) },
          }, Math.round(100 * share) + "%");
        }));
    });
    var legend = h("div", { class: "legend" },
      h("span", null, "0%"), h("span", { class: "ramp" }), h("span", null, "100%"),
      h("span", { class: "muted small" }, "hover a cell for the number of games"));
    var el = h("div", { class: "stack" },
      h("div", { class: "heading" },
        h("h1", null, "Head-to-head"),
        h("p", { class: "muted" }, "Each cell: the share of the games the two bots played together in which the row's bot finished above the column's bot (ties count half).")),
      section(null, [legend, scroll(h("table", { class: "h2h" }, h("thead", null, h("tr", null, head)), h("tbody", null, rows)))]));
    return { el: el, title: "Head-to-head" };
  }

  // -- one bot -----------------------------------------------------------------------

  function tile(labelText, value, sub, cls) {
    return h("div", { class: "tile" + (cls ? " " + cls : "") },
      h("div", { class: "label" }, labelText), h("div", { class: "value" }, value), sub ? h("div", { class: "sub" }, sub) : null);
  }

  function botView(name) {
    var L = state.league;
    var info = own(L.bots, name);
    var row = standingsRow(name);
    var crumbs = h("p", { class: "crumbs" }, h("a", { href: href.index() }, "Standings"), " \u203a ", "bot");
    if (!info && !row) {
      return { el: h("div", { class: "stack" }, crumbs, h("h1", { class: "name" }, name),
        notice("No bot of this name in the league.", "bad")), title: name };
    }
    info = info || {};
    var nRows = ((L.standings && L.standings.rows) || []).length;
    var games = isNum(info.games) ? info.games : row && row.games;
    var wins = isNum(info.wins) ? info.wins : row && row.wins;
    var faults = info.faults || {};
    var faultTotal = Object.keys(faults).reduce(function (n, c) { return n + (faults[c] || []).length; }, 0);
    var think = info.think_ms || {};
    var tiles = h("div", { class: "tiles" },
      row ? tile("Elo", whole(row.elo), isNum(row.plus_minus) ? "\u00b1" + whole(row.plus_minus) + " (" + whole(row.elo_low) + "\u2013" + whole(row.elo_high) + ")" : null) : null,
      row ? tile("Rank", String(row.rank), "of " + nRows) : null,
      tile("Games", count(games)),
      tile("Wins", count(wins), games ? percent(wins / games, 1) : null),
      row ? tile("Average place", fixed(row.average_place, 2)) : null,
      row && isNum(row.points) ? tile("Points", fixed(row.points, 1), "mean final score") : null,
      tile("Faults", count(faultTotal), null, faultTotal ? "bad" : null),
      tile("Think time", ms(think.median), "median \u00b7 max " + ms(think.max)));

    var parts = [crumbs, h("h1", { class: "name" }, name), tiles];

    var pbs = info.places_by_seat || [];
    if (pbs.length) {
      var nPlaces = pbs.reduce(function (n, r) { return Math.max(n, r.length); }, 0);
      var headers = ["seat", ">games"];
      for (var p = 1; p <= nPlaces; p++) headers.push(">" + ordinal(p));
      headers.push(">avg place");
      var sums = [];
      var body = pbs.map(function (counts, seat) {
        var n = 0, placeSum = 0;
        counts.forEach(function (c, k) { n += c; placeSum += c * (k + 1); sums[k] = (sums[k] || 0) + c; });
        var cells = [h("th", { scope: "row" }, "seat " + seat + (seat === 0 ? " (starts)" : "")), td(count(n), "games")];
        for (var k = 0; k < nPlaces; k++) cells.push(td(count(counts[k] || 0), "place" + (k + 1), counts[k] ? "num" : "num muted"));
        cells.push(td(n ? fixed(placeSum / n, 2) : "\u2013", "average"));
        return h("tr", { dataset: { seat: String(seat) } }, cells);
      });
      var totalN = sums.reduce(function (a, b) { return a + b; }, 0);
      var totalPlace = sums.reduce(function (a, b, k) { return a + b * (k + 1); }, 0);
      var foot = [h("th", { scope: "row" }, "all seats"), td(count(totalN))];
      for (var k2 = 0; k2 < nPlaces; k2++) foot.push(td(count(sums[k2] || 0)));
      foot.push(td(totalN ? fixed(totalPlace / totalN, 2) : "\u2013"));
      body.push(h("tr", { class: "total" }, foot));
      parts.push(section("Places by seat", [scroll(table(headers, body, "places")),
        h("p", { class: "muted small" }, "Seat 0 plays first in round 1; play goes from seat i to seat i+1.")]));
    }

    var versus = info.versus || {};
    var opponents = botOrder().filter(function (o) { return o !== name && own(versus, o); })
      .concat(Object.keys(versus).filter(function (o) { return botOrder().indexOf(o) < 0; }));
    if (opponents.length) {
      var vrows = opponents.map(function (o) {
        var v = versus[o];
        var tied = Math.max(0, (v.games || 0) - (v.above || 0) - (v.below || 0));
        var share = v.games ? ((v.above || 0) + tied / 2) / v.games : null;
        return h("tr", { dataset: { bot: o } },
          td(botLink(o), "bot", "name"), td(count(v.games), "games"), td(count(v.above), "above"),
          td(count(v.below), "below"), td(count(tied), "tied", tied ? "num" : "num muted"),
          h("td", { class: "num share", dataset: { col: "share" } }, percent(share, 0),
            h("span", { class: "minibar" }, h("span", { style: { width: isNum(share) ? (100 * share).toFixed(1) + "%" : "0" } }))));
      });
      parts.push(section("Against each opponent", [
        scroll(table(["opponent", ">games", ">above", ">below", ">tied", ">finished above"], vrows, "versus")),
        h("p", { class: "muted small" }, "Above: games in which " + name + " finished above that opponent (ties count half in the share)."),
      ]));
    }

    var causes = Object.keys(faults).filter(function (c) { return (faults[c] || []).length; });
    var messages = info.fault_messages || {};
    function faultLink(id) {
      return h("a", { href: href.game(id, null, null, name), class: "game-id", title: "open game " + id + " at the fault" }, id);
    }
    var faultBody = causes.length ? h("ul", { class: "faults" }, causes.map(function (c) {
      var ids = faults[c];
      var shown = ids.slice(0, 100);
      var told = shown.some(function (id) { return typeof own(messages, id) === "string"; });
      return h("li", { dataset: { cause: c } },
        h("span", { class: "badge bad" }, causeText(c)), " ", count(ids.length), " ",
        ids.length === 1 ? "game" : "games", told ? ":" : ": ",
        // With the bot's messages, a game a line; without, the ids in a row.
        told ? h("ul", { class: "fault-games" }, shown.map(function (id) {
          var m = own(messages, id);
          return h("li", { dataset: { game: id } }, faultLink(id),
            typeof m === "string" ? h("span", { class: "message" }, " " + m) : null);
        })) : h("span", { class: "ids" }, shown.map(faultLink)),
        ids.length > 100 ? h("a", { href: href.games(name, "faults") }, " and " + count(ids.length - 100) + " more") : null);
    })) : notice("No faults.", "good");
    parts.push(section("Faults", faultBody));

    parts.push(section("Think time per decision", h("dl", { class: "settings" },
      h("dt", null, "median"), h("dd", { dataset: { col: "think-median" } }, ms(think.median)),
      h("dt", null, "max"), h("dd", { dataset: { col: "think-max" } }, ms(think.max)),
      h("dt", null, "decisions"), h("dd", null, count(think.decisions)))));

    parts.push(h("p", null, h("a", { href: href.games(name) }, "All games of " + name + " \u2192")));
    return { el: h("div", { class: "stack" }, parts), title: name };
  }

  // -- the game list -----------------------------------------------------------------

  function outcomeOf(params) {
    var o = params.outcome;
    return o === "faults" || o === "cap" ? o : "all";
  }

  var SORTS = {
    played: "in the order played",
    newest: "last played first",
    shortest: "fewest plays first",
    longest: "most plays first",
  };

  function filtersOf(params) {
    var bot = params.bot || "";
    var result = params.result === "won" || params.result === "lost" ? params.result : "all";
    return { bot: bot, outcome: outcomeOf(params), result: bot ? result : "all",
      sort: Object.prototype.hasOwnProperty.call(SORTS, params.sort) ? params.sort : "played", q: params.q || "" };
  }

  // The text filter: a part of the game's id or of a bot's name, in any case.
  function textMatches(g, q) {
    q = q.trim().toLowerCase();
    if (!q) return true;
    if (String(g.id).toLowerCase().indexOf(q) >= 0) return true;
    return (g.seats || []).some(function (n) { return String(n).toLowerCase().indexOf(q) >= 0; });
  }

  function matches(g, bot, outcome, result) {
    var seat = bot ? (g.seats || []).indexOf(bot) : -1;
    if (bot && seat < 0) return false;
    if (result === "won" && (g.places || [])[seat] !== 1) return false;
    if (result === "lost" && (!isNum((g.places || [])[seat]) || g.places[seat] === 1)) return false;
    if (outcome === "faults") {
      var faults = (g.faults || []).filter(function (f) { return !bot || f[0] === bot; });
      return faults.length > 0 || (!!g.forfeit && !bot);
    }
    if (outcome === "cap") return g.reason === "play_cap";
    return true;
  }

  function gamesView(route) {
    var filters = filtersOf(route.params);
    var limit = PAGE_ROWS;
    var textBox = h("input", { type: "search", id: "filter-text", placeholder: "game id or bot name",
      "aria-label": "filter by game id or bot name", autocomplete: "off", spellcheck: "false",
      oninput: function () {
        filters.q = textBox.value;
        limit = PAGE_ROWS;
        // Each letter is no new page to go back to: the URL is replaced, not added to.
        try { history.replaceState(null, "", url()); } catch (e) { /* some file:// setups refuse */ }
        draw();
      } });
    var resultSelect = h("select", { id: "filter-result", onchange: go },
      h("option", { value: "all" }, "won or lost"),
      h("option", { value: "won" }, "won"),
      h("option", { value: "lost" }, "lost"));
    var resultLabel = h("label", null, "Result ", resultSelect);
    var sortSelect = h("select", { id: "sort", onchange: go },
      Object.keys(SORTS).map(function (k) { return h("option", { value: k }, SORTS[k]); }));
    var botSelect = h("select", { id: "filter-bot", onchange: go });
    var outcomeSelect = h("select", { id: "filter-outcome", onchange: go },
      h("option", { value: "all" }, "all games"),
      h("option", { value: "faults" }, "with faults"),
      h("option", { value: "cap" }, "draws at the play cap"));
    var countLine = h("p", { class: "muted", id: "games-count" });
    var body = h("div", { id: "games-body" }, notice("Loading the game list\u2026"));
    var el = h("div", { class: "stack" },
      h("div", { class: "heading" }, h("h1", null, "Games")),
      section(null, [
        h("div", { class: "filters" },
          h("label", null, "Bot ", botSelect),
          h("label", null, "Outcome ", outcomeSelect),
          resultLabel,
          h("label", null, "Sort ", sortSelect),
          h("label", { class: "search" }, "Find ", textBox)),
        countLine, body]));

    function url() {
      return href.games(botSelect.value, outcomeSelect.value,
        { result: resultSelect.value, sort: sortSelect.value, q: textBox.value });
    }

    function go() { location.hash = url(); }

    function fillBots() {
      var names = botOrder();
      if (filters.bot && names.indexOf(filters.bot) < 0) names.push(filters.bot);
      fill(botSelect, h("option", { value: "" }, "all bots"),
        names.map(function (n) { return h("option", { value: n }, n); }));
      botSelect.value = filters.bot;
      outcomeSelect.value = filters.outcome;
      resultSelect.value = filters.result;
      resultLabel.hidden = !filters.bot; // won or lost: of the bot chosen
      sortSelect.value = filters.sort;
      if (textBox.value !== filters.q) textBox.value = filters.q;
    }

    function row(g, index) {
      var faultsBy = Object.create(null);
      (g.faults || []).forEach(function (f) { (faultsBy[f[0]] = faultsBy[f[0]] || []).push(f[1]); });
      // With the fault filter on, a game opens at its first fault (of the bot chosen).
      var firstFault = filters.outcome === "faults"
        ? (g.faults || []).filter(function (f) { return !filters.bot || f[0] === filters.bot; })[0] : null;
      var link = href.game(g.id, null, null, firstFault ? firstFault[0] : null);
      var seats = (g.seats || []).map(function (name, seat) {
        var place = (g.places || [])[seat];
        return h("span", { class: "seat-chip" + (name === filters.bot ? " mine" : "") + (place === 1 ? " win" : ""),
          title: "seat " + seat + ": " + name + (place ? ", " + ordinal(place) : "") },
          h("span", { class: "place" }, isNum(place) ? String(place) : "?"), h("span", { class: "who" }, name),
          faultsBy[name] ? h("a", { class: "badge bad", href: href.game(g.id, null, null, name),
            title: "open the game at the fault of " + name }, faultsBy[name].join(", ")) : null);
      });
      return h("tr", { dataset: { game: g.id } },
        td(String(index + 1), "n", "num muted"),
        h("td", { dataset: { col: "id" } }, h("a", { href: link, class: "game-id" }, g.id)),
        h("td", { class: "seat-list", dataset: { col: "seats" } }, seats),
        h("td", { dataset: { col: "reason" }, class: g.reason === "play_cap" ? "warn" : null },
          reasonText(g.reason), g.forfeit ? h("span", { class: "badge bad" }, "forfeit") : null,
          g.withheld === true ? h("span", { class: "badge warn", title: "its deal is still to be played in other games" }, "replay held back") : null),
        td(count(g.plays), "plays"),
        h("td", { class: "replay" }, h("a", { href: link, class: "button small" }, "Replay \u25b8")));
    }

    function draw() {
      fillBots();
      if (!state.games) return;
      var all = state.games;
      var list = [];
      all.forEach(function (g, i) {
        if (matches(g, filters.bot, filters.outcome, filters.result) && textMatches(g, filters.q)) list.push([g, i]);
      });
      if (filters.sort === "newest") list.reverse();
      else if (filters.sort === "shortest" || filters.sort === "longest") {
        var sign = filters.sort === "shortest" ? 1 : -1;
        list.sort(function (a, b) {
          var pa = isNum(a[0].plays) ? a[0].plays : null, pb = isNum(b[0].plays) ? b[0].plays : null;
          if (pa === null || pb === null) return (pa === null) - (pb === null) || a[1] - b[1]; // unknown last
          return sign * (pa - pb) || a[1] - b[1];
        });
      }
      countLine.textContent = list.length === all.length ? count(all.length) + " games"
        : count(list.length) + " of " + count(all.length) + " games";
      if (!list.length) { fill(body, notice("No game matches.")); return; }
      var rows = list.slice(0, limit).map(function (pair) { return row(pair[0], pair[1]); });
      var more = list.length > limit ? h("p", null, h("button", { type: "button", class: "button", onclick: function () {
        limit += PAGE_ROWS; draw();
      } }, "Show " + count(Math.min(PAGE_ROWS, list.length - limit)) + " more")) : null;
      fill(body, scroll(table(["#", "game", "seats and places", "ended by", ">plays", ""], rows, "games")));
      if (more) body.appendChild(more);
    }

    function fetchList(fresh) {
      loadGames(fresh).then(function () { if (!fresh) draw(); }, function (err) {
        if (!state.games) fill(body, notice("Could not load the game list (" + err.message + ").", "bad"));
      });
    }

    return {
      el: el,
      title: "Games",
      mounted: function () { fillBots(); fetchList(false); },
      params: function (r) {
        filters = filtersOf(r.params);
        limit = PAGE_ROWS;
        draw();
      },
      data: function () { draw(); },
      poll: function () { fetchList(true); },
    };
  }

  // -- the replay --------------------------------------------------------------------

  function gameView(route) {
    var id = route.name;
    var box = h("div", { class: "stack" },
      h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
      notice("Loading game " + id + "\u2026"));
    var player = null;
    var live = true;
    // A game of a duplicate deal still being played is withheld (its hands are those of
    // games to come): the game list says so, and its replay is not there to load.
    function held() {
      var fresh = !!(state.league && state.league.live);
      return loadGames(fresh).then(function (games) {
        return games.some(function (g) { return g.id === id && g.withheld === true; });
      }, function () { return false; });
    }
    function start() {
      held().then(function (withheld) {
        if (!live) return;
        if (!withheld) { show(); return; }
        fill(box,
          h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
          notice("The replay of game " + id + " is held back until every game of its deal is played: it shows the hands of games still to come.", "warn"),
          h("p", null, h("button", { type: "button", class: "button", onclick: start }, "Try again")));
      });
    }
    function show() {
      loadReplay(id).then(function (game) {
        if (!live) return;
        player = replayPlayer(game, (view && view.route && view.route.params) || route.params);
        fill(box, player.el);
        player.mounted();
      }, function (err) {
        if (!live) return;
        fill(box,
          h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", id),
          notice("Could not load game " + id + ": " + err.message + ". It may not be exported yet.", "bad"),
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
    var frames = game.frames || [];
    var names = game.names || [];
    var n = names.length;
    var cfg = game.config || {};
    var result = game.result || {};
    var last = Math.max(0, frames.length - 1);
    var at = 0;
    var viewer = null;
    var timer = null;
    var faultMessages = Object.create(null);
    (game.faults || []).forEach(function (f) { faultMessages[f.seat] = f; });

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
      if (fault) bits.push("fault of " + who(f.seat));
      (f.eliminated || []).forEach(function (e) {
        if (was[e.seat]) return;
        if (fault && e.seat === f.seat) bits[0] += ", out: " + causeText(e.cause);
        else bits.push(who(e.seat) + " out: " + causeText(e.cause));
      });
      if (isNum(f.round) && isNum(p.round) && f.round !== p.round) bits.push("round " + p.round + " ends");
      if (i === last) bits.push("the end");
      if (bits.length) events.push({ i: i, text: bits.join("; "), fault: f.kind === "fault" });
    });
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
      function () { var i = eventBefore(at); if (i !== null) go(i); }, "event");
    var bNextEvent = button(["event", icon("next")], "next event: a fault, an elimination or a round end (Shift+Right)",
      function () { var i = eventAfter(at); if (i !== null) go(i); }, "event");
    bPrevEvent.id = "prev-event";
    bNextEvent.id = "next-event";
    var eventSelect = h("select", { id: "event-list", "aria-label": "jump to an event",
      onchange: function () { if (eventSelect.value !== "") go(Number(eventSelect.value)); } },
      h("option", { value: "" }, events.length ? "jump to an event (" + events.length + ")" : "no events"),
      events.map(function (ev) { return h("option", { value: String(ev.i) }, "frame " + ev.i + ": " + ev.text); }));
    var counter = h("span", { class: "counter", id: "frame-counter", "aria-live": "polite" });
    var speed = 1;
    var speedSelect = h("select", { id: "speed", "aria-label": "speed", title: "speed (- and +)",
      onchange: function () { setSpeed(Number(speedSelect.value)); } },
      SPEEDS.map(function (v) { return h("option", { value: String(v) }, v + "\u00d7"); }));
    speedSelect.value = "1";
    function kbd(text) { return h("kbd", null, text); }
    var keysHint = h("p", { class: "keys muted small", id: "keys" }, "Keys: ",
      kbd("Space"), " play/pause \u00b7 ", kbd("\u2190"), " ", kbd("\u2192"), " step \u00b7 ",
      kbd("Shift"), "+", kbd("\u2190"), " ", kbd("\u2192"), " event \u00b7 ", kbd("Home"), " ", kbd("End"),
      " first/last \u00b7 ", kbd("\u2212"), " ", kbd("+"), " speed");
    var slider = h("input", { type: "range", min: 0, max: last, value: 0, class: "slider", "aria-label": "frame",
      oninput: function () { go(Number(slider.value)); } });
    var seatSelect = h("select", { id: "view-as", "aria-label": "whose view",
      onchange: function () { viewer = seatSelect.value === "" ? null : Number(seatSelect.value); paint(); remember(); } },
      h("option", { value: "" }, "all hands"),
      names.map(function (nm, seat) { return h("option", { value: String(seat) }, "only " + who(seat) + "'s view"); }));

    // Board
    var banner = h("div", { class: "step" });
    var status = h("div", { class: "status" });
    var seatsBox = h("div", { class: "seats" });
    var log = h("ol", { class: "log", start: 0, onclick: function (e) {
      var li = e.target.closest("li[data-i]");
      if (li) go(Number(li.dataset.i));
    } });
    var notable = Object.create(null);
    events.forEach(function (ev) { notable[ev.i] = true; });
    var logItems = frames.map(function (f, i) {
      return h("li", { dataset: { i: String(i), kind: String(f.kind || "") }, class: "k-" + cardKindClass(f.kind) + (notable[i] ? " notable" : "") },
        h("span", { class: "i" }, String(i)), " ", f.text || f.kind || "");
    });
    append(log, logItems);
    var timeline = chartBox(totalChart);

    var head = h("div", { class: "heading" },
      h("p", { class: "crumbs" }, h("a", { href: href.games() }, "Games"), " \u203a ", String(game.id)),
      h("h1", null, "Game ", String(game.id)),
      h("p", { class: "players" }, names.map(function (nm, seat) {
        return h("span", { class: "seat-chip" }, h("span", { class: "place" }, String(seat)), botLink(nm));
      })),
      h("p", { class: "muted" }, configText(cfg)));

    var el = h("div", { class: "replay" }, head,
      h("div", { class: "controls panel" },
        h("div", { class: "buttons" }, bFirst, bPrev, bPlay, bNext, bLast, speedSelect),
        h("div", { class: "buttons events" }, counter, bPrevEvent, bNextEvent),
        slider,
        h("label", { class: "viewas" }, "Show ", seatSelect),
        keysHint),
      banner,
      h("div", { class: "board" },
        h("div", { class: "main-col" }, status, seatsBox),
        h("div", { class: "side-col panel" }, h("h2", null, "Moves"),
          events.length ? h("label", { class: "jump" }, eventSelect) : null,
          h("div", { class: "logbox" }, log))),
      section("Total over the game", timeline.el, "timeline"),
      resultSection());

    function configText(c) {
      var bits = [];
      if (c.edition) bits.push(c.edition + " edition");
      if (c.format) {
        var f = String(c.format);
        if (f === "tokens" && isNum(c.tokens)) f += " (" + c.tokens + " tokens)";
        if (f === "points") f += " (target " + c.target + ", " + c.ending + ")";
        bits.push(f);
      }
      bits.push(n + " players");
      if (c.ono_on_tens) bits.push("ONO on tens");
      if (isNum(c.play_cap)) bits.push("play cap " + count(c.play_cap));
      return bits.join(" \u00b7 ");
    }

    function resultSection() {
      var places = result.places || [];
      var causes = Object.create(null);
      var lastFrame = frames[last] || {};
      (lastFrame.eliminated || []).forEach(function (e) { causes[e.seat] = e.cause; });
      var order = names.map(function (nm, seat) { return seat; })
        .sort(function (a, b) { return (places[a] || 99) - (places[b] || 99) || a - b; });
      var headers = [">place", "seat", "bot"];
      if (result.points) headers.push(">points");
      if (result.tokens) headers.push(">tokens");
      headers.push("out by");
      var rows = order.map(function (seat) {
        var cause = causes[seat];
        var fm = faultMessages[seat];
        var cells = [td(isNum(places[seat]) ? ordinal(places[seat]) : "\u2013", "place", "num strong"),
          td("seat " + seat, "seat", "plain"), td(botLink(names[seat]), "bot", "name")];
        if (result.points) cells.push(td(count(result.points[seat]), "points"));
        if (result.tokens) cells.push(td(count(result.tokens[seat]), "tokens"));
        cells.push(h("td", { dataset: { col: "cause" } },
          cause ? h("span", { class: "badge" + (isFault(cause) ? " bad" : "") }, causeText(cause))
            : result.reason === "play_cap" ? h("span", { class: "badge warn" }, "still in at the cap")
            : places[seat] === 1 ? h("span", { class: "badge good" }, "winner") : "",
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

    function paintStatus(f) {
      var dir = f.direction === -1
        ? h("span", null, h("span", { class: "dir" }, "\u21ba"), " counter-clockwise")
        : h("span", null, h("span", { class: "dir" }, "\u21bb"), " clockwise");
      var toMove = isNum(f.to_move) ? who(f.to_move) : "\u2013";
      var tiles = [
        statusTile("total", "Total", h("span", { id: "total", class: "total" + (f.total >= 90 ? " hot" : "") }, String(f.total)), "total-tile"),
        statusTile("direction", "Direction", dir),
        statusTile("to-move", "To move", h("span", null, toMove,
          f.owes === 2 && isNum(f.to_move) ? h("span", { class: "badge owes" }, "owes 2") : null), f.owes === 2 ? "owes-tile" : null),
        statusTile("discard", "Discard", f.discard_top ? card(f.discard_top) : h("span", { class: "muted" }, "empty")),
        statusTile("draw", "Draw pile", h("span", { class: "nowrap" }, count(f.draw) + (f.draw === 1 ? " card" : " cards"))),
      ];
      var rounds = (cfg.format && cfg.format !== "single") || (isNum(f.round) && f.round > 1);
      if (rounds) tiles.push(statusTile("round", "Round", String(f.round)));
      status.className = "status" + (rounds ? " has-round" : "");
      fill(status, tiles);
    }

    function paintBanner(f) {
      var actor = isNum(f.seat) ? f.seat : null;
      fill(banner,
        h("span", { class: "kind k-" + cardKindClass(f.kind) }, String(f.kind || "step")),
        f.card ? card(f.card, "current") : null,
        h("span", { class: "text", id: "step-text" }, f.text || ""),
        isNum(f.ms) ? h("span", { class: "ms", title: "how long the decision took" }, (actor !== null ? "decided in " : "") + ms(f.ms)) : null);
      banner.className = "step panel k-" + cardKindClass(f.kind);
    }

    function paintSeats(f) {
      var out = Object.create(null);
      (f.eliminated || []).forEach(function (e) { out[e.seat] = e; });
      var final = at === last && result.places;
      var panels = names.map(function (nm, seat) {
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
        var fm = faultMessages[seat];
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
      fill(seatsBox, panels);
    }

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

    function paint() {
      var f = frames[at];
      if (!f) { fill(banner, notice("This game has no frames.")); return; }
      counter.textContent = "frame " + at + " / " + last;
      slider.value = String(at);
      bFirst.disabled = bPrev.disabled = at === 0;
      bNext.disabled = bLast.disabled = at === last;
      bPrevEvent.disabled = eventBefore(at) === null;
      bNextEvent.disabled = eventAfter(at) === null;
      eventSelect.value = notable[at] ? String(at) : "";
      paintBanner(f);
      paintStatus(f);
      paintSeats(f);
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
      timer = setInterval(function () { if (at >= last) stop(); else go(at + 1); }, FRAME_MS / speed);
    }

    function setSpeed(v) {
      if (SPEEDS.indexOf(v) < 0) return;
      speed = v;
      speedSelect.value = String(v);
      if (timer) run(); // playing: on at the new speed
    }

    // The total over the game, with the current frame marked; click to jump.
    var marker = null, xOf = null;
    function totalChart(width) {
      var height = 110, padL = 34, padR = 10, padT = 8, padB = 18;
      var totals = frames.map(function (f) { return f.total; });
      var lo = Math.min(0, Math.min.apply(null, totals.length ? totals : [0]));
      var hi = 99;
      var w = width - padL - padR, hgt = height - padT - padB;
      xOf = function (i) { return padL + (last ? (i / last) * w : 0); };
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
      marker = s("line", { class: "marker", x1: xOf(at), x2: xOf(at), y1: padT - 4, y2: padT + hgt + 4 });
      append(svg, marker);
      append(svg, s("text", { class: "tick", x: padL, y: height - 3 }, "frame 0"),
        s("text", { class: "tick", x: width - padR, y: height - 3, "text-anchor": "end" }, "frame " + last));
      svg.addEventListener("click", function (e) {
        var r = svg.getBoundingClientRect();
        var fx = (e.clientX - r.left - padL) / w;
        go(Math.round(Math.max(0, Math.min(1, fx)) * last));
      });
      return svg;
    }

    function paintMarker() {
      if (!marker || !xOf) return;
      marker.setAttribute("x1", xOf(at));
      marker.setAttribute("x2", xOf(at));
    }

    function params(p) {
      var fr = parseInt(p.frame, 10);
      var fault = !isFinite(fr) && typeof p.fault === "string" ? faultFrame(p.fault) : null;
      if (fault !== null) fr = fault;
      at = isFinite(fr) ? Math.max(0, Math.min(last, fr)) : 0;
      var seat = p.seat === undefined || p.seat === "" ? null : parseInt(p.seat, 10);
      viewer = seat !== null && seat >= 0 && seat < n ? seat : null;
      seatSelect.value = viewer === null ? "" : String(viewer);
      paint();
      if (fault !== null) remember(); // the link names the fault; the URL now names its frame
    }

    function keydown(e) {
      if (e.key === " ") { if (!e.repeat) toggle(); }
      else if (e.key === "-" || e.key === "_") setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]);
      else if (e.key === "+" || e.key === "=") setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]);
      else if (e.shiftKey && e.key === "ArrowRight") bNextEvent.click();
      else if (e.shiftKey && e.key === "ArrowLeft") bPrevEvent.click();
      else if (e.key === "ArrowRight") go(at + 1);
      else if (e.key === "ArrowLeft") go(at - 1);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(last);
      else return false;
      return true;
    }

    return {
      el: el,
      mounted: function () { params(initial); timeline.paint(); paintMarker(); paintLog(); },
      params: params,
      keydown: keydown,
      resize: function () { timeline.paint(); paintMarker(); },
      destroy: stop,
    };
  }

  var ICONS = {
    first: ["M3 2h2v12H3z", "M14 2v12L6 8z"],
    prev: ["M12 2v12L4 8z"],
    next: ["M4 2v12l8-6z"],
    last: ["M11 2h2v12h-2z", "M2 2v12l8-6z"],
    play: ["M4 2v12l9-6z"],
    pause: ["M3 2h3.5v12H3z", "M9.5 2H13v12H9.5z"],
  };
  function icon(name) {
    return s("svg", { class: "icon", width: 14, height: 14, viewBox: "0 0 16 16", "aria-hidden": "true", focusable: "false" },
      ICONS[name].map(function (d) { return s("path", { d: d }); }));
  }

  function cardKindClass(kind) {
    return ["start", "play", "bust", "quad", "fault", "round", "end"].indexOf(kind) >= 0 ? kind : "other";
  }

  // -- the shell ---------------------------------------------------------------------

  var app, liveBadge;

  function makeView(route) {
    if (!state.league) {
      return { el: h("div", { class: "stack" }, h("h1", null, "No data"),
        notice("data/league.js did not load. Open index.html in a folder written by \u201carena report\u201d, or use \u201carena serve\u201d.", "bad")) };
    }
    switch (route.page) {
      case "index": return indexView();
      case "h2h": return h2hView();
      case "bot": return botView(route.name);
      case "games": return gamesView(route);
      case "game": return gameView(route);
      default:
        return { el: h("div", { class: "stack" }, h("h1", null, "Not found"),
          notice("There is no page " + route.path + ".", "bad"), h("p", null, h("a", { href: href.index() }, "Back to the standings"))) };
    }
  }

  function safely(fn, fallback) {
    try { return fn(); } catch (err) {
      if (window.console) console.error(err);
      return fallback ? fallback(err) : undefined;
    }
  }

  function errorView(err) {
    return { el: h("div", { class: "stack" }, h("h1", null, "Something went wrong"),
      notice("This page could not be shown: " + (err && err.message ? err.message : String(err)), "bad")) };
  }

  function show(route, keepScroll) {
    if (view && view.destroy) safely(view.destroy);
    view = safely(function () { return makeView(route); }, errorView);
    view.routeKey = route.key;
    view.route = route;
    fill(app, view.el);
    document.title = (view.title ? view.title + " \u00b7 " : "") + ((state.league && state.league.title) || "arena report");
    markNav(route.page);
    if (view.mounted) safely(view.mounted);
    if (!keepScroll) window.scrollTo(0, 0);
  }

  function onHash() {
    var route = parseRoute();
    if (view && view.routeKey === route.key && view.params) {
      view.route = route;
      safely(function () { view.params(route); });
      return;
    }
    show(route, false);
  }

  function dataChanged(kind) {
    paintHeader();
    if (!view) return;
    if (view.data) { safely(function () { view.data(kind); }); return; }
    var page = view.route && view.route.page;
    if (kind === "league" && (page === "index" || page === "h2h" || page === "bot" || !state.league)) {
      show(view.route, true);
    }
  }

  function markNav(page) {
    var links = document.querySelectorAll(".nav a[data-page]");
    for (var i = 0; i < links.length; i++) {
      var on = links[i].getAttribute("data-page") === page || (page === "game" && links[i].getAttribute("data-page") === "games") ||
        (page === "bot" && links[i].getAttribute("data-page") === "index");
      if (on) links[i].setAttribute("aria-current", "page"); else links[i].removeAttribute("aria-current");
    }
  }

  function paintHeader() {
    var L = state.league;
    var brand = document.getElementById("brand");
    if (brand && L && L.title) brand.textContent = L.title;
    if (!liveBadge) return;
    if (L && L.live) {
      liveBadge.hidden = false;
      liveBadge.className = "live" + (state.liveFailures ? " stale" : "");
      liveBadge.textContent = state.liveFailures
        ? "live \u00b7 reconnecting\u2026"
        : "live" + (state.liveUpdated ? " \u00b7 updated " + state.liveUpdated.toLocaleTimeString() : "");
    } else if (L && !L.live && state.liveUpdated) {
      liveBadge.hidden = false;
      liveBadge.className = "live done";
      liveBadge.textContent = "finished";
    } else {
      liveBadge.hidden = true;
    }
  }

  function poll() {
    if (state.polling) return; // the last one is still loading
    state.polling = true;
    loadScript("data/league.js?t=" + Date.now()).then(function () {
      state.polling = false;
      state.liveFailures = 0;
      state.liveUpdated = new Date();
      paintHeader();
      if (view && view.poll) safely(view.poll);
      if (!state.league || !state.league.live) stopLive();
    }, function () {
      state.polling = false;
      state.liveFailures += 1;
      paintHeader();
    });
  }

  function startLive() {
    if (state.liveTimer || !state.league || !state.league.live) return;
    state.liveTimer = setInterval(poll, LIVE_MS);
  }

  function stopLive() {
    if (state.liveTimer) { clearInterval(state.liveTimer); state.liveTimer = null; }
  }

  // A key is the page's once: Space on a focused button plays or pauses, and the
  // browser's own click of that button on the key's release is cancelled. Keys typed
  // in a text box or a list are theirs; a slider keeps its arrows (it steps itself).
  var spaceTaken = false;
  function onKey(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var tag = t && t.tagName;
    var space = e.key === " ";
    if (tag === "SELECT" || tag === "TEXTAREA" || (t && t.isContentEditable)) return;
    if (tag === "INPUT" && !(space && t.type === "range")) return;
    if (view && view.keydown && view.keydown(e)) {
      e.preventDefault();
      if (space) spaceTaken = true;
    }
  }

  function onKeyUp(e) {
    if (e.key === " " && spaceTaken) { spaceTaken = false; e.preventDefault(); }
  }

  var resizeTimer = null;
  function onResize() {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { if (view && view.resize) safely(view.resize); }, 120);
  }

  function boot() {
    if (state.started) return;
    state.started = true;
    app = document.getElementById("app");
    // A site may name the page to open on (a one-game replay site does).
    var start = state.league && state.league.start;
    if (typeof start === "string" && /^#\/./.test(start) && (location.hash === "" || location.hash === "#" || location.hash === "#/")) {
      try { history.replaceState(null, "", start); } catch (e) { /* keep the index */ }
    }
    liveBadge = document.getElementById("live");
    paintHeader();
    window.addEventListener("hashchange", onHash);
    window.addEventListener("resize", onResize);
    document.addEventListener("keydown", onKey);
    document.addEventListener("keyup", onKeyUp);
    onHash();
    startLive();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else setTimeout(boot, 0);
})();
