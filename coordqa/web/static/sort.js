// Click a column header with data-sort to sort the rows of its table in the page (server-rendered
// sort links keep working without JavaScript). Served to the leaderboard and to `coordqa view`.
// A table opts in with class "sortable"; its first body holds the rows (a row of class "empty"
// stays out). The first click on a header sorts ascending, or descending where the table has
// data-first-order="descending"; further clicks flip the order. Cells sort by data-value when
// present, numbers numerically, empty cells last. A header's data-column names the cell index it
// sorts by, where header rows do not line up with the body's cells.
(function () {
  "use strict";

  function value(row, index) {
    const cell = row.children[index];
    const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
    const number = Number(raw);
    return raw === "" ? null : (Number.isNaN(number) ? raw.toLowerCase() : number);
  }

  function setUpSorting(table) {
    const body = table.tBodies[0];
    const headers = Array.from(table.querySelectorAll("th[data-sort]"));
    const firstDescending = table.dataset.firstOrder === "descending";
    headers.forEach(function (th) {
      th.addEventListener("click", function (event) {
        event.preventDefault();
        // a header under a grouping one (two header rows) says which cell it sorts by
        const index = th.dataset.column !== undefined
          ? Number(th.dataset.column) : Array.from(th.parentNode.children).indexOf(th);
        const current = th.getAttribute("aria-sort");
        const descending = current === null ? firstDescending : current === "ascending";
        const rows = Array.from(body.querySelectorAll("tr:not(.empty)"));
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

  document.querySelectorAll("table.sortable").forEach(setUpSorting);
})();
