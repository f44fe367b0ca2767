/* arena report: the game list, with its filters (bot, outcome, result, text) and sorts. */
(function (A) {
  "use strict";

  var h = A.h, fill = A.fill, section = A.section, scroll = A.scroll, table = A.table, td = A.td;
  var notice = A.notice, href = A.href, state = A.state, isNum = A.isNum, count = A.count;
  var ordinal = A.ordinal, reasonText = A.reasonText, loadGames = A.loadGames, botOrder = A.botOrder;
  var PAGE_ROWS = A.PAGE_ROWS;

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
    // A forfeit was never played: nobody won or lost it (it is listed under faults).
    if ((result === "won" || result === "lost") && g.forfeit) return false;
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
        h("td", { class: "replay" }, g.forfeit === true ? h("span", { class: "muted small", title: "a forfeit was never played" }, "no replay")
          : h("a", { href: link, class: "button small" }, "Replay \u25b8")));
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

  A.gamesView = gamesView;
})(window.ARENA);
