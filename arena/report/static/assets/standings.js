/* arena report: the index page (the league's settings, progress, standings and Elo
 * chart) and the head-to-head page. */
(function (A) {
  "use strict";

  var h = A.h, s = A.s, append = A.append, section = A.section, scroll = A.scroll, table = A.table;
  var td = A.td, notice = A.notice, botLink = A.botLink, href = A.href, state = A.state;
  var isNum = A.isNum, count = A.count, fixed = A.fixed, whole = A.whole, percent = A.percent;
  var los = A.los, when = A.when, label = A.label, causeText = A.causeText;
  var niceStep = A.niceStep, shorten = A.shorten, textWidth = A.textWidth, fitText = A.fitText;
  var chartFont = A.chartFont, chartBox = A.chartBox, FAULT_CAUSES = A.FAULT_CAUSES;

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
    // As many ticks as their labels fit side by side: on a phone six labels of four
    // digits in a plot of 120 px ran into one another ("10001200140016001800").
    var tickFont = chartFont(11, 400);
    var tickW = 10 + Math.max(textWidth(String(Math.round(lo)), tickFont), textWidth(String(Math.round(hi)), tickFont));
    var span = hi - lo;
    var step = niceStep(span, narrow ? 3 : 6);
    var low = lo, high = hi;
    for (;;) {
      lo = Math.floor(low / step) * step;
      hi = Math.ceil(high / step) * step;
      if (((hi - lo) / step) * tickW <= plotW) break;
      step = niceStep(step * 1.5, 1); // the next nice step up: 1, 2, 5, 10
    }
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
          }, percent(share, 0));
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

  A.indexView = indexView;
  A.h2hView = h2hView;
})(window.ARENA);
