// Follows a launch page: the server pushes a note over a websocket whenever
// the launch changes (/api/v1/launches/{key}/live), and the page then asks
// for the new lines, rendered on the server by the same component as the
// page, and the new header and timeline (/launches/{key}/tail, via htmx).
(function () {
  "use strict";
  var log = document.querySelector("[data-live]");
  if (!log || !window.WebSocket || !window.htmx) return;
  var key = log.dataset.live;
  var alarms = document.getElementById("alarm-total");
  var alarmsAtLoad = alarms ? alarms.dataset.count : "0";
  var busy = false, again = false, delay = 1000, initial = true;

  function after() {
    var rows = log.querySelectorAll("[data-seq]");
    return rows.length ? rows[rows.length - 1].dataset.seq : log.dataset.after;
  }

  function fetchTail() {
    if (busy) { again = true; return; }
    busy = true;
    var before = log.querySelectorAll("[data-seq]").length;
    htmx.ajax("GET", "/launches/" + encodeURIComponent(key) + "/tail?after=" + after(),
      { target: "#log-lines", swap: "beforeend" }).then(function () {
      busy = false;
      var a = document.getElementById("alarm-total");
      if (a && a.dataset.count !== alarmsAtLoad) {
        document.getElementById("alarm-news").hidden = false;
      }
      // A full window came back: there may be more.
      if (again || log.querySelectorAll("[data-seq]").length - before >= 500) { again = false; fetchTail(); }
    }, function () { busy = false; });
  }

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
          if (d.type === "launch" && d.launch && d.launch.last_seq <= Number(after()) &&
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
