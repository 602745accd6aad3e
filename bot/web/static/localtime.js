// Progressive enhancement only: every page works without this file.
// Shows each time in the visitor's local time (UTC when pointed at), keeps countdowns current,
// shows the local equivalent of a UTC date-time picker, and turns on the TD desk's "Copy"
// buttons. A live page's swapped parts (live.js) get the same treatment.
(function () {
  "use strict";
  var localFormat;
  try {
    localFormat = new Intl.DateTimeFormat(undefined, {
      weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short"
    });
  } catch (e) { return; }

  // A countdown in the page's words: the footer's #countdown-words carries them (through the
  // catalogue), each unit as it is written for 1 and for 2, the number swapped in.
  var said = document.getElementById("countdown-words");
  function unit(n, one, many) {
    return said.getAttribute(n === 1 ? one : many).replace(/\d+/, String(n));
  }

  function words(ms) {
    var past = ms < 0, m = Math.floor(Math.abs(ms) / 60000);
    var d = Math.floor(m / 1440), h = Math.floor((m % 1440) / 60), mm = m % 60;
    var parts = [];
    if (d) parts.push(unit(d, "data-day", "data-days"));
    if (h) parts.push(unit(h, "data-hour", "data-hours"));
    if (mm && parts.length < 2) parts.push(unit(mm, "data-minute", "data-minutes"));
    if (!parts.length) return said.getAttribute("data-now");
    var text = parts.slice(0, 2).join(" ");
    return said.getAttribute(past ? "data-ago" : "data-in").replace("{d}", text);
  }

  function addLocalTimes() {
    var times = document.querySelectorAll("time.utc[datetime]");
    for (var i = 0; i < times.length; i++) {
      var t = times[i];
      if (t.getAttribute("data-local-done")) continue;
      var when = new Date(t.getAttribute("datetime"));
      if (isNaN(when)) continue;
      t.title = t.textContent;  // the UTC time, once: on hover (and a long press)
      t.textContent = localFormat.format(when);
      t.setAttribute("data-local-done", "1");
      t.classList.add("local");
    }
    var note = document.querySelector(".localnote"), utc = document.querySelector(".utcnote");
    if (note) note.hidden = false;
    if (utc) utc.hidden = true;
  }

  // Countdowns run on the server's clock (a demo may run on a simulated one): the page says
  // what time the server had when it rendered, and the browser keeps the difference.
  var skew = 0;
  var serverNow = document.querySelector("footer time[datetime]");
  if (serverNow) {
    var rendered = new Date(serverNow.getAttribute("datetime"));
    if (!isNaN(rendered)) skew = rendered.getTime() - Date.now();
  }

  function tick() {
    if (!said) return;  // a page without the words keeps the server's
    var rels = document.querySelectorAll(".rel[data-until]");
    var now = Date.now() + skew;
    for (var i = 0; i < rels.length; i++) {
      var when = new Date(rels[i].getAttribute("data-until"));
      if (!isNaN(when)) rels[i].textContent = "(" + words(when - now) + ")";
    }
  }

  function pickers() {
    var inputs = document.querySelectorAll("input[data-utc-input]");
    for (var i = 0; i < inputs.length; i++) {
      (function (input) {
        var out = document.getElementById(input.id + "-local");
        function show() {
          if (!out) return;
          if (!input.value) { out.textContent = ""; return; }
          var when = new Date(input.value + ":00Z");
          var label = out.getAttribute("data-label") || "Your time:";  // in the page's words
          out.textContent = isNaN(when) ? "" : label + " " + localFormat.format(when);
        }
        input.addEventListener("input", show);
        show();
      })(inputs[i]);
    }
  }

  function copyButtons() {
    var buttons = document.querySelectorAll("button.copy[data-copy]");
    for (var i = 0; i < buttons.length; i++) {
      (function (button) {
        var area = document.getElementById(button.getAttribute("data-copy"));
        if (!area || !navigator.clipboard) return;
        button.hidden = false;
        button.addEventListener("click", function () {
          navigator.clipboard.writeText(area.value).then(function () {
            button.textContent = "Copied";
          }, function () {
            area.select();
          });
        });
      })(buttons[i]);
    }
  }

  // A tap (no hover on a phone) shows the UTC time in place; another tap, the local one.
  document.addEventListener("click", function (e) {
    var t = e.target && e.target.closest ? e.target.closest("time.local[title]") : null;
    if (!t || t.closest("a, button")) return;
    var shown = t.textContent;
    t.textContent = t.title;
    t.title = shown;
  });

  function start() {
    addLocalTimes();
    tick();
    pickers();
    copyButtons();
    setInterval(tick, 30000);
    document.addEventListener("acwc:live", function () { addLocalTimes(); tick(); pickers(); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
