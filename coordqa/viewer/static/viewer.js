// coordqa view: filter the sample table in the page, and step with the arrow keys (sorting is
// the leaderboard's sort.js, served here too). Served as a file (the pages allow no inline
// script). Without JavaScript the filter form and links still work on the live server; the
// exported copy needs this script to filter.
(function () {
  "use strict";

  // The sample table: rows carry data-game, data-type, data-outcome and data-search (lower-case
  // text), the same fields the server's SampleFilter matches.
  function setUpFilter(form) {
    const table = document.getElementById("samples");
    if (!table) return;
    const rows = Array.from(table.querySelectorAll("tbody.rows tr"));
    const shown = document.getElementById("shown");
    const fields = { game: "game", type: "type", outcome: "outcome" };
    function apply() {
      const data = new FormData(form);
      const text = String(data.get("q") || "").trim().toLowerCase();
      let count = 0;
      rows.forEach(function (row) {
        let match = row.dataset.search.includes(text);
        Object.keys(fields).forEach(function (name) {
          const wanted = String(data.get(name) || "");
          if (wanted && row.dataset[fields[name]] !== wanted) match = false;
        });
        row.hidden = !match;
        if (match) count += 1;
      });
      if (shown) shown.textContent = count + " of " + shown.dataset.total + " samples";
      const query = new URLSearchParams();
      data.forEach(function (value, key) { if (value) query.set(key, value); });
      const search = query.toString();
      history.replaceState(null, "", location.pathname + (search ? "?" + search : ""));
    }
    // The exported copy gets its filters from the query string (links from the summary page).
    new URLSearchParams(location.search).forEach(function (value, key) {
      const input = form.elements.namedItem(key);
      if (input) input.value = value;
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    form.addEventListener("change", apply);
    form.addEventListener("input", apply);
    apply();
  }

  // Left and right arrows follow the page's previous / next links.
  function setUpPaging() {
    document.addEventListener("keydown", function (event) {
      if (event.target.closest("input, select, textarea")) return;
      const rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
      const link = rel && document.querySelector('nav.pager a[rel="' + rel + '"]');
      if (link) link.click();
    });
  }

  const form = document.getElementById("sample-filter");
  if (form) setUpFilter(form);
  setUpPaging();
})();
