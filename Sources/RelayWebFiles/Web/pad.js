// The pad: a phone's touch surface, a source of the session, built on /sdk/touchrelay.js. It
// says hello with the surface size in CSS pixels and records every input sample (each
// touchmove's coalesced samples too); the samples of one event leave in one message. It
// follows its own gestures and scene through an observer filtered to its source id. Each touch
// carries the members the browser measures (protocol §2.1: pressure, radius, a pen's kind and
// angles, its hover), and nothing more: a plain finger sends x and y only.
import { source as relaySource, observe, attachPointers, coalescedEvents, touchMembers } from "/sdk/touchrelay.js";

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

  let src = null; // the source (touchrelay.js)
  let observer = null; // our own gestures and scene
  let followedId = null;
  let sceneState = null;
  let size = { width: 0, height: 0 };

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

  const device = () => ({ name: deviceName(), width: size.width, height: size.height });

  // MARK: connections

  function connect() {
    src = relaySource(TR.wsURL("/v1/source/" + session), device(), { scene: scene || null });
    src.on("state", (s) => {
      if (s.state === "connecting") setState(s.retry ? "reconnecting…" : "connecting…", "connecting");
      else if (s.state === "offline") setState("offline · retry in " + (s.delay / 1000).toFixed(1) + " s", "offline");
      else if (s.state === "refused") setState("refused (" + s.code + ")", "error");
    });
    src.on("welcome", (m) => {
      setState((m.resumed ? "resumed · " : "live · ") + m.source, "live");
      if (m.source !== followedId || !observer) follow(m.source);
    });
    src.on("error", (m) => showError(m.code + (m.message ? ": " + m.message : "")));
  }

  /** An observer of our own source id: our gestures and our scene's state. */
  function follow(id) {
    if (observer) observer.close();
    followedId = id;
    observer = observe(TR.wsURL("/v1/observe/" + session, {}, "observer_token"), { source: id });
    observer.on("welcome", () => {
      const mine = observer.session.scenes.get(id);
      if (mine) { sceneState = mine; redraw(); }
    });
    observer.on("scene", (m) => {
      sceneState = m.state;
      syncControls();
      redraw();
    });
    observer.on("gesture", (m) => {
      if (m.state !== "cancelled") {
        gestureEl.textContent = TR.describe(m) + (m.state === "recognized" || m.state === "ended" ? "" : "…");
        gestureEl.style.color = TR.gestureColors[m.gesture] || "";
      }
    });
    // Without feedback (e.g. an observer token is needed: ?observer_token=) the pad still
    // works as a source: a refused observer just stays quiet.
  }

  let errorTimer = null;
  function showError(text) {
    gestureEl.textContent = text;
    gestureEl.style.color = "#ff6b6b";
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => { if (gestureEl.textContent === text) gestureEl.textContent = ""; }, 4000);
  }

  // MARK: input

  function local(clientX, clientY) {
    const r = surface.getBoundingClientRect();
    return { x: clientX - r.left, y: clientY - r.top };
  }

  // Pointer Events' coalesced samples for touch pointers, kept until the Touch Event of the
  // same moment, so the samples a browser merged into one touchmove are sent too.
  const pending = new Map(); // pointerId -> [{x, y, t}]
  const pointerOfTouch = new Map(); // touch identifier -> pointerId
  const lastPointerDown = new Map(); // pointerId -> {x, y}

  const hasTouchEvents = "ontouchstart" in window && typeof TouchEvent !== "undefined";

  // Pens come through Pointer Events on every browser (a stylus on Android fires Touch Events
  // too, skipped below; on a desktop it fires none), with their hover, under ids no touch
  // identifier has.
  const penId = (pointerId) => -1 - pointerId;
  const isStylus = (t) => t.touchType === "stylus";

  function startInput() {
    if (hasTouchEvents) {
      if (window.PointerEvent) {
        surface.addEventListener("pointerdown", (e) => {
          if (e.pointerType === "touch") lastPointerDown.set(e.pointerId, local(e.clientX, e.clientY));
        });
        surface.addEventListener("pointermove", (e) => {
          if (e.pointerType !== "touch") return;
          const samples = pending.get(e.pointerId) || [];
          for (const c of coalescedEvents(e)) samples.push(Object.assign(local(c.clientX, c.clientY), { t: c.timeStamp }));
          pending.set(e.pointerId, samples);
        });
        const forget = (e) => { pending.delete(e.pointerId); lastPointerDown.delete(e.pointerId); };
        surface.addEventListener("pointerup", forget);
        surface.addEventListener("pointercancel", forget);
        attachPointers(surface, src, redraw, { types: ["pen"], id: penId });
      }
      for (const type of ["touchstart", "touchmove", "touchend", "touchcancel"]) {
        surface.addEventListener(type, onTouch, { passive: false });
      }
    } else if (window.PointerEvent) {
      // No Touch Events (e.g. Firefox on a desktop): pointers, with every coalesced sample.
      attachPointers(surface, src, redraw);
    } else {
      setState("this browser has neither Touch nor Pointer Events", "error");
    }
  }

  function onTouch(e) {
    e.preventDefault();
    const now = performance.now();
    const type = e.type;
    const changed = [...e.changedTouches].filter((t) => !isStylus(t));
    if (!changed.length) return;
    if (type === "touchstart") {
      const changes = [];
      for (const t of changed) {
        const p = local(t.clientX, t.clientY);
        // The pointer that went down at the same place carries this touch's coalesced samples.
        for (const [pid, q] of lastPointerDown) {
          if (Math.abs(q.x - p.x) < 1 && Math.abs(q.y - p.y) < 1) {
            pointerOfTouch.set(t.identifier, pid);
            lastPointerDown.delete(pid);
            break;
          }
        }
        changes.push(Object.assign({ id: t.identifier, phase: "began", x: p.x, y: p.y }, touchMembers(t)));
      }
      src.sample(now, changes);
    } else if (type === "touchmove") {
      replayCoalesced(changed, now);
      src.sample(now, changed.map((t) =>
        Object.assign({ id: t.identifier, phase: "moved" }, local(t.clientX, t.clientY), touchMembers(t))));
    } else {
      const changes = [];
      for (const t of changed) {
        const pid = pointerOfTouch.get(t.identifier);
        if (pid !== undefined) pending.delete(pid);
        pointerOfTouch.delete(t.identifier);
        changes.push(Object.assign(
          { id: t.identifier, phase: type === "touchend" ? "ended" : "cancelled" }, local(t.clientX, t.clientY),
          touchMembers(t)));
      }
      // Touches of this surface the browser no longer lists (lost): the server treats a
      // finger missing from a frame as cancelled.
      const still = new Set([...e.targetTouches].map((t) => t.identifier));
      const lifting = new Set(changes.map((c) => c.id));
      // Pens are the Pointer Events' (penId): not the Touch Events' to forget.
      for (const id of [...src.fingers.keys()]) if (id >= 0 && !still.has(id) && !lifting.has(id)) src.forget(id);
      src.sample(now, changes);
    }
    redraw();
  }

  /** Samples for the coalesced positions before each changed touch's current one. */
  function replayCoalesced(changedTouches, now) {
    const samples = [];
    for (const t of changedTouches) {
      const pid = pointerOfTouch.get(t.identifier);
      if (pid === undefined) continue;
      const list = pending.get(pid) || [];
      pending.delete(pid);
      // The last sample is where the touch is now: the touchmove's own sample sends it.
      for (let i = 0; i < list.length - 1; i++) samples.push({ id: t.identifier, s: list[i] });
    }
    samples.sort((a, b) => a.s.t - b.s.t);
    for (const { id, s } of samples) {
      if (!src.fingers.has(id)) continue;
      src.sample(Math.min(s.t, now), [{ id: id, phase: "moved", x: s.x, y: s.y }]);
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
    for (const [id, p] of src ? src.fingers : []) {
      ctx.beginPath();
      ctx.arc(p.x, p.y, p.hover ? 12 : 28, 0, Math.PI * 2);
      ctx.lineWidth = 3;
      ctx.strokeStyle = TR.fingerColor(id);
      if (p.hover) {
        // A pen above the glass: a dashed ring where it would touch.
        ctx.setLineDash([4, 4]);
        ctx.stroke();
        ctx.setLineDash([]);
        continue;
      }
      ctx.fillStyle = TR.fingerColor(id) + "55";
      ctx.fill();
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
    src.update({ scene: scene || null });
    redraw();
  });
  anyBox.addEventListener("change", () => src.control({ recognizeAny: anyBox.checked }));
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => src.control({ action: button.dataset.action }));
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
      src.update({ device: device() });
      redraw();
    }, 150);
  });

  // A page put in the background may lose its sockets; come back at once when shown.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    src.wake();
    if (observer) observer.wake();
  });

  size = measure();
  syncControls();
  redraw();
  connect();
  startInput();
})();
