/* arena report: the keyboard. The page on screen takes the keys it knows (its
 * keydown(e) says whether it took one); the replay player's are these:
 * Space play/pause, Left/Right a frame, Shift+Left/Right an event, Home/End the first
 * and last frames, - and + the speed. */
(function (A) {
  "use strict";

  var h = A.h;

  // The player's keys, told on its page.
  function hint() {
    function kbd(text) { return h("kbd", null, text); }
    return h("p", { class: "keys muted small", id: "keys" }, "Keys: ",
      kbd("Space"), " play/pause \u00b7 ", kbd("\u2190"), " ", kbd("\u2192"), " step \u00b7 ",
      kbd("Shift"), "+", kbd("\u2190"), " ", kbd("\u2192"), " event \u00b7 ", kbd("Home"), " ", kbd("End"),
      " first/last \u00b7 ", kbd("\u2212"), " ", kbd("+"), " speed");
  }

  // The key of `e` as one of the player's `actions`; whether it was one.
  function player(e, actions) {
    if (e.key === " ") { if (!e.repeat) actions.toggle(); }
    else if (e.key === "-" || e.key === "_") actions.slower();
    else if (e.key === "+" || e.key === "=") actions.faster();
    else if (e.shiftKey && e.key === "ArrowRight") actions.nextEvent();
    else if (e.shiftKey && e.key === "ArrowLeft") actions.prevEvent();
    else if (e.key === "ArrowRight") actions.next();
    else if (e.key === "ArrowLeft") actions.prev();
    else if (e.key === "Home") actions.first();
    else if (e.key === "End") actions.last();
    else return false;
    return true;
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
    var view = A.currentView();
    if (view && view.keydown && view.keydown(e)) {
      e.preventDefault();
      if (space) spaceTaken = true;
    }
  }

  function onKeyUp(e) {
    if (e.key === " " && spaceTaken) { spaceTaken = false; e.preventDefault(); }
  }

  function listen() {
    document.addEventListener("keydown", onKey);
    document.addEventListener("keyup", onKeyUp);
  }

  A.keys = { hint: hint, player: player, listen: listen };
})(window.ARENA);
