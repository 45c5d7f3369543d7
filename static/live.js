// Follows a launch page: the server pushes a note over a websocket whenever
// the launch changes (/api/v1/launches/{key}/live), and the page then asks
// for the new lines, rendered on the server by the same component as the
// page, and the new header and timeline (/launches/{key}/tail, via htmx).
// The log section may be swapped by htmx (paging, search): the script runs
// once per page and always looks for the log that follows ([data-live]);
// the follow toggle (#log-follow) stops and resumes appending new lines.
(function () {
  "use strict";
  if (window.launchwatchLive) return; // loaded again by a swapped log section
  var first = document.querySelector("[data-live]");
  if (!first || !window.WebSocket || !window.htmx) return;
  window.launchwatchLive = true;
  var key = first.dataset.live;
  var alarms = document.getElementById("alarm-total");
  var alarmsAtLoad = alarms ? alarms.dataset.count : "0";
  var busy = false, again = false, delay = 1000, initial = true, paused = false;

  function log() { return document.querySelector("[data-live]"); }

  function after() {
    var l = log(), rows = l.querySelectorAll("[data-seq]");
    return rows.length ? rows[rows.length - 1].dataset.seq : l.dataset.after;
  }

  // showToggle makes the follow button say what it does now.
  function showToggle() {
    var b = document.getElementById("log-follow");
    if (!b) return;
    b.setAttribute("aria-pressed", paused ? "false" : "true");
    b.textContent = paused ? "follow live" : "following live";
  }

  function fetchTail() {
    var l = log();
    if (!l) return; // the window shown is not the live end of the log
    if (paused) {
      // Counted so a reader (or a test) can tell a change was seen and left out.
      l.dataset.skipped = String(Number(l.dataset.skipped || "0") + 1);
      return;
    }
    if (busy) { again = true; return; }
    busy = true;
    var before = l.querySelectorAll("[data-seq]").length;
    htmx.ajax("GET", "/launches/" + encodeURIComponent(key) + "/tail?after=" + after(),
      { target: "#log-lines", swap: "beforeend" }).then(function () {
      busy = false;
      var a = document.getElementById("alarm-total");
      if (a && a.dataset.count !== alarmsAtLoad) {
        document.getElementById("alarm-news").hidden = false;
      }
      // A full window came back: there may be more.
      var cur = log();
      if (again || (cur && cur.querySelectorAll("[data-seq]").length - before >= 500)) { again = false; fetchTail(); }
    }, function () { busy = false; });
  }

  document.addEventListener("click", function (e) {
    if (!e.target.closest || !e.target.closest("#log-follow")) return;
    paused = !paused;
    showToggle();
    if (!paused) fetchTail(); // catch up with what arrived meanwhile
  });
  document.body.addEventListener("htmx:afterSwap", showToggle);

  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    // after=max: only the launch's state, not its lines; the page reads
    // new lines rendered by the server through /tail instead.
    var ws = new WebSocket(proto + location.host + "/api/v1/launches/" + encodeURIComponent(key) + "/live?after=9223372036854775807");
    ws.onopen = function () { delay = 1000; };
    ws.onmessage = function (m) {
      // The state sent on the first connection is usually what the page
      // shows already, but lines or a new status may have arrived between
      // the page's rendering and the connection; later messages, and
      // everything after a reconnect, are news.
      if (initial) {
        initial = false;
        try {
          var d = JSON.parse(m.data), st = document.getElementById("launch-status");
          if (d.type === "launch" && d.launch && log() && d.launch.last_seq <= Number(after()) &&
            st && st.textContent.trim() === d.launch.status) return;
        } catch (e) { /* fetch anyway */ }
      }
      fetchTail();
    };
    ws.onclose = function () {
      initial = false;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
