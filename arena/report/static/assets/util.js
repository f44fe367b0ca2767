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
 *
 * The viewer is classic scripts (no modules: file:// refuses them), loaded in this
 * order by index.html, each adding its part to the one global, ARENA:
 *   util.js      constants, formatting of values, routes (no DOM)
 *   dom.js       building elements, and the pieces every page shares
 *   data.js      the data: ARENA.receive, its format, loading the data scripts
 *   model.js     a game's replay as a model: frames, events, faults (no DOM)
 *   standings.js the index page (settings, standings, Elo chart) and head-to-head
 *   bot.js       one bot's page
 *   games.js     the game list
 *   board.js     the replay's board: seats, status, result, the total's chart
 *   player.js    the replay page and its player (controls, frames, URL)
 *   keys.js      the keyboard
 *   app.js       the shell: routing, live updates, start-up
 */
(function () {
  "use strict";

  var A = (window.ARENA = window.ARENA || {});

  A.LIVE_MS = 3000;
  A.FRAME_MS = 650; // a frame's time on screen when playing at 1x
  A.SPEEDS = [0.25, 0.5, 1, 2, 4];
  A.PAGE_ROWS = 200;
  A.MAX_DOTS = 10; // tokens drawn one dot each; more are one dot and a count
  A.CACHED_GAMES = 40; // more than one data file holds (a static report packs 16 games a file)
  var FAULT_CAUSES = (A.FAULT_CAUSES = ["timeout", "crash", "malformed", "illegal", "forfeit"]);
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
  A.CARD_NAMES = {
    "99": "ONO 99", R: "Reverse", "-10": "minus ten", P2: "Play 2", H: "Hold", DP: "Double Play",
  };
  A.CARD_LABELS = { R: "Rev", "-10": "\u221210", H: "Hold" };

  // -- formatting --------------------------------------------------------------------

  function isNum(v) { return typeof v === "number" && isFinite(v); }
  // A value of the data by a bot's name: its own, never one every object inherits (a bot
  // may be named "constructor" or "toString").
  function own(obj, key) {
    return obj && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
  }
  function count(v) { return isNum(v) ? v.toLocaleString("en-US") : "\u2013"; }
  // `v` with `digits` decimals, rounded as Python's format() (and so `arena standings`)
  // rounds: to the nearest, an exact half to the even digit. toFixed and Math.round
  // take a half up, and an average of 62.25 points read 62.3 here and 62.2 in the
  // terminal; shares of few games (5/8, 62.5%) are halves often.
  function decimals(v, digits) {
    var text = v.toFixed(digits);
    if (Math.abs(v) >= 1e21) return text;
    var exact = Math.abs(v).toFixed(Math.min(100, digits + 60)); // every digit v holds
    var point = exact.indexOf(".");
    if (!/^50*$/.test(exact.slice(point + 1 + digits))) return text; // no exact half
    var down = exact.slice(0, point + (digits ? 1 + digits : 0));
    if (Number(down.charAt(down.length - 1)) % 2) return text; // odd: the half goes up
    return (v < 0 && /[1-9]/.test(down) ? "-" : "") + down;
  }
  function fixed(v, digits) { return isNum(v) ? decimals(v, digits) : "\u2013"; }
  function whole(v) { return isNum(v) ? decimals(v, 0) : "\u2013"; }
  function percent(share, digits) {
    return isNum(share) ? decimals(100 * share, digits === undefined ? 1 : digits) + "%" : "\u2013";
  }
  function los(share) {
    if (!isNum(share)) return "\u2013";
    if (share > 0.995) return ">99%";
    if (share < 0.005) return "<1%";
    return decimals(100 * share, 0) + "%";
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

  Object.assign(A, {
    isNum: isNum, own: own, count: count, decimals: decimals, fixed: fixed, whole: whole, percent: percent, los: los,
    ms: ms, ordinal: ordinal, when: when, causeText: causeText, reasonText: reasonText,
    isFault: isFault, label: label, enc: enc, href: href, parseRoute: parseRoute,
  });
})();
