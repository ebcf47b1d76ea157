"use strict";
// The pad: a phone's touch surface, a source of the session. It sends `hello` with the
// surface size in CSS pixels and one `frame` per input sample listing every finger down, and
// follows its own gestures and scene through an observer connection filtered to its source id.
(function () {
  const session = TR.session();
  const surface = document.getElementById("surface");
  const setState = TR.stateBadge(document.getElementById("state"));
  const gestureEl = document.getElementById("gesture");
  const sceneSelect = document.getElementById("scene");
  const anyBox = document.getElementById("recognize-any");
  const ctx = surface.getContext("2d");

  const scenes = ["flatcube", "zoom", "sketch"];
  let scene = scenes.includes(TR.param("scene")) ? TR.param("scene") : "";
  sceneSelect.value = scene;

  let source = null; // the source WebSocket
  let observer = null; // our own gestures and scene
  let sourceId = null; // from welcome; offered back as hello.resume after a drop
  let live = false; // welcome received on the current source connection
  let seq = 0;
  let lastT = 0;
  let size = { width: 0, height: 0 };
  let sceneState = null;
  let reconnectTimer = null;
  const backoff = new TR.Backoff();
  const followBackoff = new TR.Backoff();

  // Fingers down, by W3C touch identifier (or pointerId): {x, y}.
  const down = new Map();
  // Ids the server has seen `began` for on this connection: a finger already down when the
  // connection (re)opened is announced as `began`.
  let announced = new Set();

  if (!TR.sessionPattern.test(session)) {
    setState("bad session name", "error");
    return;
  }

  function deviceName() {
    const ua = navigator.userAgent;
    const os = /iPhone/.test(ua) ? "iPhone" : /iPad/.test(ua) ? "iPad" : /Android/.test(ua) ? "Android"
      : /Mac OS X/.test(ua) ? "Mac" : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "Device";
    const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge"
      : /(Chrome|Chromium|CriOS)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "browser";
    return os + " " + browser;
  }

  function helloMessage(resume) {
    const hello = { type: "hello", device: { name: deviceName(), width: size.width, height: size.height } };
    if (scene) hello.scene = scene;
    if (resume) hello.resume = resume;
    return hello;
  }

  function send(ws, message) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  // MARK: connections

  function connect() {
    clearTimeout(reconnectTimer);
    reconnectTimer = null;
    setState(backoff.attempt ? "reconnecting…" : "connecting…", "connecting");
    const ws = new WebSocket(TR.wsURL("/v1/source/" + session), "touchrelay.v1");
    source = ws;
    live = false;
    announced = new Set();
    seq = 0;
    ws.onopen = () => send(ws, helloMessage(sourceId));
    ws.onmessage = (e) => {
      if (ws !== source) return;
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.type === "welcome") {
        const changed = m.source !== sourceId;
        sourceId = m.source;
        live = true;
        backoff.reset();
        setState((m.resumed ? "resumed · " : "live · ") + sourceId, "live");
        if (changed || !observer) follow();
        if (down.size) sendFrame(performance.now(), null, null);
      } else if (m.type === "error") {
        showError(m.code + (m.message ? ": " + m.message : ""));
      }
    };
    ws.onclose = (e) => {
      if (ws !== source) return;
      source = null;
      live = false;
      if (e.code === 1008 || e.code === 4401 || e.code === 4403) {
        setState("refused (" + e.code + ")", "error");
        return;
      }
      scheduleReconnect();
    };
    ws.onerror = () => {}; // onclose follows
  }

  function scheduleReconnect() {
    if (reconnectTimer) return;
    const delay = backoff.next();
    setState("offline · retry in " + (delay / 1000).toFixed(1) + " s", "offline");
    reconnectTimer = setTimeout(connect, delay);
  }

  /** An observer of our own source id: our gestures and our scene's state. */
  function follow() {
    if (observer) {
      observer.onclose = null;
      observer.close(1000);
    }
    const id = sourceId;
    const ws = new WebSocket(TR.wsURL("/v1/observe/" + session, { source: id }, "observer_token"), "touchrelay.v1");
    observer = ws;
    let lastSceneSeq = -1;
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.type === "welcome") {
        followBackoff.reset();
        const mine = (m.scenes || []).find((s) => s.source === id);
        if (mine) { sceneState = mine.state; redraw(); }
      } else if (m.type === "scene" && m.source === id) {
        if (m.seq !== undefined && m.seq < lastSceneSeq) return;
        if (m.seq !== undefined) lastSceneSeq = m.seq;
        sceneState = m.state;
        syncControls();
        redraw();
      } else if (m.type === "gesture" && m.source === id) {
        if (m.state !== "cancelled") {
          gestureEl.textContent = TR.describe(m) + (m.state === "recognized" || m.state === "ended" ? "" : "…");
          gestureEl.style.color = TR.gestureColors[m.gesture] || "";
        }
      }
    };
    ws.onclose = () => {
      if (ws !== observer) return;
      observer = null;
      // Follow again once the source is back (or soon, if it still is). Without feedback
      // (e.g. an observer token is needed: ?observer_token=) the pad still works as a source.
      setTimeout(() => { if (!observer && live && sourceId === id) follow(); }, followBackoff.next());
    };
    ws.onerror = () => {};
  }

  let errorTimer = null;
  function showError(text) {
    gestureEl.textContent = text;
    gestureEl.style.color = "#ff6b6b";
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => { if (gestureEl.textContent === text) gestureEl.textContent = ""; }, 4000);
  }

  // MARK: frames

  /**
   * Sends one frame: every finger in `down` (after this sample), `changes` maps id → phase
   * for the fingers this sample is about; the others are `stationary`. `ended` maps ids that
   * lifted (no longer in `down`) to {x, y, phase}.
   */
  function sendFrame(t, changes, ended) {
    t = Math.max(t, lastT);
    lastT = t;
    if (!live) {
      if (ended) for (const id of ended.keys()) announced.delete(id);
      return;
    }
    const touches = [];
    for (const [id, p] of down) {
      let phase = (changes && changes.get(id)) || "stationary";
      if (!announced.has(id)) {
        phase = "began";
        announced.add(id);
      } else if (phase === "began") {
        phase = "moved"; // already announced (e.g. re-sent after a reconnect)
      }
      touches.push({ id: id, phase: phase, x: round(p.x), y: round(p.y) });
    }
    if (ended) {
      for (const [id, p] of ended) {
        if (!announced.has(id)) continue;
        announced.delete(id);
        touches.push({ id: id, phase: p.phase, x: round(p.x), y: round(p.y) });
      }
    }
    seq += 1;
    send(source, { type: "frame", seq: seq, t: round(t), touches: touches });
  }

  const round = (v) => Math.round(v * 100) / 100;

  function local(clientX, clientY) {
    const r = surface.getBoundingClientRect();
    return { x: clientX - r.left, y: clientY - r.top };
  }

  // Pointer Events' coalesced samples for touch pointers, kept until the Touch Event of the
  // same moment, so the samples a browser merged into one touchmove are sent too.
  const pending = new Map(); // pointerId -> [{x, y, t}]
  const pointerOfTouch = new Map(); // touch identifier -> pointerId
  const lastPointerDown = new Map(); // pointerId -> {x, y}

  function coalesced(e) {
    const list = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
    return list && list.length ? list : [e];
  }

  const hasTouchEvents = "ontouchstart" in window && typeof TouchEvent !== "undefined";

  if (hasTouchEvents) {
    if (window.PointerEvent) {
      surface.addEventListener("pointerdown", (e) => {
        if (e.pointerType === "touch") lastPointerDown.set(e.pointerId, local(e.clientX, e.clientY));
      });
      surface.addEventListener("pointermove", (e) => {
        if (e.pointerType !== "touch") return;
        const samples = pending.get(e.pointerId) || [];
        for (const c of coalesced(e)) samples.push(Object.assign(local(c.clientX, c.clientY), { t: c.timeStamp }));
        pending.set(e.pointerId, samples);
      });
      const forget = (e) => { pending.delete(e.pointerId); lastPointerDown.delete(e.pointerId); };
      surface.addEventListener("pointerup", forget);
      surface.addEventListener("pointercancel", forget);
    }

    const onTouch = (e) => {
      e.preventDefault();
      const now = performance.now();
      const type = e.type;
      if (type === "touchstart") {
        for (const t of e.changedTouches) {
          const p = local(t.clientX, t.clientY);
          down.set(t.identifier, p);
          // The pointer that went down at the same place carries this touch's coalesced samples.
          for (const [pid, q] of lastPointerDown) {
            if (Math.abs(q.x - p.x) < 1 && Math.abs(q.y - p.y) < 1) {
              pointerOfTouch.set(t.identifier, pid);
              lastPointerDown.delete(pid);
              break;
            }
          }
        }
        const changes = new Map([...e.changedTouches].map((t) => [t.identifier, "began"]));
        sendFrame(now, changes, null);
      } else if (type === "touchmove") {
        replayCoalesced(e.changedTouches, now);
        for (const t of e.changedTouches) down.set(t.identifier, local(t.clientX, t.clientY));
        const changes = new Map([...e.changedTouches].map((t) => [t.identifier, "moved"]));
        sendFrame(now, changes, null);
      } else {
        const ended = new Map();
        for (const t of e.changedTouches) {
          const p = local(t.clientX, t.clientY);
          down.delete(t.identifier);
          const pid = pointerOfTouch.get(t.identifier);
          if (pid !== undefined) pending.delete(pid);
          pointerOfTouch.delete(t.identifier);
          ended.set(t.identifier, { x: p.x, y: p.y, phase: type === "touchend" ? "ended" : "cancelled" });
        }
        // Touches of this surface the browser no longer lists (lost): the server treats a
        // finger missing from a frame as cancelled.
        const still = new Set([...e.targetTouches].map((t) => t.identifier));
        for (const id of [...down.keys()]) if (!still.has(id)) down.delete(id);
        sendFrame(now, null, ended);
      }
      redraw();
    };
    for (const type of ["touchstart", "touchmove", "touchend", "touchcancel"]) {
      surface.addEventListener(type, onTouch, { passive: false });
    }
  } else if (window.PointerEvent) {
    // No Touch Events (e.g. Firefox on a desktop): pointers, with every coalesced sample.
    surface.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      try { surface.setPointerCapture(e.pointerId); } catch (_) { /* not capturable */ }
      down.set(e.pointerId, local(e.clientX, e.clientY));
      sendFrame(performance.now(), new Map([[e.pointerId, "began"]]), null);
      redraw();
    });
    surface.addEventListener("pointermove", (e) => {
      if (!down.has(e.pointerId)) return;
      for (const c of coalesced(e)) {
        down.set(e.pointerId, local(c.clientX, c.clientY));
        sendFrame(c.timeStamp || performance.now(), new Map([[e.pointerId, "moved"]]), null);
      }
      redraw();
    });
    const lift = (e) => {
      if (!down.has(e.pointerId)) return;
      down.delete(e.pointerId);
      const p = local(e.clientX, e.clientY);
      const phase = e.type === "pointerup" ? "ended" : "cancelled";
      sendFrame(performance.now(), null, new Map([[e.pointerId, { x: p.x, y: p.y, phase: phase }]]));
      redraw();
    };
    surface.addEventListener("pointerup", lift);
    surface.addEventListener("pointercancel", lift);
  } else {
    setState("this browser has neither Touch nor Pointer Events", "error");
  }

  /** Frames for the coalesced samples before each changed touch's current position. */
  function replayCoalesced(changedTouches, now) {
    const samples = [];
    for (const t of changedTouches) {
      const pid = pointerOfTouch.get(t.identifier);
      if (pid === undefined) continue;
      const list = pending.get(pid) || [];
      pending.delete(pid);
      // The last sample is where the touch is now: this touchmove's own frame sends it.
      for (let i = 0; i < list.length - 1; i++) samples.push({ id: t.identifier, s: list[i] });
    }
    samples.sort((a, b) => a.s.t - b.s.t);
    for (const { id, s } of samples) {
      if (!down.has(id)) continue;
      down.set(id, { x: s.x, y: s.y });
      sendFrame(Math.min(s.t, now), new Map([[id, "moved"]]), null);
    }
  }

  // MARK: drawing and controls

  let drawPending = false;
  function redraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(draw);
  }

  function draw() {
    drawPending = false;
    const box = TR.fitCanvas(surface);
    ctx.setTransform(box.dpr, 0, 0, box.dpr, 0, 0);
    ctx.fillStyle = "#0d1321";
    ctx.fillRect(0, 0, box.width, box.height);
    if (sceneState) TR.drawScene(ctx, sceneState, box.width, box.height, "pad");
    else if (scene === "flatcube") TR.drawScene(ctx, { scene: "flatcube" }, box.width, box.height, "pad");
    for (const [id, p] of down) {
      ctx.beginPath();
      ctx.arc(p.x, p.y, 28, 0, Math.PI * 2);
      ctx.fillStyle = TR.fingerColor(id) + "55";
      ctx.fill();
      ctx.lineWidth = 3;
      ctx.strokeStyle = TR.fingerColor(id);
      ctx.stroke();
    }
  }

  function syncControls() {
    for (const el of document.querySelectorAll(".scene-control")) {
      el.hidden = !scene || !el.dataset.scene.split(" ").includes(scene);
    }
    if (sceneState && sceneState.scene === "flatcube") anyBox.checked = !!sceneState.recognizeAny;
  }

  sceneSelect.addEventListener("change", () => {
    scene = sceneSelect.value;
    sceneState = null;
    const url = new URL(location.href);
    if (scene) url.searchParams.set("scene", scene); else url.searchParams.delete("scene");
    history.replaceState(null, "", url.pathname + url.search);
    syncControls();
    if (live) send(source, helloMessage(null));
    redraw();
  });
  anyBox.addEventListener("change", () => send(source, { type: "control", recognizeAny: anyBox.checked }));
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => send(source, { type: "control", action: button.dataset.action }));
  }

  // The surface size is the hello's device size: a rotation or resize says hello again.
  function measure() {
    const r = surface.getBoundingClientRect();
    return { width: Math.max(1, Math.round(r.width)), height: Math.max(1, Math.round(r.height)) };
  }
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      const s = measure();
      if (s.width === size.width && s.height === size.height) return;
      size = s;
      if (live) send(source, helloMessage(null));
      redraw();
    }, 150);
  });

  // A page put in the background may lose its sockets; come back at once when shown.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !source) {
      backoff.reset();
      connect();
    }
  });

  size = measure();
  syncControls();
  redraw();
  connect();
})();
