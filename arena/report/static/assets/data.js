/* arena report: the data. The data scripts call ARENA.receive(kind, payload) with the
 * league ("league"), the game list ("games") or a game's replay ("game"); this file
 * keeps them, checks their format, and loads the scripts that hold them. */
(function (A) {
  "use strict";

  var own = A.own;

  // The shape of the data this viewer reads: arena's REPORT_FORMAT (arena/__init__.py),
  // which the league and each game carry as "format". Data without one was written
  // before the data carried it, in the shape of format 1.
  var FORMAT = (A.FORMAT = 1);

  function formatOf(payload) {
    var f = payload && typeof payload === "object" ? own(payload, "format") : undefined;
    return f === undefined ? 1 : f;
  }

  // Why the viewer cannot show `payload` (`what`: "the report's data", "game X"), or
  // null: data of another format is of another arena, whose pages read it.
  function formatProblem(payload, what) {
    var f = formatOf(payload);
    if (f === FORMAT) return null;
    var arena = payload && typeof own(payload, "arena") === "string" ? " (arena " + payload.arena + ")" : "";
    return what + " is format " + JSON.stringify(f) + "; this viewer reads format " + FORMAT +
      ": the data and the viewer come from different versions of arena. Write the report again" +
      " with one arena (arena report), or open it with the arena that wrote the data" + arena + ".";
  }

  // -- state -------------------------------------------------------------------------

  var state = (A.state = {
    league: null,
    leagueText: "",
    formatError: null, // why the league's data cannot be shown (another format), or null
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
  });

  A.receive = function (kind, payload) {
    if (kind === "league") {
      // Only a change of the data counts, not a new time of writing.
      var text = JSON.stringify(Object.assign({}, payload, { generated: null }));
      var changed = text !== state.leagueText;
      state.formatError = formatProblem(payload, "The report's data");
      state.league = state.formatError ? null : payload;
      state.leagueText = text;
      if (state.started && changed) A.dataChanged("league");
    } else if (kind === "games") {
      var gtext = JSON.stringify(payload);
      var gchanged = gtext !== state.gamesText;
      state.games = Array.isArray(payload) ? payload : [];
      state.gamesText = gtext;
      if (state.started && gchanged) A.dataChanged("games");
    } else if (kind === "game") {
      if (payload && typeof payload.id === "string") {
        state.replays[payload.id] = payload;
        state.replayOrder = state.replayOrder.filter(function (id) { return id !== payload.id; });
        state.replayOrder.push(payload.id);
        while (state.replayOrder.length > A.CACHED_GAMES) delete state.replays[state.replayOrder.shift()];
      }
    }
  };

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

  // A game's replay; an error of another format says so (err.format).
  function loadReplay(id) {
    function checked(game) {
      var problem = formatProblem(game, "The replay of game " + id);
      if (!problem) return game;
      var err = new Error(problem);
      err.format = true;
      throw err;
    }
    if (state.replays[id]) return Promise.resolve(state.replays[id]).then(checked);
    return fileOf(id).then(function (file) {
      var path = "data/games/" + A.enc(file) + ".js";
      return once("file:" + file, path).then(function () {
        if (!state.replays[id]) throw new Error(path + " does not hold game " + id);
        return checked(state.replays[id]);
      });
    });
  }

  // -- the league's bots -------------------------------------------------------------

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

  Object.assign(A, {
    formatProblem: formatProblem, loadScript: loadScript, loadGames: loadGames,
    loadReplay: loadReplay, standingsRow: standingsRow, botOrder: botOrder,
  });
})(window.ARENA);
