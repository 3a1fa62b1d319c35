// The mcpeval report's behaviour: the runs' details inflated from the page, theme, filters,
// sorting, expanding long text, opening the task an anchor names. Without it the summary and
// the task table still show; filters and sorting also come from URL parameters
// (?status=failed&eval=demo&label=k=v&agent=a&q=text&sort=duration&desc=1&theme=dark&open=all).
(function () {
  "use strict";

  var params = new URLSearchParams(location.search);
  var root = document.documentElement;

  // Theme: the URL's, else the one chosen before, else the system's.
  var stored = null;
  try { stored = localStorage.getItem("mcpeval-theme"); } catch (e) { /* file:// may refuse */ }
  var theme = params.get("theme") || stored;
  if (theme === "dark" || theme === "light") root.setAttribute("data-theme", theme);
  document.getElementById("theme").addEventListener("click", function () {
    var dark = root.getAttribute("data-theme") === "dark" ||
      (!root.getAttribute("data-theme") && matchMedia("(prefers-color-scheme: dark)").matches);
    var next = dark ? "light" : "dark";
    root.setAttribute("data-theme", next);
    try { localStorage.setItem("mcpeval-theme", next); } catch (e) { /* ignore */ }
  });

  // The runs' markup, gzip-compressed and base64-encoded in #runs-data (escaped when it was
  // rendered: it holds no markup from a results file), goes into #runs.
  function inflateRuns() {
    var data = document.getElementById("runs-data");
    var section = document.getElementById("runs");
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser has no DecompressionStream"));
    }
    var binary = atob(data.textContent.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (html) { section.innerHTML = html; });
  }

  function cannotInflate(error) {
    var loading = document.getElementById("runs-loading");
    if (loading) {
      loading.textContent = "The details of the runs cannot be shown in this browser (" +
        error.message + "); the summary and the table above are complete.";
    }
  }

  inflateRuns().catch(cannotInflate).then(start);

  function start() {
    // Filters.
    var table = document.getElementById("task-table");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var controls = {
      q: document.getElementById("f-q"),
      status: document.getElementById("f-status"),
      eval: document.getElementById("f-eval"),
      label: document.getElementById("f-label"),
      agent: document.getElementById("f-agent")
    };
    Object.keys(controls).forEach(function (name) {
      var value = params.get(name);
      if (value !== null) controls[name].value = value;
    });

    function matches(row) {
      var d = row.dataset;
      var status = controls.status.value;
      if (status === "flaky" ? d.flaky !== "true" : status && d.status !== status) return false;
      if (controls.eval.value && d.eval !== controls.eval.value) return false;
      if (controls.agent.value && d.agent !== controls.agent.value) return false;
      if (controls.label.value && d.labels.split("|").indexOf(controls.label.value) < 0) return false;
      var words = controls.q.value.toLowerCase().split(/\s+/).filter(Boolean);
      return words.every(function (w) { return d.search.indexOf(w) >= 0; });
    }

    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var ok = matches(row);
        row.hidden = !ok;
        var run = document.getElementById(row.dataset.id);
        if (run) run.hidden = !ok;
        if (ok) shown += 1;
      });
      document.getElementById("shown").textContent = shown + " of " + rows.length + " shown";
      document.getElementById("none-shown").hidden = shown > 0;
    }

    function remember() {
      var next = new URLSearchParams(location.search);
      Object.keys(controls).forEach(function (name) {
        if (controls[name].value) next.set(name, controls[name].value); else next.delete(name);
      });
      var query = next.toString();
      try {
        history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
      } catch (e) { /* some browsers refuse it for file:// */ }
    }

    Object.keys(controls).forEach(function (name) {
      controls[name].addEventListener("input", function () { apply(); remember(); });
    });
    document.getElementById("filters").addEventListener("submit", function (e) { e.preventDefault(); });

    // Sorting: a header's button sorts by its column; again reverses.
    var numeric = { duration: true, calls: true, tokens: true };
    var order = { failed: 0, passed: 1 };
    function sortBy(key, descending) {
      var sorted = rows.slice().sort(function (a, b) {
        var x = a.dataset[key], y = b.dataset[key];
        var c;
        if (numeric[key]) c = Number(x) - Number(y);
        else if (key === "status") c = order[x] - order[y];
        else c = x.localeCompare(y);
        if (c === 0) c = a.dataset.name.localeCompare(b.dataset.name);
        return descending ? -c : c;
      });
      sorted.forEach(function (row) { body.appendChild(row); });
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        if (th.dataset.key === key) th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        else th.removeAttribute("aria-sort");
      });
    }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        sortBy(th.dataset.key, th.getAttribute("aria-sort") === "ascending");
      });
    });
    if (params.get("sort")) sortBy(params.get("sort"), params.get("desc") === "1");

    // Long text: expand and collapse.
    document.addEventListener("click", function (e) {
      var button = e.target.closest && e.target.closest("button.expand");
      if (!button) return;
      var open = button.parentNode.classList.toggle("open");
      button.setAttribute("aria-expanded", String(open));
      if (!button.dataset.label) button.dataset.label = button.textContent;
      button.textContent = open ? "Show less" : button.dataset.label;
    });

    // The task an anchor names: opened, shown even when filtered out, scrolled to.
    function openTarget() {
      var id = decodeURIComponent(location.hash.slice(1));
      var target = id && document.getElementById(id);
      if (!target || !target.classList.contains("task")) return;
      document.querySelectorAll("details.task.targeted").forEach(function (d) { d.classList.remove("targeted"); });
      target.hidden = false;
      target.open = true;
      target.classList.add("targeted");
      target.scrollIntoView();
    }
    window.addEventListener("hashchange", openTarget);

    // "/" goes to the search box; Escape leaves it.
    document.addEventListener("keydown", function (e) {
      var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
      if (e.key === "/" && !typing) { e.preventDefault(); controls.q.focus(); }
      else if (e.key === "Escape" && document.activeElement === controls.q) controls.q.blur();
    });

    apply();
    // ?open=all: every shown run and every step of its timeline open (screenshots, printing).
    if (params.get("open") === "all") {
      document.querySelectorAll("details.task:not([hidden]), details.task:not([hidden]) .ev > details")
        .forEach(function (d) { d.open = true; });
    }
    openTarget();
    root.setAttribute("data-ready", "true");
  }
})();
