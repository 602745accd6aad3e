// Progressive enhancement only: every page works without this file (a reload shows the same).
// A live page (its body has data-live) listens to the server's change events and, on each one,
// fetches itself again and swaps in the parts marked data-live (by id). A part holding the
// focus or a form being filled in is left alone until the next change. Without EventSource,
// or when the server refuses the stream, the page polls itself instead.
(function () {
  "use strict";
  var source = document.body.getAttribute("data-live");
  if (!source || !window.fetch || !window.DOMParser) return;
  var POLL_MS = 20000, busy = false, again = false, polling = null;

  function edited(part) {
    var fields = part.querySelectorAll("input, textarea, select");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === "hidden" || f.type === "submit") continue;
      if (f.type === "radio" || f.type === "checkbox") { if (f.checked !== f.defaultChecked) return true; }
      else if (f.value !== f.defaultValue) return true;
    }
    return part.contains(document.activeElement) && document.activeElement !== document.body &&
      /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var parts = document.querySelectorAll("[data-live][id]"), swapped = 0;
    for (var i = 0; i < parts.length; i++) {
      var old = parts[i], next = fresh.getElementById(old.id);
      if (!next) { old.hidden = true; continue; }
      if (!edited(old)) {
        old.replaceWith(document.importNode(next, true));
        swapped++;
        continue;
      }
      // A form in it is being filled in: only its parts that hold no such form.
      var inner = old.querySelectorAll("[data-live-part][id]");
      for (var j = 0; j < inner.length; j++) {
        var part = fresh.getElementById(inner[j].id);
        if (part && !edited(inner[j])) { inner[j].replaceWith(document.importNode(part, true)); swapped++; }
      }
    }
    var stamp = fresh.querySelector("footer time[datetime]"), here = document.querySelector("footer time[datetime]");
    if (stamp && here) here.replaceWith(document.importNode(stamp, true));
    document.dispatchEvent(new CustomEvent("acwc:live", { detail: { swapped: swapped } }));
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname + location.search, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html) swap(html); })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  function poll() { if (!polling) polling = setInterval(refresh, POLL_MS); }

  if (!window.EventSource) { poll(); return; }
  var events = new EventSource(source), opened = false;
  events.addEventListener("open", function () { opened = true; });
  events.addEventListener("change", refresh);
  events.addEventListener("error", function () {
    // Closed for good (refused, or never opened): poll; a dropped stream reconnects by itself.
    if (events.readyState === EventSource.CLOSED || !opened) { events.close(); poll(); }
  });
})();
