/* arena report: one bot's page (its numbers, places by seat, opponents, faults). */
(function (A) {
  "use strict";

  var h = A.h, section = A.section, scroll = A.scroll, table = A.table, td = A.td;
  var notice = A.notice, botLink = A.botLink, href = A.href, state = A.state, own = A.own;
  var isNum = A.isNum, count = A.count, fixed = A.fixed, whole = A.whole, percent = A.percent;
  var ms = A.ms, ordinal = A.ordinal, causeText = A.causeText;
  var standingsRow = A.standingsRow, botOrder = A.botOrder;

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
      // A site of one replay (arena report --replay) has no league: its bots have games
      // but no page, and "no bot of this name" said the game's own bot was not in it.
      var oneReplay = typeof L.start === "string" && !L.standings; // (a one-replay site opens on its game)
      return { el: h("div", { class: "stack" }, crumbs, h("h1", { class: "name" }, name),
        oneReplay ? notice("This report is one game's replay (arena report --replay), with no league: no bot has a" +
            " page of numbers here.", "warn") : notice("No bot of this name in the league.", "bad"),
        oneReplay ? h("p", null, h("a", { href: href.games(name) }, "The games of " + name + " \u2192")) : null), title: name };
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

  A.botView = botView;
})(window.ARENA);
