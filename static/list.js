// Keeps the launch list current: the server pushes a note over a websocket
// (/api/v1/live) whenever any launch changes, and the table is then read
// again with the page's own filters and paging (via htmx), at most once a
// second however busy ingest is.
(function () {
  "use strict";
  if (!document.querySelector("[data-live-list]") || !window.WebSocket || !window.htmx) return;
  // again: a change arrived while a refresh was under way, which may have
  // read the table before it; one more refresh follows.
  var pending = false, again = false, delay = 1000;

  function done() {
    pending = false;
    if (again) refresh();
  }

  function refresh() {
    if (pending) { again = true; return; }
    pending = true;
    setTimeout(function () {
      again = false;
      htmx.ajax("GET", location.pathname + location.search,
        { target: "#launch-list", select: "#launch-list", swap: "outerHTML" }).then(done, done);
    }, 1000);
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(proto + location.host + "/api/v1/live");
    ws.onopen = function () { delay = 1000; };
    ws.onmessage = function (m) {
      try { if (JSON.parse(m.data).type === "hello") return; } catch (e) { /* refresh anyway */ }
      // Counted on the page, so a test (or a person debugging) can see a
      // note arrive instead of guessing how long it takes.
      document.body.dataset.liveNotes = String((+document.body.dataset.liveNotes || 0) + 1);
      refresh();
    };
    ws.onclose = function () {
      setTimeout(function () { refresh(); connect(); }, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
