(function () {
  "use strict";
  // The game page, live: the game's event stream says something happened, and
  // the page fetches itself and swaps its content, so everything on it is
  // drawn by the same template as a reload. Presence: while the page is open
  // and visible it says so every minute, and no turn email is sent meanwhile.
  var me = document.currentScript;
  if (!me || !window.fetch) { return; }
  var data = me.dataset;
  var nonce = me.nonce;
  var version = parseInt(data.version, 10) || 0;
  var myTurn = data.myTurn === "true";
  var baseTitle = document.title.replace(/^\(.*?\) /, "");

  function icon(mine) {
    // A tower: red when it is your turn, grey otherwise (an SVG, written URL-encoded).
    var colour = mine ? "%23d33" : "%23888";
    var link = document.querySelector("link[rel~=icon]");
    if (!link) { link = document.createElement("link"); link.rel = "icon"; document.head.appendChild(link); }
    link.href = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E" +
      "%3Crect x='3' y='2' width='10' height='13' fill='" + colour + "'/%3E%3C/svg%3E";
    link.dataset.yourTurn = mine ? "true" : "false";
  }

  function showTurn() {
    document.title = myTurn ? "(" + data.yourTurn + ") " + baseTitle : baseTitle;
    icon(myTurn);
  }

  // Scripts of the swapped content run again (with this page's nonce), since
  // the elements they worked on are new. Listed before the content is moved
  // out of the fetched document (the table talk's script is inside it).
  function scriptsOf(doc) {
    return Array.prototype.slice.call(doc.querySelectorAll("script[nonce]:not([data-live])"));
  }
  function rerunScripts(scripts) {
    scripts.forEach(function (old) {
      var script = document.createElement("script");
      script.nonce = nonce;
      script.textContent = old.textContent;
      document.body.appendChild(script);
      script.remove();
    });
  }

  // What the reader is in the middle of: a half-typed text (table talk, a
  // written move, numbers of a selection) and where the caret was. The swap
  // must not take it from under their fingers: it is carried into the new
  // content, field by field (the same form and the same id).
  var TYPED = "textarea[id], input[id][type=text], input[id][type=number], input[id][type=search]";
  function fieldKey(field) { return (field.form ? field.form.id : "") + "#" + field.id; }
  function keepDrafts(main) {
    var drafts = {};
    main.querySelectorAll(TYPED).forEach(function (field) {
      if (field.value !== field.defaultValue) { drafts[fieldKey(field)] = field.value; }
    });
    var active = document.activeElement;
    var focus = null;
    if (active && active.id && main.contains(active)) {
      focus = { key: fieldKey(active), id: active.id, start: null, end: null, direction: null, scroll: active.scrollTop };
      try {
        focus.start = active.selectionStart;
        focus.end = active.selectionEnd;
        focus.direction = active.selectionDirection;
      } catch (error) { /* a field without a caret (a number): focus alone */ }
    }
    return { drafts: drafts, focus: focus };
  }
  function putDrafts(fresh, kept) {
    fresh.querySelectorAll(TYPED).forEach(function (field) {
      var value = kept.drafts[fieldKey(field)];
      if (value !== undefined) { field.value = value; }
    });
  }
  function putFocus(kept) {
    if (!kept.focus) { return; }
    var field = document.getElementById(kept.focus.id);
    if (!field || fieldKey(field) !== kept.focus.key) { return; }
    field.focus({ preventScroll: true });
    if (kept.focus.start !== null && field.setSelectionRange) {
      try { field.setSelectionRange(kept.focus.start, kept.focus.end, kept.focus.direction || "none"); } catch (error) { /* no caret here */ }
    }
    field.scrollTop = kept.focus.scroll;
  }

  var fetching = false;
  var again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(data.page, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        var live = doc.getElementById("live-script");
        var main = document.querySelector("main");
        if (!fresh || !live || !main) { return; }
        var fetched = parseInt(live.dataset.version, 10) || 0;
        if (polling && fetched <= version) { return; }  // nothing new: leave the page alone
        var scripts = scriptsOf(doc);
        var kept = keepDrafts(main);
        fresh = document.adoptNode(fresh);
        putDrafts(fresh, kept);
        main.replaceWith(fresh);
        putFocus(kept);
        version = fetched || version;
        me.dataset.version = String(version);
        myTurn = live.dataset.myTurn === "true";
        baseTitle = doc.title;
        showTurn();
        rerunScripts(scripts);
        document.dispatchEvent(new CustomEvent("game:updated", { detail: { version: version } }));
      })
      .catch(function () { /* the next event or a reload will try again */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  showTurn();
  // A page that asks now and then (a spectator's, where the stream is not open
  // to them): only a newer version is swapped in.
  var polling = null;
  function poll() {
    var seconds = parseInt(data.poll, 10);
    if (polling || !seconds || data.history === "true") { return; }
    polling = setInterval(function () {
      if (document.visibilityState === "visible") { refresh(); }
    }, seconds * 1000);
  }
  // No stream URL when the page was served by WSGI (no streams there): reload to see.
  if (window.EventSource && data.stream && data.history !== "true") {
    var source = new EventSource(data.stream + (data.stream.indexOf("?") < 0 ? "?" : "&") + "after=" + version);
    source.onmessage = function (event) {
      if ((parseInt(event.lastEventId, 10) || 0) > version) { refresh(); }
    };
    source.addEventListener("talk", function () { refresh(); });  // a message at the table
    // The finished game's review is ready: a page still saying it is being made shows it.
    source.addEventListener("review_ready", function () {
      if (document.querySelector("[data-testid=review-pending]")) { refresh(); }
    });
    // Refused (not signed in, say): the browser gives up on it; ask now and then instead.
    source.onerror = function () { if (source.readyState === EventSource.CLOSED) { poll(); } };
  } else {
    poll();
  }

  if (data.presence) {
    // This page load's own id: its "I left" removes only its own presence, so a
    // reload's late goodbye cannot remove the new page's "I'm here".
    var pageId = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
      : Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
    me.dataset.presencePage = pageId;
    var beat = function (state) {
      var body = new URLSearchParams({ state: state, page: pageId });
      fetch(data.presence, {
        method: "POST", credentials: "same-origin", keepalive: true, body: body,
        headers: { "X-CSRFToken": data.csrf },
      }).catch(function () {});
    };
    var visible = function () { return document.visibilityState === "visible"; };
    if (visible()) { beat("visible"); }
    setInterval(function () { if (visible()) { beat("visible"); } }, 60000);
    document.addEventListener("visibilitychange", function () { beat(visible() ? "visible" : "hidden"); });
    window.addEventListener("pagehide", function () { beat("hidden"); });
  }
})();
