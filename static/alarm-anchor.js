// A link to an alarm's card (#alarm-N: the review queue, problems, rules,
// incidents, a card's "consequence of alarm N") that this page does not
// show goes to the page of the launch's alarm cards that holds it: the
// launch page shows its first cards only, and a page of alarms a hundred.
(function () {
  "use strict";
  function go() {
    var m = /^#alarm-(\d+)$/.exec(location.hash);
    if (!m || document.getElementById("alarm-" + m[1])) return;
    var cards = document.getElementById("alarm-cards");
    if (!cards || !cards.dataset.alarms) return;
    if (new URLSearchParams(location.search).get("no") === m[1]) return; // it is not among them: no loop
    var u = cards.dataset.alarms;
    location.replace(u + (u.indexOf("?") < 0 ? "?" : "&") + "no=" + m[1] + "#alarm-" + m[1]);
  }
  go();
  window.addEventListener("hashchange", go);
})();
