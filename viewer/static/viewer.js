// coordqa view: filter and sort tables in the page, and step with the arrow keys. Served as a
// file (the pages allow no inline script). Without JavaScript the filter form and links still
// work on the live server; the exported copy needs this script to filter.
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

  // Click a column header with data-sort to sort the rows by its cells (data-value when
  // present, numbers numerically, empty cells last).
  function setUpSorting(table) {
    const body = table.querySelector("tbody.rows");
    const headers = Array.from(table.querySelectorAll("th[data-sort]"));
    function value(row, index) {
      const cell = row.children[index];
      const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
      const number = Number(raw);
      return raw === "" ? null : (Number.isNaN(number) ? raw.toLowerCase() : number);
    }
    headers.forEach(function (th) {
      th.addEventListener("click", function () {
        const index = Array.from(th.parentNode.children).indexOf(th);
        const descending = th.getAttribute("aria-sort") === "ascending";
        const rows = Array.from(body.querySelectorAll("tr"));
        rows.sort(function (a, b) {
          const x = value(a, index), y = value(b, index);
          if (x === null || y === null) return (x === null) - (y === null);
          const order = x < y ? -1 : x > y ? 1 : 0;
          return descending ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
        headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      });
    });
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
  document.querySelectorAll("table.sortable").forEach(setUpSorting);
  setUpPaging();
})();
