/* arena report: building the DOM, with elements and text nodes only (never from HTML
 * text: see util.js), and the pieces every page shares: cards, links, tables, charts. */
(function (A) {
  "use strict";

  var href = A.href;

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

  // -- shared pieces -----------------------------------------------------------------

  function cardType(code) {
    if (/^(10|[0-9])$/.test(code)) return "num";
    return { "99": "ono", R: "rev", "-10": "minus", P2: "two", DP: "two", H: "hold" }[code] || "other";
  }

  function card(code, extra) {
    var c = String(code);
    var name = A.CARD_NAMES[c] || (cardType(c) === "num" ? "number " + c : c);
    return h("span", { class: "card card-" + cardType(c) + (extra ? " " + extra : ""), title: name,
      dataset: { card: c } }, A.CARD_LABELS[c] || c);
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

  // -- charts ------------------------------------------------------------------------

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

  // A box whose chart `draw(width)` draws again whenever its width changes.
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

  Object.assign(A, {
    append: append, fill: fill, h: h, s: s, card: card, cardBack: cardBack, botLink: botLink,
    section: section, scroll: scroll, table: table, td: td, notice: notice, icon: icon,
    cardKindClass: cardKindClass, niceStep: niceStep, shorten: shorten, textWidth: textWidth,
    fitText: fitText, chartFont: chartFont, chartBox: chartBox,
  });
})(window.ARENA);
