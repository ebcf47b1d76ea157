// The watch page: an observer (`?raw=1`) of the session, built on /sdk/touchrelay.js. Each
// source gets a panel with its live fingers, its gestures as they happen, its scene, and its
// latency and drop counts.
import { observe } from "/sdk/touchrelay.js";

(function () {
  const session = TR.session();
  const setState = TR.stateBadge(document.getElementById("state"));
  const totalsEl = document.getElementById("totals");
  const container = document.getElementById("sources");
  const emptyEl = document.getElementById("empty");

  document.getElementById("session-name").textContent = session;
  const padPath = "/pad/" + encodeURIComponent(session);
  document.getElementById("pad-url").textContent = location.origin + padPath;
  document.getElementById("pad-link").href = padPath;
  document.getElementById("qr").src = "/qr/" + encodeURIComponent(session) + ".svg";

  if (!TR.sessionPattern.test(session)) {
    setState("bad session name", "error");
    return;
  }

  const sources = new Map(); // id -> panel state
  let observer = null;
  let clockOffset = null; // server ms - performance.now() ms, from welcome.serverTime
  let droppedTotal = 0;
  let messages = 0;

  function serverNow() {
    return clockOffset === null ? null : performance.now() + clockOffset;
  }

  // MARK: per-source panels

  function panelFor(id, info) {
    let s = sources.get(id);
    if (s) {
      if (info) updateInfo(s, info);
      return s;
    }
    const el = document.createElement("section");
    el.className = "source";
    el.innerHTML =
      '<h2><span class="name"></span> <code class="sid"></code> <span class="scene-name muted"></span>' +
      ' <span class="presence"></span></h2>' +
      '<div class="stats"></div>' +
      '<div class="panel-body"><div class="canvas-wrap"><canvas></canvas></div>' +
      '<div class="side"><div class="panel-controls"></div><ol class="log"></ol></div></div>';
    container.appendChild(el);
    s = {
      id: id, el: el, canvas: el.querySelector("canvas"), device: { name: "?", width: 400, height: 800 },
      scene: null, sceneState: null, fingers: new Map(), trails: new Map(), marks: [],
      active: new Map(), log: [], latencies: [], uplink: [], minUplink: Infinity, lastSeq: null,
      missed: 0, frames: 0, frameTimes: [], present: true,
    };
    el.querySelector(".sid").textContent = id;
    sources.set(id, s);
    if (info) updateInfo(s, info);
    emptyEl.hidden = true;
    return s;
  }

  function updateInfo(s, info) {
    if (info.device) s.device = info.device;
    s.scene = info.scene || null;
    s.el.querySelector(".name").textContent = s.device.name;
    s.el.querySelector(".scene-name").textContent = s.scene ? "· " + s.scene : "";
    buildControls(s);
  }

  function buildControls(s) {
    const box = s.el.querySelector(".panel-controls");
    box.textContent = "";
    const actions = { flatcube: ["reset"], zoom: ["reset"], sketch: ["delete", "clear"] }[s.scene] || [];
    for (const action of actions) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = action;
      b.addEventListener("click", () => send({ type: "control", source: s.id, action: action }));
      box.appendChild(b);
    }
    if (s.scene === "flatcube") {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "toggle recognize any";
      b.addEventListener("click", () =>
        send({ type: "control", source: s.id, recognizeAny: !(s.sceneState && s.sceneState.recognizeAny) }));
      box.appendChild(b);
    }
  }

  function send(m) {
    if (observer) observer.control(m);
  }

  const median = (list) => {
    if (!list.length) return null;
    const sorted = list.slice().sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };

  function noteOrigin(s, m) {
    if (typeof m.rt !== "number") return;
    const now = serverNow();
    if (now !== null) {
      s.latencies.push(Math.max(0, now - m.rt));
      if (s.latencies.length > 100) s.latencies.shift();
    }
    if (typeof m.t === "number") {
      const up = m.rt - m.t;
      s.minUplink = Math.min(s.minUplink, up);
      s.uplink.push(up - s.minUplink);
      if (s.uplink.length > 100) s.uplink.shift();
    }
  }

  function updateStats(s) {
    const lat = median(s.latencies);
    const jitter = median(s.uplink);
    const now = performance.now();
    s.frameTimes = s.frameTimes.filter((t) => now - t < 1000);
    const parts = [
      "latency " + (lat === null ? "–" : lat.toFixed(1) + " ms") + " (median)",
      "uplink jitter " + (jitter === null ? "–" : jitter.toFixed(1) + " ms"),
      s.frameTimes.length + " frames/s",
      s.frames + " frames",
      "missed " + s.missed + " (seq gaps)",
    ];
    s.el.querySelector(".stats").textContent = parts.join(" · ");
    s.el.querySelector(".presence").textContent = s.present ? "" : "(left)";
    s.el.classList.toggle("gone", !s.present);
  }

  function addLog(s, text, gesture) {
    s.log.unshift({ text: text, gesture: gesture });
    if (s.log.length > 12) s.log.pop();
    const ol = s.el.querySelector(".log");
    ol.textContent = "";
    for (const entry of s.log) {
      const li = document.createElement("li");
      li.textContent = entry.text;
      if (entry.gesture) li.style.color = TR.gestureColors[entry.gesture] || "";
      ol.appendChild(li);
    }
  }

  // MARK: messages

  function onMessage(m) {
    messages += 1;
    switch (m.type) {
      case "welcome": {
        clockOffset = m.serverTime - performance.now();
        setState("watching · " + (m.sources || []).length + " source(s)", "live");
        for (const info of m.sources || []) panelFor(info.id, info).present = true;
        for (const sc of m.scenes || []) {
          const s = panelFor(sc.source);
          s.sceneState = sc.state;
        }
        refreshRecordings();
        break;
      }
      case "source": {
        const s = panelFor(m.source, m);
        s.present = m.event !== "left";
        if (m.event === "left") s.fingers.clear();
        addLog(s, m.event === "updated" ? "hello again" : m.event, null);
        if (m.event === "joined" || m.event === "rejoined") setState("watching", "live");
        refreshRecordings();
        break;
      }
      case "touches": {
        const s = panelFor(m.source);
        noteOrigin(s, m);
        if (s.lastSeq !== null && m.seq > s.lastSeq + 1) s.missed += m.seq - s.lastSeq - 1;
        if (s.lastSeq !== null && m.seq < s.lastSeq) s.lastSeq = null; // a new connection
        s.lastSeq = m.seq;
        s.frames += 1;
        s.frameTimes.push(performance.now());
        const now = performance.now();
        const seen = new Set();
        for (const t of m.touches || []) {
          if (t.phase === "ended" || t.phase === "cancelled") {
            s.fingers.delete(t.id);
            continue;
          }
          seen.add(t.id);
          if (t.phase === "began") s.trails.set(t.id, []);
          s.fingers.set(t.id, { x: t.x, y: t.y });
          const trail = s.trails.get(t.id) || [];
          trail.push({ x: t.x, y: t.y, at: now });
          if (trail.length > 400) trail.shift();
          s.trails.set(t.id, trail);
        }
        for (const id of [...s.fingers.keys()]) if (!seen.has(id)) s.fingers.delete(id);
        break;
      }
      case "gesture": {
        const s = panelFor(m.source);
        noteOrigin(s, m);
        const label = TR.describe(m);
        if (m.state === "began" || m.state === "changed") {
          s.active.set(m.id, m);
        } else {
          s.active.delete(m.id);
          if (m.state === "cancelled") {
            addLog(s, m.gesture + " cancelled", m.gesture);
          } else {
            addLog(s, label, m.gesture);
            s.marks.push({ g: m, label: label, at: performance.now() });
            if (s.marks.length > 12) s.marks.shift();
          }
        }
        if (m.state === "began") addLog(s, m.gesture + " began", m.gesture);
        break;
      }
      case "scene": {
        // touchrelay.js passes on no state older than the one it keeps.
        const s = panelFor(m.source);
        s.sceneState = m.state;
        if (m.state && m.state.scene && s.scene !== m.state.scene) {
          s.scene = m.state.scene;
          buildControls(s);
        }
        break;
      }
      case "dropped":
        droppedTotal += m.count || 0;
        break;
      case "error":
        setState("error: " + m.code, "error");
        break;
    }
    dirty = true;
  }

  // MARK: drawing

  let dirty = true;
  function frame() {
    requestAnimationFrame(frame);
    const now = performance.now();
    const animating = [...sources.values()].some((s) => s.marks.some((k) => now - k.at < 3000));
    if (!dirty && !animating) return;
    dirty = false;
    totalsEl.textContent =
      messages + " messages · dropped " + droppedTotal + " (observer queue)" +
      (clockOffset === null ? "" : " · clocks mapped");
    for (const s of sources.values()) {
      updateStats(s);
      drawSource(s, now);
    }
  }

  /** The surface at the device's aspect ratio, as large as the panel and the window allow. */
  function sizeWrap(s) {
    const wrap = s.el.querySelector(".canvas-wrap");
    const maxW = Math.min(window.innerWidth - 48, 520);
    const maxH = Math.max(200, window.innerHeight * 0.64);
    const k = Math.min(maxW / s.device.width, maxH / s.device.height);
    wrap.style.width = Math.floor(s.device.width * k) + "px";
    wrap.style.height = Math.floor(s.device.height * k) + "px";
  }

  function drawSource(s, now) {
    sizeWrap(s);
    const box = TR.fitCanvas(s.canvas);
    const ctx = s.canvas.getContext("2d");
    const k = Math.min(box.width / s.device.width, box.height / s.device.height);
    ctx.setTransform(box.dpr * k, 0, 0, box.dpr * k, 0, 0);
    const w = s.device.width, h = s.device.height;
    ctx.fillStyle = "#0d1321";
    ctx.fillRect(0, 0, w, h);
    TR.drawScene(ctx, s.sceneState, w, h, "watch");

    // Trails of the fingers, fading over 4 s after their last sample.
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (const [id, trail] of s.trails) {
      if (!trail.length) continue;
      const age = now - trail[trail.length - 1].at;
      if (age > 4000 && !s.fingers.has(id)) {
        s.trails.delete(id);
        continue;
      }
      ctx.globalAlpha = s.fingers.has(id) ? 0.6 : Math.max(0.15, 0.6 * (1 - age / 4000));
      ctx.strokeStyle = TR.fingerColor(id);
      ctx.lineWidth = 2 / k;
      ctx.beginPath();
      trail.forEach((p, i) => (i ? ctx.lineTo(p.x, p.y) : ctx.moveTo(p.x, p.y)));
      ctx.stroke();
    }
    ctx.globalAlpha = 1;

    // Recognized and ended gestures: a marker where they happened, fading over 3 s, then faint.
    for (const mark of s.marks) {
      const age = now - mark.at;
      ctx.globalAlpha = age < 3000 ? 1 - (0.7 * age) / 3000 : 0.3;
      drawLabel(ctx, mark.g, mark.label, k, w);
    }
    ctx.globalAlpha = 1;
    for (const g of s.active.values()) drawLabel(ctx, g, TR.describe(g) + "…", k, w);

    for (const [id, p] of s.fingers) {
      ctx.beginPath();
      ctx.arc(p.x, p.y, 22, 0, Math.PI * 2);
      ctx.fillStyle = TR.fingerColor(id) + "66";
      ctx.fill();
      ctx.lineWidth = 3;
      ctx.strokeStyle = TR.fingerColor(id);
      ctx.stroke();
      ctx.fillStyle = "#fff";
      ctx.font = "600 14px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(id), p.x, p.y);
      ctx.textAlign = "start";
    }
  }

  function drawLabel(ctx, g, label, k, w) {
    const color = TR.gestureColors[g.gesture] || "#fff";
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(g.x, g.y, 10, 0, Math.PI * 2);
    ctx.stroke();
    if (g.gesture === "swipe" || g.gesture === "pan") {
      const tr = g.translation || { x: 0, y: 0 };
      ctx.beginPath();
      ctx.moveTo(g.x - tr.x, g.y - tr.y);
      ctx.lineTo(g.x, g.y);
      ctx.stroke();
    }
    const size = Math.max(14, 15 / Math.min(1, k));
    ctx.font = "600 " + size + "px system-ui, sans-serif";
    ctx.textBaseline = "bottom";
    const x = Math.min(Math.max(4, g.x + 14), Math.max(4, w - ctx.measureText(label).width - 4));
    ctx.fillText(label, x, Math.max(size + 2, g.y - 12));
  }

  // MARK: recordings

  // With --record on, each source connection of the session is a file: offer them for
  // download (the bug report a user can send). Without it the list says so
  // (`recording: false`), once: nothing shown, and nothing asked again.
  const recordingsEl = document.getElementById("recordings");
  let serverRecords = true;
  function refreshRecordings() {
    if (!serverRecords) return;
    const token = TR.param("token");
    const query = token ? "?token=" + encodeURIComponent(token) : "";
    fetch("/recordings/" + encodeURIComponent(session) + query, { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((list) => {
        if (list && list.recording === false) serverRecords = false;
        const found = (list && list.recordings) || [];
        recordingsEl.hidden = found.length === 0;
        recordingsEl.textContent = found.length ? "Download recording: " : "";
        found.forEach((rec, i) => {
          const a = document.createElement("a");
          a.href = rec.url + query;
          a.download = rec.name;
          a.className = "recording";
          a.textContent = "connection " + rec.connection + " (" + Math.max(1, Math.round(rec.bytes / 1024)) + " KB)";
          if (i > 0) recordingsEl.appendChild(document.createTextNode(" · "));
          recordingsEl.appendChild(a);
        });
      })
      .catch(() => {});
  }

  // MARK: connection

  function connect() {
    observer = observe(TR.wsURL("/v1/observe/" + session, {}), { raw: true });
    for (const type of ["welcome", "source", "touches", "gesture", "scene", "dropped", "error"]) {
      observer.on(type, onMessage);
    }
    observer.on("state", (st) => {
      if (st.state === "connecting") {
        setState(st.retry ? "reconnecting…" : "connecting…", "connecting");
      } else if (st.state === "offline" || st.state === "refused") {
        for (const s of sources.values()) s.fingers.clear();
        if (st.state === "refused") setState("refused (" + st.code + ")", "error");
        else setState("offline · retry in " + (st.delay / 1000).toFixed(1) + " s", "offline");
        dirty = true;
      }
    });
  }

  window.addEventListener("resize", () => { dirty = true; });
  requestAnimationFrame(frame);
  connect();
})();
