// Zooms the launch timeline by a drag across it: the range dragged becomes
// ?from=&to= (seconds from the launch's first line) on the page's URL, which
// the server reads to draw the timeline and filter the log to that range.
// Listeners sit on the document, so a timeline swapped in by a live update
// zooms too.
(function () {
  "use strict";
  var drag = null; // {svg, band, start}

  // unit is the event's x in svg's user units, kept inside the plot.
  function unit(svg, ev) {
    var box = svg.getBoundingClientRect(), d = svg.dataset;
    var u = (ev.clientX - box.left) / box.width * Number(d.width);
    return Math.max(Number(d.left), Math.min(Number(d.right), u));
  }

  function seconds(svg, u) {
    var d = svg.dataset, from = Number(d.from), to = Number(d.to);
    return from + (u - Number(d.left)) / (Number(d.right) - Number(d.left)) * (to - from);
  }

  function draw(a, b) {
    drag.band.setAttribute("x", String(Math.min(a, b)));
    drag.band.setAttribute("width", String(Math.abs(b - a)));
  }

  document.addEventListener("mousedown", function (ev) {
    var svg = ev.target.closest && ev.target.closest("svg.timeline[data-zoom-base]");
    if (!svg || ev.button !== 0 || ev.target.closest("a")) return;
    drag = { svg: svg, band: svg.querySelector(".zoom-band"), start: unit(svg, ev) };
    draw(drag.start, drag.start);
    drag.band.classList.add("on");
    ev.preventDefault();
  });
  document.addEventListener("mousemove", function (ev) {
    if (drag) draw(drag.start, unit(drag.svg, ev));
  });
  document.addEventListener("mouseup", function (ev) {
    if (!drag) return;
    var d = drag, end = unit(d.svg, ev), a = Math.min(d.start, end), b = Math.max(d.start, end);
    drag = null;
    d.band.classList.remove("on");
    if (b - a < 3) return; // a click, not a drag
    var q = new URLSearchParams();
    q.set("from", seconds(d.svg, a).toFixed(3));
    q.set("to", seconds(d.svg, b).toFixed(3));
    location.assign(d.svg.dataset.zoomBase + "?" + q.toString() + "#timeline");
  });
})();
