/* arena report: the shell, loaded last (see util.js for the parts): the page on screen
 * for the route in the URL, the header, live updates of a running league, start-up. */
(function (A) {
  "use strict";

  var h = A.h, fill = A.fill, notice = A.notice, href = A.href, state = A.state;
  var parseRoute = A.parseRoute, loadScript = A.loadScript;
  var indexView = A.indexView, h2hView = A.h2hView, botView = A.botView;
  var gamesView = A.gamesView, gameView = A.gameView;

  var view = null; // the page on screen: {key, el, mounted(), params(route), data(kind), destroy()}
  A.currentView = function () { return view; };

  var app, liveBadge;

  function makeView(route) {
    if (state.formatError) {
      return { el: h("div", { class: "stack" }, h("h1", null, "Another version of arena"),
        notice(state.formatError, "bad format")) };
    }
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

  A.dataChanged = function (kind) {
    paintHeader();
    if (!view) return;
    if (view.data) { safely(function () { view.data(kind); }); return; }
    var page = view.route && view.route.page;
    if (kind === "league" && (page === "index" || page === "h2h" || page === "bot" || !state.league)) {
      show(view.route, true);
    }
  };

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
    state.liveTimer = setInterval(poll, A.LIVE_MS);
  }

  function stopLive() {
    if (state.liveTimer) { clearInterval(state.liveTimer); state.liveTimer = null; }
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
    A.keys.listen();
    onHash();
    startLive();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else setTimeout(boot, 0);
})(window.ARENA);
