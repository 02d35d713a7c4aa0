// Filters by status and area; anchors open what they point to even when a filter hid it.
(function () {
  var boxes = document.querySelectorAll("input[data-filter-status]");
  var area = document.getElementById("filter-area");
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.dataset.filterStatus] = b.checked; });
    var shown = 0;
    document.querySelectorAll(".clause").forEach(function (c) {
      var visible = on[c.dataset.status] !== false && (!area.value || c.dataset.area === area.value);
      c.hidden = !visible;
      if (visible) { shown += 1; }
    });
    document.getElementById("shown").textContent = shown;
  }
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { return; }
    for (var p = el; p; p = p.parentElement) {
      if (p.hidden) { p.hidden = false; }
      if (p.tagName === "DETAILS") { p.open = true; }
    }
    el.scrollIntoView();
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  area.addEventListener("change", apply);
  document.querySelectorAll("[data-area-pick]").forEach(function (b) {
    b.addEventListener("click", function () {
      area.value = area.value === b.dataset.areaPick ? "" : b.dataset.areaPick; apply();
    });
  });
  window.addEventListener("hashchange", reveal);
  apply();
  reveal();
})();
