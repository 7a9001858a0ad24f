// The search box's keyboard and completions; no library. Served as /search.js under the
// page's CSP nonce. The page works without it: this only adds to the plain form.
//   /            focus the search box (unless typing in a field)
//   typing       completions from /api/suggest, in an ARIA combobox (listbox of options)
//   Down / Up    move through the completions; with none open, Down goes to the results
//   Enter        search for the completion chosen; Escape closes the list
//   Down / Up on the results: the next / previous result (Up from the first: the box)
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("q-suggestions");
  if (!input || !list) return;
  var form = input.form;
  var options = [], active = -1, timer = null, pending = null, asked = "";

  function results() {
    return Array.prototype.slice.call(document.querySelectorAll("ol.results a.title"));
  }
  function typing(el) {
    var tag = el && el.tagName;
    return el && (el.isContentEditable || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT");
  }
  function isOpen() { return !list.hidden; }
  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }
  function highlight(index) {
    active = index;
    options.forEach(function (li, i) { li.setAttribute("aria-selected", i === index ? "true" : "false"); });
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({block: "nearest"});
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }
  function choose(index) {
    input.value = options[index].textContent;
    close();
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }
  function show(suggestions) {
    list.textContent = "";
    options = suggestions.map(function (text, i) {
      var li = document.createElement("li");
      li.id = "q-option-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.textContent = text;
      li.addEventListener("mousedown", function (event) { event.preventDefault(); });
      li.addEventListener("click", function () { choose(i); });
      list.appendChild(li);
      return li;
    });
    active = -1;
    if (options.length) {
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    } else {
      close();
    }
  }
  function ask() {
    var text = input.value;
    if (!text.trim()) { asked = ""; show([]); return; }
    if (text === asked) return;
    asked = text;
    if (pending) pending.abort();
    pending = window.AbortController ? new AbortController() : null;
    var url = input.getAttribute("data-suggest") + "?n=8&q=" + encodeURIComponent(text);
    fetch(url, pending ? {signal: pending.signal} : {})
      .then(function (r) { return r.ok ? r.json() : {suggestions: []}; })
      .then(function (answer) {
        if (input.value === text && document.activeElement === input) show(answer.suggestions || []);
      })
      .catch(function () { /* aborted by newer typing, or the server is away: no list */ });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(ask, 60);
  });
  input.addEventListener("blur", close);
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown") {
      if (isOpen()) {
        highlight((active + 1) % options.length);
      } else if (options.length && input.value.trim()) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        highlight(0);
      } else if (results().length) {
        results()[0].focus();
      } else {
        return;
      }
      event.preventDefault();
    } else if (event.key === "ArrowUp" && isOpen()) {
      highlight(active <= 0 ? options.length - 1 : active - 1);
      event.preventDefault();
    } else if (event.key === "Enter" && isOpen() && active >= 0) {
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape" && isOpen()) {
      event.preventDefault();
      close();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    var target = event.target;
    if (event.key === "/" && !typing(target)) {
      event.preventDefault();
      input.focus();
      input.select();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    var links = results();
    var at = links.indexOf(target);
    if (at < 0 && typing(target)) return;
    if (!links.length) return;
    event.preventDefault();
    if (event.key === "ArrowDown") {
      links[Math.min(at + 1, links.length - 1)].focus();
    } else if (at > 0) {
      links[at - 1].focus();
    } else {
      input.focus();
    }
  });
}());
