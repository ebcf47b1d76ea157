// The watch page: an observer (`?raw=1`) of the session, built on /sdk/touchrelay.js, drawn
// for a big screen by wall.js (one tile per source). The header, in small type, has the
// session, each source's latency, drops and a 30 s latency sparkline; `?kiosk=1` shows the
// surfaces only. `f` or the button toggles full screen; the screen is kept awake where the
// browser offers the Screen Wake Lock API.
import { observe } from "/sdk/touchrelay.js";
import { Wall } from "/static/wall.js";

(function () {
  const session = TR.session();
  const kiosk = TR.param("kiosk") === "1";
  document.body.classList.toggle("kiosk", kiosk);
  const setState = TR.stateBadge(document.getElementById("state"));
  const totalsEl = document.getElementById("totals");
  const statsEl = document.getElementById("source-stats");
  const container = document.getElementById("sources");
  const emptyEl = document.getElementById("empty");

  document.getElementById("session-name").textContent = session;
  const padPath = "/pad/" + encodeURIComponent(session);
  document.getElementById("pad-url").textContent = location.origin + padPath;
  document.getElementById("pad-link").href = padPath;
  document.getElementById("pad-url-link").href = padPath;
  if (!kiosk) {
    const qr = "/qr/" + encodeURIComponent(session) + ".svg";
    document.getElementById("qr").src = qr;
    document.getElementById("qr-big").src = qr;
  }

  if (!TR.sessionPattern.test(session)) {
    setState("bad session name", "error");
    return;
  }

  let clockOffset = null; // server ms - performance.now() ms, from welcome.serverTime
  let droppedTotal = 0;
  const timing = new Map(); // source id -> latency figures and the header's chip

  const wall = new Wall(container, { kiosk: kiosk, onSources: sourcesChanged });
  // For tests and the curious: the animation frames the page was given (`counters.frames`),
  // and what it received and drew (`wall.stats`).
  const counters = { frames: 0, messageMs: 0 };
  window.__watch = { wall: wall, counters: counters, latency: latencyOf };

  function sourcesChanged(list) {
    wall.changed = true;
    emptyEl.hidden = list.length > 0;
    document.body.classList.toggle("has-sources", list.length > 0);
    const ids = new Set(list.map((s) => s.id));
    for (const [id, t] of timing) {
      if (!ids.has(id)) {
        t.chip.remove();
        timing.delete(id);
      }
    }
    for (const s of list) timingFor(s.id);
  }

  // MARK: latency

  function timingFor(id) {
    let t = timing.get(id);
    if (t) return t;
    const chip = document.createElement("span");
    chip.className = "source-stat";
    chip.dataset.statFor = id;
    chip.title = "latency: server receive time → this page's receive time (clocks mapped by the welcome's " +
      "serverTime, never below 0), median of the last 100; missed: gaps in the source's seq; the line: 30 s of latency";
    chip.innerHTML = '<b class="name"></b> <span class="stats"></span> <canvas class="spark" width="90" height="18"></canvas>';
    statsEl.appendChild(chip);
    t = { chip: chip, recent: [], buckets: [] };
    timing.set(id, t);
    return t;
  }

  const BUCKET_MS = 500, SPARK_MS = 30000;

  function noteOrigin(m, now) {
    if (typeof m.rt !== "number" || clockOffset === null || !m.source) return;
    // A welcome handled late (the page still loading) maps the clocks too early: a message
    // would seem to arrive before it was sent. The mapping is moved so that none does.
    if (m.rt > now + clockOffset) clockOffset = m.rt - now;
    const latency = Math.max(0, now + clockOffset - m.rt);
    const t = timingFor(m.source);
    t.recent.push(latency);
    if (t.recent.length > 100) t.recent.shift();
    const slot = Math.floor(now / BUCKET_MS);
    const last = t.buckets[t.buckets.length - 1];
    if (last && last.slot === slot) {
      last.sum += latency;
      last.count += 1;
    } else {
      t.buckets.push({ slot: slot, sum: latency, count: 1 });
      while (t.buckets.length && (slot - t.buckets[0].slot) * BUCKET_MS > SPARK_MS) t.buckets.shift();
    }
  }

  function latencyOf(id) {
    const t = timing.get(id);
    if (!t || !t.recent.length) return null;
    const sorted = t.recent.slice().sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  function drawSpark(canvas, buckets, now) {
    const ctx = canvas.getContext("2d");
    const w = canvas.width, h = canvas.height;
    ctx.clearRect(0, 0, w, h);
    if (!buckets.length) return;
    const nowSlot = Math.floor(now / BUCKET_MS), span = SPARK_MS / BUCKET_MS;
    const avgs = buckets.map((b) => b.sum / b.count);
    const top = Math.max(5, ...avgs);
    ctx.strokeStyle = "#4cc9f0";
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    buckets.forEach((b, i) => {
      const x = w - ((nowSlot - b.slot) / span) * w;
      const y = h - 1 - (avgs[i] / top) * (h - 2);
      if (i) ctx.lineTo(x, y);
      else ctx.moveTo(x, y);
    });
    ctx.stroke();
  }

  let statsShown = 0;
  function updateHeader(now) {
    totalsEl.textContent = wall.sources.size + " source" + (wall.sources.size === 1 ? "" : "s") +
      " · dropped " + droppedTotal;
    for (const s of wall.sources.values()) {
      const t = timingFor(s.id);
      const lat = latencyOf(s.id);
      t.chip.querySelector(".name").textContent = s.device.name;
      t.chip.querySelector(".stats").textContent =
        (lat === null ? "–" : lat.toFixed(1) + " ms") + " · missed " + s.missed;
      drawSpark(t.chip.querySelector(".spark"), t.buckets, now);
      if (s.controlsFor !== s.scene) buildControls(s);
    }
  }

  // A scene's controls on its tile: observers may drive a source's scene.
  function buildControls(s) {
    s.controlsFor = s.scene;
    const box = s.controlsEl;
    box.textContent = "";
    const actions = { flatcube: ["reset"], zoom: ["reset"], sketch: ["delete", "clear"] }[s.scene] || [];
    for (const action of actions) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = action;
      b.addEventListener("click", () => send({ source: s.id, action: action }));
      box.appendChild(b);
    }
    if (s.scene === "flatcube") {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "toggle recognize any";
      b.addEventListener("click", () =>
        send({ source: s.id, recognizeAny: !(s.sceneState && s.sceneState.recognizeAny) }));
      box.appendChild(b);
    }
  }

  let sendControl = () => {};
  function send(m) {
    sendControl(m);
  }

  // MARK: messages

  /** A message the observer got at `now` (this page's clock). */
  function onMessage(m, now) {
    switch (m.type) {
      case "welcome":
        clockOffset = m.serverTime - now;
        setState("live", "live");
        refreshRecordings();
        break;
      case "source":
        refreshRecordings();
        break;
      case "touches":
      case "gesture":
      case "scene":
        noteOrigin(m, now);
        break;
      case "dropped":
        droppedTotal += m.count || 0;
        break;
      case "error":
        setState("error: " + m.code, "error");
        break;
    }
    const started = performance.now();
    wall.receive(m, now);
    counters.messageMs += performance.now() - started;
  }

  // MARK: drawing: once per animation frame, from the latest state

  function frame() {
    requestAnimationFrame(frame);
    counters.frames += 1;
    const now = performance.now();
    wall.draw(now);
    if (!kiosk && now - statsShown > 250) {
      statsShown = now;
      updateHeader(now);
    }
  }

  // MARK: recordings

  // With --record on, each source connection of the session is a file: offer each to play
  // back (/replay/...) and to download. A server without it says so in its list (`recording: false`, a 200): nothing
  // shown, and nothing asked again.
  const recordingsEl = document.getElementById("recordings");
  let serverRecords = true;
  function refreshRecordings() {
    if (!serverRecords || kiosk) return;
    const token = TR.param("token");
    const query = token ? "?token=" + encodeURIComponent(token) : "";
    fetch("/recordings/" + encodeURIComponent(session) + query, { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((list) => {
        if (list && list.recording === false) serverRecords = false;
        const found = (list && list.recordings) || [];
        recordingsEl.hidden = found.length === 0;
        recordingsEl.textContent = found.length ? "recordings: " : "";
        found.forEach((rec, i) => {
          const play = document.createElement("a");
          play.href = "/replay/" + encodeURIComponent(session) + "/" + encodeURIComponent(rec.name) + query;
          play.className = "replay";
          play.title = "play it back";
          play.textContent = "▶ #" + rec.connection;
          const a = document.createElement("a");
          a.href = rec.url + query;
          a.download = rec.name;
          a.className = "recording";
          a.title = "download (JSON lines, for touch-relay --replay)";
          a.textContent = Math.max(1, Math.round(rec.bytes / 1024)) + " KB";
          if (i > 0) recordingsEl.appendChild(document.createTextNode(" · "));
          recordingsEl.append(play, " (", a, ")");
        });
      })
      .catch(() => {});
  }

  // MARK: full screen and wake lock

  // The lock is asked for first: a key that enters full screen uses up the user activation
  // WebKit asks of both.
  window.__watch.awake = TR.keepAwake();
  TR.fullScreenToggle(document.getElementById("fullscreen"));

  // MARK: connection

  function connect() {
    const observer = observe(TR.wsURL("/v1/observe/" + session, {}), { raw: true });
    for (const type of ["welcome", "source", "touches", "gesture", "scene", "dropped", "error"]) {
      observer.on(type, (m) => onMessage(m, performance.now()));
    }
    observer.on("state", onState);
    sendControl = (m) => observer.control(m);
  }

  function onState(st) {
    if (st.state === "connecting") {
      setState(st.retry ? "reconnecting…" : "connecting…", "connecting");
    } else if (st.state === "offline" || st.state === "refused") {
      wall.liftAll();
      if (st.state === "refused") setState("refused (" + st.code + ")", "error");
      else setState("offline · retry in " + (st.delay / 1000).toFixed(1) + " s", "offline");
    }
  }

  requestAnimationFrame(frame);
  connect();
})();
