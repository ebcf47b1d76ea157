"use strict";
// Shared by the pad, the watch and the replay page: URLs, gesture labels, scene drawing, full
// screen and wake lock (connections are /sdk/touchrelay.js's).
// Plain JavaScript for current Chromium, Safari (iOS) and Firefox; no framework, no network
// requests other than to this server.
const TR = (function () {
  const sessionPattern = /^[A-Za-z0-9_-]{1,64}$/;

  /** The session name: the last path segment (`/pad/NAME`, `/watch/NAME`). */
  function session() {
    const parts = location.pathname.split("/");
    return decodeURIComponent(parts[parts.length - 1] || "");
  }

  /** A query parameter of the page's own URL, or null. */
  function param(name) {
    return new URLSearchParams(location.search).get(name);
  }

  /**
   * A WebSocket URL on this same server. The page's `?token=` is passed on when present (or
   * `tokenParam`'s value, e.g. the pad's `observer_token` for its own observer connection).
   */
  function wsURL(path, query, tokenParam) {
    const q = new URLSearchParams(query || {});
    const token = (tokenParam && param(tokenParam)) || param("token");
    if (token) q.set("token", token);
    const qs = q.toString();
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path + (qs ? "?" + qs : "");
  }

  const degrees = (rad) => Math.round((rad * 180) / Math.PI);

  /** A short human label for a gesture event. */
  function describe(g) {
    const n = g.touches > 1 ? g.touches + "-finger " : "";
    switch (g.gesture) {
      case "tap": {
        const taps = g.taps || 1;
        const word = taps === 1 ? "tap" : taps === 2 ? "double tap" : taps === 3 ? "triple tap" : taps + "× tap";
        return n + word;
      }
      case "pinch": return "pinch ×" + (g.scale || 1).toFixed(2);
      case "rotation": return "rotation " + degrees(g.rotation || 0) + "°";
      case "swipe": return n + "swipe " + (g.direction || "");
      case "pan": {
        const tr = g.translation || { x: 0, y: 0 };
        return n + "pan " + Math.round(tr.x) + ", " + Math.round(tr.y);
      }
      case "longpress": return "long press";
      // A drawing like one of the source's templates: its name and how close (0 to 1).
      case "shape": return "shape " + (g.name || "?") + " " + Math.round((g.score || 0) * 100) + "%";
      default: return String(g.gesture);
    }
  }

  const gestureColors = {
    tap: "#4cc9f0", longpress: "#f9c74f", pan: "#90be6d", pinch: "#f72585", rotation: "#b388ff", swipe: "#ff9e00",
    shape: "#43aa8b",
  };

  const fingerColors = ["#4cc9f0", "#f72585", "#90be6d", "#f9c74f", "#b388ff", "#ff9e00", "#43aa8b", "#ff6b6b"];
  const fingerColor = (id) => fingerColors[Math.abs(id) % fingerColors.length];

  /** The flatcube squares as the server lays them out when a hello has no regions. */
  function defaultRegions(w, h) {
    const s = 0.4 * Math.min(w, h), cx = w / 2, cy = h / 2;
    return [
      { id: "red", x: cx - s / 2, y: cy - (3 * s) / 4, width: s, height: s },
      { id: "yellowLeft", x: cx - (3 * s) / 4, y: cy - s / 4, width: s, height: s },
      { id: "yellowRight", x: cx - s / 4, y: cy - s / 4, width: s, height: s },
    ];
  }

  /**
   * Draws a scene state on a 2D context whose units are the source's points.
   * `view`: "pad" draws what the person holding the phone sees, "watch" adds overviews.
   */
  function drawScene(ctx, state, w, h, view) {
    if (!state) return;
    ctx.save();
    if (state.scene === "flatcube") drawFlatcube(ctx, state, w, h);
    else if (state.scene === "zoom") drawZoom(ctx, state, w, h, view);
    else if (state.scene === "sketch") drawSketch(ctx, state);
    ctx.restore();
  }

  function drawFlatcube(ctx, state, w, h) {
    const regions = state.regions && state.regions.length ? state.regions : defaultRegions(w, h);
    // Listed order is z order (first is topmost): draw bottom first.
    for (let i = regions.length - 1; i >= 0; i--) {
      const r = regions[i];
      ctx.fillStyle = r.id === "red" ? "rgba(230, 57, 70, 0.75)" : "rgba(255, 209, 102, 0.7)";
      ctx.strokeStyle = "rgba(255,255,255,0.8)";
      ctx.lineWidth = 2;
      ctx.fillRect(r.x, r.y, r.width, r.height);
      ctx.strokeRect(r.x, r.y, r.width, r.height);
    }
    const c = state.counters || {};
    const size = Math.max(14, Math.min(w, h) / 14);
    ctx.font = "600 " + size + "px system-ui, sans-serif";
    ctx.textBaseline = "top";
    ctx.fillStyle = "#e63946";
    ctx.fillText("red " + (c.red || 0), 12, 12);
    ctx.fillStyle = "#ffd166";
    ctx.fillText("yellow " + (c.yellow || 0), 12, 12 + size * 1.3);
    ctx.fillStyle = "#ccc";
    ctx.font = Math.round(size * 0.7) + "px system-ui, sans-serif";
    ctx.fillText(state.recognizeAny ? "recognize any: on" : "recognize any: off", 12, 12 + size * 2.6);
  }

  /** Zoom: the content (a labelled grid over the surface) at `scale` around `centre`. */
  function drawZoom(ctx, state, w, h, view) {
    const s = state.scale || 1;
    const c = state.centre || { x: w / 2, y: h / 2 };
    const toView = (x, y) => [(x - c.x) * s + w / 2, (y - c.y) * s + h / 2];
    const step = Math.min(w, h) / 6;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, 0, w, h);
    ctx.clip();
    ctx.lineWidth = 1;
    for (let gx = 0, i = 0; gx <= w + 0.5; gx += step, i++) {
      for (let gy = 0, j = 0; gy <= h + 0.5; gy += step, j++) {
        const [x, y] = toView(gx, gy);
        if ((i + j) % 2 === 0) {
          ctx.fillStyle = "rgba(76, 201, 240, 0.18)";
          ctx.fillRect(x, y, step * s, step * s);
        }
        if (step * s > 28) {
          ctx.fillStyle = "rgba(255,255,255,0.55)";
          ctx.font = Math.min(48, 10 + 0.12 * step * s) + "px system-ui, sans-serif";
          ctx.textBaseline = "top";
          ctx.fillText(String.fromCharCode(65 + (j % 26)) + (i + 1), x + 4, y + 4);
        }
      }
    }
    ctx.restore();
    if (view === "watch" && s > 1) {
      // The viewport over the whole content, as a small overview in the corner.
      const k = 0.25, ox = w - w * k - 8, oy = 8;
      ctx.fillStyle = "rgba(0,0,0,0.55)";
      ctx.fillRect(ox, oy, w * k, h * k);
      ctx.strokeStyle = "#888";
      ctx.strokeRect(ox, oy, w * k, h * k);
      ctx.strokeStyle = "#f72585";
      ctx.lineWidth = 2;
      ctx.strokeRect(ox + (c.x - w / (2 * s)) * k, oy + (c.y - h / (2 * s)) * k, (w / s) * k, (h / s) * k);
    }
    ctx.fillStyle = "#fff";
    ctx.font = "600 16px system-ui, sans-serif";
    ctx.textBaseline = "bottom";
    ctx.fillText("zoom ×" + s.toFixed(2), 12, h - 12);
  }

  function polyline(ctx, points) {
    if (!points || points.length === 0) return;
    ctx.beginPath();
    ctx.moveTo(points[0][0], points[0][1]);
    for (let i = 1; i < points.length; i++) ctx.lineTo(points[i][0], points[i][1]);
    if (points.length === 1) ctx.lineTo(points[0][0] + 0.1, points[0][1]);
    ctx.stroke();
  }

  /**
   * A line whose width follows its pen's pressure (gestures.md, sketch: `widths`, one per
   * point): each segment as wide as its two ends' mean, `extra` added (the selection's).
   */
  function pressureLine(ctx, points, widths, extra) {
    if (points.length < 2) {
      ctx.lineWidth = widths[0] + extra;
      polyline(ctx, points);
      return;
    }
    for (let i = 1; i < points.length; i++) {
      ctx.lineWidth = (widths[i - 1] + widths[i]) / 2 + extra;
      ctx.beginPath();
      ctx.moveTo(points[i - 1][0], points[i - 1][1]);
      ctx.lineTo(points[i][0], points[i][1]);
      ctx.stroke();
    }
  }

  function drawSketch(ctx, state) {
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    (state.lines || []).forEach((line, i) => {
      const selected = state.selected === i;
      ctx.strokeStyle = selected ? "#f72585" : "#e0e0e0";
      if (line.widths && line.points && line.widths.length === line.points.length) {
        pressureLine(ctx, line.points, line.widths, selected ? 3 : 0);
        return;
      }
      ctx.lineWidth = selected ? 7 : 4;
      polyline(ctx, line.points);
    });
    (state.drawing || []).forEach((line) => {
      ctx.strokeStyle = fingerColor(line.touch);
      if (line.widths && line.points && line.widths.length === line.points.length) {
        pressureLine(ctx, line.points, line.widths, 0);
        return;
      }
      ctx.lineWidth = 4;
      polyline(ctx, line.points);
    });
  }

  /** Sizes a canvas for its CSS box and the screen's pixel ratio; returns the CSS size. */
  function fitCanvas(canvas) {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    return { width: r.width, height: r.height, dpr: dpr };
  }

  // The connection badge both pages show: a function that sets its text and state class.
  function stateBadge(el) {
    return function (text, cls) {
      el.textContent = text;
      el.className = "state " + cls;
    };
  }

  /** Full screen on and off: `button`'s click and the `f` key. */
  function fullScreenToggle(button) {
    function toggle() {
      const el = document.documentElement;
      const current = document.fullscreenElement || document.webkitFullscreenElement;
      try {
        if (current) {
          const exit = document.exitFullscreen || document.webkitExitFullscreen;
          const p = exit && exit.call(document);
          if (p && p.catch) p.catch(() => {});
        } else {
          const enter = el.requestFullscreen || el.webkitRequestFullscreen;
          const p = enter && enter.call(el);
          if (p && p.catch) p.catch(() => {});
        }
      } catch (_) { /* full screen refused: the page stays as it is */ }
    }
    button.addEventListener("click", () => {
      toggle();
      button.blur(); // the space bar is the replay page's play key, not this button's
    });
    window.addEventListener("keydown", (e) => {
      if ((e.key === "f" || e.key === "F") && !e.ctrlKey && !e.metaKey && !e.altKey) toggle();
    });
  }

  /**
   * Keeps the screen awake where the browser offers the Screen Wake Lock API, asking again
   * when the page is shown again or touched (a browser may want a user gesture first).
   * Returns a function that tells whether the lock is held.
   */
  function keepAwake() {
    let lock = null;
    function ask() {
      if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || lock) return;
      navigator.wakeLock.request("screen").then(
        (l) => {
          lock = l;
          l.addEventListener("release", () => { lock = null; });
        },
        () => {}); // refused (no user gesture yet, a policy): the screen may sleep
    }
    document.addEventListener("visibilitychange", ask);
    window.addEventListener("pointerdown", ask);
    window.addEventListener("keydown", ask);
    ask();
    return () => lock !== null;
  }

  return {
    sessionPattern, session, param, wsURL, describe, gestureColors, fingerColor, defaultRegions,
    drawScene, fitCanvas, stateBadge, fullScreenToggle, keepAwake,
  };
})();
