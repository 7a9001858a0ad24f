// The Crawler Workbench page (SPHINX section 3): the form becomes a JSON crawl definition,
// POSTed to /api/crawls; the crawl's events arrive as server-sent events and feed the graph
// view (cytoscape.js), the outline (pages under the page that first linked to them) and the
// counters. No other dependency. Events are applied in batches of at most BATCH, at most every
// DRAIN_EVERY ms (each batch redraws the canvas once); a new node is placed near the page that linked to it, and the whole layout
// runs at most every LAYOUT_EVERY ms and never more than a tenth of the time (it is timed), so
// the page stays responsive as it grows (bench/workbench_graph.py).
// The layout is a radial tree (radialLayout): each page on the ring of its depth, inside the
// wedge of the page that first linked to it, a ring split into lanes when it holds more pages
// than fit side by side, so a breadth-first crawl of 2,000 pages fills a disc instead of one
// row of sub-pixel dots; nodes never draw smaller than MIN_PX at any zoom. Colours come
// from the page's CSS (--visited, ...), so the legend and the nodes are the same.
"use strict";
(function () {
  const LAYOUT_EVERY = 1500, BATCH = 1000, DRAIN_EVERY = 200;
  const GAP = 26, RING = 60, MIN_PX = 4, ZOOM_STEP = 1.6;  // model units; screen pixels
  const spent = (window.workbenchTimes = { apply: 0, layout: 0, layouts: 0 });  // read by the bench
  const $ = (id) => document.getElementById(id);
  const form = $("definition");
  let cy = null, source = null, crawlId = null, pending = [], outline = new Map(), nextLayout = 0;
  let parentOf = new Map(), sizeScale = 1;
  const css = getComputedStyle(document.documentElement);
  const colour = (name) => css.getPropertyValue("--" + name).trim();
  const sized = (px) => () => px * sizeScale;  // a node's width in model units at this zoom

  function pattern(text, regexp, match_case) {
    if (match_case) return regexp ? { regexp: text, case: true } : { wildcard: text, case: true };
    return regexp ? { regexp: text } : text;
  }

  function rules(prefix, names) {
    const out = {}, regexp = form.elements[prefix + "_regexp"].checked;
    const match_case = form.elements[prefix + "_case"].checked;
    for (const name of names) {
      const value = form.elements[prefix + "_" + name].value.trim();
      if (value) out[name] = name === "label" ? value : pattern(value, regexp, match_case);
    }
    return out;
  }

  function definition() {
    const e = form.elements, limits = {};
    for (const name of ["pages", "depth", "seconds", "bytes"]) {
      if (e[name].value !== "") limits[name] = Number(e[name].value);
    }
    const action = { type: e.action.value };
    if (action.type === "extract") action.pattern = e.extract_pattern.value;
    return {
      name: e.name.value.trim(), roots: e.roots.value.split(/\s+/).filter(Boolean), limits,
      scope: e.scope.value, order: e.order.value, follow: rules("follow", ["url", "anchor", "label"]),
      process: rules("process", ["title", "url", "content", "label"]), action,
    };
  }

  function fill(d) {
    const e = form.elements;
    e.name.value = d.name || "";
    e.roots.value = (d.roots || []).join("\n");
    for (const name of ["pages", "depth", "seconds", "bytes"]) {
      e[name].value = d.limits && d.limits[name] != null ? d.limits[name] : "";
    }
    e.scope.value = d.scope || "server";
    e.order.value = d.order || "bfs";
    for (const [prefix, names] of [["follow", ["url", "anchor", "label"]],
                                   ["process", ["title", "url", "content", "label"]]]) {
      const given = d[prefix] || {};
      let regexp = false, match_case = false;
      for (const name of names) {
        const v = given[name];
        regexp = regexp || Boolean(v && typeof v === "object" && "regexp" in v);
        match_case = match_case || Boolean(v && typeof v === "object" && v.case);
        e[prefix + "_" + name].value = v == null ? "" : (typeof v === "object" ? (v.regexp ?? v.wildcard) : v);
      }
      e[prefix + "_regexp"].checked = regexp;
      e[prefix + "_case"].checked = match_case;
    }
    e.action.value = (d.action && d.action.type) || "concatenate";
    const p = d.action && d.action.pattern;
    e.extract_pattern.value = p == null ? "" : (typeof p === "object" ? (p.regexp ?? p.wildcard) : p);
  }

  async function call(method, url, body) {
    const init = { method, headers: { "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const answer = await fetch(url, init);
    const data = await answer.json().catch(() => ({}));
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    return data;
  }

  function newGraph() {
    if (typeof cytoscape === "undefined") return;  // not installed: the page says how to get it
    if (cy) cy.destroy();
    sizeScale = 1;
    cy = cytoscape({
      container: $("graph"), minZoom: 0.02, maxZoom: 3, pixelRatio: 1, wheelSensitivity: 0.3,
      hideEdgesOnViewport: true, textureOnViewport: true,
      style: [
        { selector: "node", style: { width: sized(10), height: sized(10), "background-color": colour("queued"),
                                     "border-width": 0 } },
        { selector: "node.visited", style: { "background-color": colour("visited"), width: sized(14), height: sized(14) } },
        { selector: "node.matched", style: { "border-width": sized(3), "border-color": colour("matched"),
                                             width: sized(18), height: sized(18) } },
        { selector: "node.skipped", style: { "background-color": colour("skipped"), shape: "triangle" } },
        { selector: "node.failed", style: { "background-color": colour("failed"), shape: "square" } },
        { selector: "node.root", style: { shape: "star", width: sized(22), height: sized(22) } },
        { selector: "edge", style: { width: 1, "line-color": colour("edge"), "target-arrow-color": colour("edge"),
                                     "target-arrow-shape": "triangle", "arrow-scale": 0.6,
                                     "curve-style": "haystack" } },
      ],
    });
    window.workbenchGraph = cy;  // read by the browser tests and the bench
    cy.on("zoom", () => resize());
    cy.on("mouseover", "node", (ev) => {
      const n = ev.target.data(), hover = $("hover");
      hover.textContent = (n.title ? n.title + " \u2014 " : "") + n.id;
      hover.style.display = "block";
      hover.style.left = ev.originalEvent.clientX + 12 + "px";
      hover.style.top = ev.originalEvent.clientY + 12 + "px";
    });
    cy.on("mouseout", "node", () => { $("hover").style.display = "none"; });
    cy.on("dbltap", "node", (ev) => { window.open(ev.target.id(), "_blank", "noopener"); });
  }

  function addNode(url, from, cls) {
    if (!cy) {  // no graph library: the outline still grows
      if (!outline.has(url)) addOutline(url, from, cls);
      return null;
    }
    let node = cy.getElementById(url);
    if (node.empty()) {
      const parent = from ? cy.getElementById(from) : null;
      const at = parent && parent.nonempty() ? parent.position() : { x: 0, y: 0 };
      node = cy.add({ group: "nodes", data: { id: url, title: "" },
                      position: { x: at.x + (Math.random() - 0.5) * 60, y: at.y + 40 } });
      if (!from) node.addClass("root"); else parentOf.set(url, from);
      if (cls === "queued") node.addClass("queued");
      addOutline(url, from, cls);
    }
    if (from) addEdge(from, url);
    return node;
  }

  function addEdge(from, to) {
    if (!cy) return;
    const id = from + "\u2192" + to;
    if (cy.getElementById(from).nonempty() && cy.getElementById(to).nonempty() &&
        cy.getElementById(id).empty()) {
      cy.add({ group: "edges", data: { id, source: from, target: to } });
    }
  }

  function addOutline(url, from, cls) {
    const li = document.createElement("li"), details = document.createElement("details");
    const summary = document.createElement("summary"), ul = document.createElement("ul");
    details.open = true;
    summary.textContent = url;
    summary.title = url;
    details.append(summary, ul);
    li.append(details);
    li.className = cls || "queued";
    const parent = from && outline.get(from);
    (parent ? parent.querySelector("ul") : $("outline").firstElementChild).append(li);
    outline.set(url, li);
  }

  function mark(url, cls, title) {
    const node = cy ? cy.getElementById(url) : null, li = outline.get(url);
    if (node) {
      node.removeClass("queued skipped").addClass(cls);  // a redirect's target may come back visited
      if (title !== undefined) node.data("title", title);
    }
    if (li) {
      li.classList.remove("queued");
      li.classList.add(cls);
      if (title) li.querySelector("summary").textContent = title + " \u2014 " + url;
    }
  }

  function apply(event) {
    switch (event.t) {
      case "queued": addNode(event.url, event.from, "queued"); break;
      case "edge": addEdge(event.from, event.url); break;
      case "skipped": addNode(event.url, event.from, "skipped"); mark(event.url, "skipped"); break;
      case "visited":
        addNode(event.url, event.link !== event.url ? event.link : null, "visited");
        mark(event.url, "visited", event.title);
        if (event.matched) mark(event.url, "matched");
        break;
      case "failed": addNode(event.url, null, "failed"); mark(event.url, "failed"); break;
      case "counters":
        for (const k of ["visited", "skipped", "failed", "bytes", "rate"]) {
          $("c-" + k).textContent = event[k];
        }
        break;
      case "finished": {
        const refused = event.refused && event.summary && event.summary.pages === 0;
        $("message").textContent = refused ? "Nothing was visited: " + event.refused
          : event.processed === 0
            ? "The result is empty: no visited page matched the page predicate (patterns ignore case "
              + "unless \"match case\" is ticked)." : event.action || "";
        $("message").className = refused ? "" : "note";
        break;
      }
    }
  }

  function drain(all) {
    if (!cy) {  // no graph library: the outline, the counters and the result's line still show
      const batch = all ? pending : pending.slice(0, BATCH);
      pending = all ? [] : pending.slice(BATCH);
      batch.forEach(apply);
      $("c-nodes").textContent = outline.size;
      $("c-queued").textContent = $("outline").querySelectorAll("li.queued").length;
      return;
    }
    if (!pending.length && !all) return;
    const batch = all ? pending : pending.slice(0, BATCH);
    pending = all ? [] : pending.slice(BATCH);
    const started = performance.now();
    cy.batch(() => batch.forEach(apply));
    spent.apply += performance.now() - started;
    $("c-nodes").textContent = cy.nodes().length;
    $("c-queued").textContent = cy.nodes(".queued").length;  // fresher than the last counters
    if (all || performance.now() >= nextLayout) layout();
  }

  function resize() {  // nodes at least MIN_PX on screen, whatever the zoom
    const wanted = Math.max(1, MIN_PX / (10 * cy.zoom()));
    if (Math.abs(wanted - sizeScale) > 0.15 * sizeScale) {
      sizeScale = wanted;
      cy.style().update();
    }
  }

  function radialLayout() {
    // the tree of first links: each page under the page that first linked to it
    const kids = new Map(), tops = [];
    cy.nodes().forEach((n) => {
      const p = parentOf.get(n.id());
      if (p && p !== n.id() && cy.getElementById(p).nonempty()) {
        if (!kids.has(p)) kids.set(p, []);
        kids.get(p).push(n.id());
      } else tops.push(n.id());
    });
    const depth = new Map(), order = [];
    const walk = (top) => {
      const stack = [[top, 0]];
      while (stack.length) {
        const [id, d] = stack.pop();
        if (depth.has(id)) continue;
        depth.set(id, d);
        order.push(id);
        for (const c of (kids.get(id) || []).slice().reverse()) stack.push([c, d + 1]);
      }
    };
    tops.forEach(walk);
    cy.nodes().forEach((n) => {  // a loop of first links (no root above it): its own tree
      if (!depth.has(n.id())) { tops.push(n.id()); walk(n.id()); }
    });
    const weight = new Map();  // leaves below: the share of the circle a page's subtree gets
    for (let i = order.length - 1; i >= 0; i--) {
      const id = order[i];
      let w = 0;
      for (const c of kids.get(id) || []) if (depth.get(c) === depth.get(id) + 1) w += weight.get(c);
      weight.set(id, Math.max(1, w));
    }
    const angle = new Map(), span = new Map();
    const total = tops.reduce((sum, id) => sum + weight.get(id), 0);
    let at = 0;
    for (const id of tops) {
      span.set(id, (2 * Math.PI * weight.get(id)) / total);
      angle.set(id, at);
      at += span.get(id);
    }
    const rings = [];
    for (const id of order) {  // pre-order: a page's wedge is known before its children's
      const d = depth.get(id);
      (rings[d] = rings[d] || []).push(id);
      let a = angle.get(id);
      for (const c of kids.get(id) || []) {
        if (depth.get(c) !== d + 1) continue;
        span.set(c, (span.get(id) * weight.get(c)) / weight.get(id));
        angle.set(c, a);
        a += span.get(c);
      }
    }
    const positions = {};
    let radius = 0;
    rings.forEach((ring, d) => {
      // a ring holds as many pages side by side as its circumference allows, in as many lanes as needed
      const base = d === 0 ? (ring.length > 1 ? RING : 0) : radius + RING;
      const lanes = Math.max(1, Math.ceil((ring.length * GAP) / (2 * Math.PI * Math.max(base, RING))));
      // in the order of their wedges (a page beside its siblings, below its parent), evenly spaced:
      // a wedge's own angle would crowd the leaves beside a page with a large subtree
      const mid = (id) => angle.get(id) + span.get(id) / 2;
      ring.sort((x, y) => mid(x) - mid(y));
      const first = ring.length ? mid(ring[0]) : 0;
      ring.forEach((id, i) => {
        const r = base + (i % lanes) * GAP, a = first + (2 * Math.PI * i) / ring.length;
        positions[id] = { x: r * Math.cos(a), y: r * Math.sin(a) };
      });
      radius = base + (lanes - 1) * GAP;
    });
    cy.nodes().positions((n) => positions[n.id()] || { x: 0, y: 0 });
    cy.fit(undefined, 12);
    resize();
  }

  function layout() {
    const started = performance.now();
    radialLayout();
    const took = performance.now() - started;
    spent.layout += took;
    spent.layouts += 1;
    nextLayout = performance.now() + Math.max(LAYOUT_EVERY, 10 * took);
  }

  function frame() {
    drain();
    setTimeout(() => requestAnimationFrame(frame), DRAIN_EVERY);
  }

  function follow(started) {
    crawlId = started.id;
    newGraph();
    outline = new Map();
    parentOf = new Map();
    $("outline").firstElementChild.replaceChildren();
    $("c-state").textContent = "running";
    $("stop").disabled = false;
    source = new EventSource(started.events_url);
    source.onmessage = (ev) => { pending.push(JSON.parse(ev.data)); };
    source.addEventListener("end", (ev) => {
      source.close();
      drain(true);
      $("c-state").textContent = JSON.parse(ev.data).state;
      $("stop").disabled = true;
      listCrawls();
    });
  }

  async function run(d) {
    $("message").textContent = "";
    $("message").className = "";
    $("c-state").textContent = "starting";
    for (const k of ["nodes", "visited", "queued", "skipped", "failed", "bytes", "rate"]) $("c-" + k).textContent = 0;
    $("json").value = JSON.stringify(d, null, 2);
    if (source) source.close();
    try {
      follow(await call("POST", "/api/crawls", d));
    } catch (error) {
      $("message").textContent = error.message;
      $("c-state").textContent = "refused";
    }
  }

  async function listCrawls() {
    const list = $("crawls");
    const data = await call("GET", "/api/crawls").catch(() => ({ crawls: [] }));
    list.replaceChildren(...data.crawls.map((c) => {
      const li = document.createElement("li"), d = c.definition;
      li.textContent = `${c.state}: ${d.name || d.roots.join(" ")} (${d.action.type}) `;
      if (c.processed === 0) {
        const empty = document.createElement("span");
        empty.className = "empty";
        empty.textContent = c.refused && c.summary && c.summary.pages === 0
          ? "nothing visited: " + c.refused + " "
          : "empty result: no visited page matched the page predicate ";
        li.append(empty);
      } else if (c.result) {
        const a = document.createElement("a");
        a.href = `/api/crawls/${c.id}/result`;
        a.textContent = "download " + c.result;
        a.className = "result";
        li.append(a, " ");
      }
      const load = document.createElement("button");
      load.type = "button";
      load.textContent = "load";
      load.addEventListener("click", () => { fill(d); $("json").value = JSON.stringify(d, null, 2); });
      li.append(load);
      return li;
    }));
  }

  form.addEventListener("submit", (ev) => { ev.preventDefault(); run(definition()); });
  $("stop").addEventListener("click", () => {
    if (crawlId) call("DELETE", "/api/crawls/" + crawlId).catch((e) => { $("message").textContent = e.message; });
  });
  $("load-json").addEventListener("click", () => {
    try { fill(JSON.parse($("json").value)); } catch (error) { $("message").textContent = error.message; }
  });
  for (const [id, factor] of [["zoom-in", ZOOM_STEP], ["zoom-out", 1 / ZOOM_STEP]]) {
    const button = $(id);
    if (button) button.addEventListener("click", () => {
      if (!cy) return;
      const box = $("graph").getBoundingClientRect();
      cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: box.width / 2, y: box.height / 2 } });
    });
  }
  if ($("zoom-fit")) $("zoom-fit").addEventListener("click", () => { if (cy) { cy.fit(undefined, 12); resize(); } });
  newGraph();
  listCrawls();
  requestAnimationFrame(frame);
})();
