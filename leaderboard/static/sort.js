// Click a column header of the ranking to sort its rows in the page (the server-rendered
// links keep working without JavaScript). Numbers sort numerically, empty cells last.
(function () {
  const table = document.getElementById("ranking");
  if (!table) return;
  const body = table.querySelector("tbody.entries");
  const headers = Array.from(table.querySelectorAll("th[data-sort]"));
  function value(row, index) {
    const cell = row.children[index];
    const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
    const number = Number(raw);
    return raw === "" ? null : (Number.isNaN(number) ? raw.toLowerCase() : number);
  }
  headers.forEach(function (th) {
    th.addEventListener("click", function (event) {
      event.preventDefault();
      const index = Array.from(th.parentNode.children).indexOf(th);
      const descending = th.getAttribute("aria-sort") !== "descending";
      const rows = Array.from(body.querySelectorAll("tr[data-id]"));
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
})();
