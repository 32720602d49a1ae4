// The cutover console's only script: while the runs page is open (and visible), fetch the runs
// table every 5 seconds and swap it in. A signed-out answer (redirected to the login) reloads.
(function () {
  "use strict";
  var box = document.getElementById("runs");
  if (!box || !box.dataset.refresh) { return; }
  var url = box.dataset.refresh;
  function refresh() {
    if (document.hidden) { return; }
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (r) {
      if (r.redirected || r.status === 401 || r.status === 403) { window.location.reload(); return null; }
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html !== null && html !== undefined) { box.innerHTML = html; box.dataset.refreshed = String(Date.now()); }
    }).catch(function () { /* the next tick tries again */ });
  }
  window.setInterval(refresh, 5000);
})();
