// The drawing of a session for a big screen: one tile per source (an element with
// `data-source-id`), laid out to keep every surface as large as the container allows, with
// the fingers, their trails, the scene and each gesture drawn large on it.
// Messages only change state (`receive`); `draw` paints the latest state, once per animation
// frame, so a page keeps up however fast the messages come. Times are the caller's clock in
// ms (`now`), so the same drawing serves a live page and a recording played back.
// Needs common.js (TR) loaded first.

const TRAIL_MS = 1200; // how much of a finger's path is drawn behind it
const TRAIL_BANDS = 6;
const FADE_MS = 1600; // how long a gesture stays drawn after it ended
const GAP = 8; // CSS px between tiles and around them
const LABELS_PER_TILE = 3;
// A canvas in memory, not on a GPU: WebKitGTK's accelerated canvas, where the GPU is a
// software one (a VM, a kiosk box without drivers), gave about one frame a second in the
// browser test with four sources drawing; in memory several times more. These few shapes a
// frame cost a CPU little.
const CANVAS_OPTIONS = { willReadFrequently: true };

/** A finger's radius in surface points: from radiusX/Y, else force, else a steady size. */
function fingerRadius(t) {
  const rx = typeof t.radiusX === "number" ? t.radiusX : null;
  const ry = typeof t.radiusY === "number" ? t.radiusY : null;
  if (rx !== null || ry !== null) return Math.min(90, Math.max(10, Math.max(rx || 0, ry || 0)));
  if (typeof t.radius === "number") return Math.min(90, Math.max(10, t.radius));
  if (typeof t.force === "number") return 14 + 26 * Math.min(1, Math.max(0, t.force));
  return 22;
}

/**
 * Columns for `n` tiles in a `width` x `height` box: the count whose smallest surface (each
 * scaled to fit its tile) is largest, the total area breaking ties.
 */
export function bestColumns(devices, width, height) {
  const n = devices.length;
  let best = { columns: 1, rows: 1, smallest: -1, total: -1 };
  for (let c = 1; c <= n; c++) {
    const r = Math.ceil(n / c);
    const tw = (width - GAP * (c + 1)) / c, th = (height - GAP * (r + 1)) / r;
    if (tw <= 0 || th <= 0) continue;
    let smallest = Infinity, total = 0;
    for (const d of devices) {
      const k = Math.min(tw / d.width, th / d.height);
      const area = k * k * d.width * d.height;
      smallest = Math.min(smallest, area);
      total += area;
    }
    if (smallest > best.smallest * 1.0001 || (smallest > best.smallest * 0.9999 && total > best.total)) {
      best = { columns: c, rows: r, smallest: smallest, total: total, tileWidth: tw, tileHeight: th };
    }
  }
  return best;
}

export class Wall {
  /**
   * `container`: the element the tiles go in (it is given a grid). `options.kiosk`: surfaces
   * only. `options.onSources(list)`: called when sources come or go.
   */
  constructor(container, options) {
    this.container = container;
    this.options = options || {};
    this.sources = new Map(); // id -> source state, in join order
    this.needsLayout = true;
    this.stats = { messages: 0, draws: 0, drawMs: 0 };
    this.changed = true; // since the last draw: a message, a layout, something still fading
  }

  // MARK: state

  sourceFor(id, info) {
    let s = this.sources.get(id);
    if (!s) {
      s = this.makeSource(id);
      this.sources.set(id, s);
      this.needsLayout = true;
      if (this.options.onSources) this.options.onSources([...this.sources.values()]);
    }
    if (info) {
      if (info.device && (info.device.width !== s.device.width || info.device.height !== s.device.height)) {
        this.needsLayout = true;
      }
      if (info.device) s.device = info.device;
      if ("scene" in info) s.scene = info.scene || null;
      s.nameEl.textContent = s.device.name + (s.scene ? " · " + s.scene : "");
    }
    return s;
  }

  makeSource(id) {
    const tile = document.createElement("section");
    tile.className = "source tile";
    tile.dataset.sourceId = id;
    tile.innerHTML =
      '<canvas class="surface"></canvas><div class="tile-name"></div><div class="tile-controls"></div>' +
      '<ol class="log"></ol>';
    const labels = [];
    for (let i = 0; i < LABELS_PER_TILE; i++) {
      const l = document.createElement("div");
      l.className = "gesture-label";
      l.hidden = true;
      tile.appendChild(l);
      labels.push(l);
    }
    this.container.appendChild(tile);
    return {
      id: id, tile: tile, canvas: tile.querySelector("canvas"), nameEl: tile.querySelector(".tile-name"),
      controlsEl: tile.querySelector(".tile-controls"), controlsFor: undefined,
      logEl: tile.querySelector(".log"), labels: labels,
      device: { name: "?", width: 400, height: 800 }, scene: null, sceneState: null,
      fingers: new Map(), trails: new Map(), gestures: new Map(), log: [], logDirty: false,
      box: null, lastSeq: null, missed: 0, frames: 0,
    };
  }

  removeSource(id) {
    const s = this.sources.get(id);
    if (!s) return;
    s.tile.remove();
    this.sources.delete(id);
    this.needsLayout = true;
    if (this.options.onSources) this.options.onSources([...this.sources.values()]);
  }

  /** Drops every source (a recording seeks from its start again). */
  clear() {
    for (const id of [...this.sources.keys()]) this.removeSource(id);
  }

  addLog(s, text, gesture) {
    s.log.unshift({ text: text, gesture: gesture });
    if (s.log.length > 6) s.log.pop();
    s.logDirty = true;
  }

  /** One relay message (as an observer with `?raw=1` gets it) at time `now`. */
  receive(m, now) {
    this.stats.messages += 1;
    this.changed = true;
    switch (m.type) {
      case "welcome": {
        const present = new Set((m.sources || []).map((info) => info.id));
        for (const id of [...this.sources.keys()]) if (!present.has(id)) this.removeSource(id);
        for (const info of m.sources || []) this.sourceFor(info.id, info);
        for (const sc of m.scenes || []) this.sourceFor(sc.source).sceneState = sc.state;
        break;
      }
      case "source":
        if (m.event === "left") {
          this.removeSource(m.source);
        } else {
          const s = this.sourceFor(m.source, m);
          this.addLog(s, m.event === "updated" ? "hello again" : m.event, null);
        }
        break;
      case "touches": {
        const s = this.sourceFor(m.source);
        if (s.lastSeq !== null && m.seq > s.lastSeq + 1) s.missed += m.seq - s.lastSeq - 1;
        if (s.lastSeq !== null && m.seq < s.lastSeq) s.lastSeq = null; // a new connection
        s.lastSeq = m.seq;
        s.frames += 1;
        const seen = new Set();
        for (const t of m.touches || []) {
          if (t.phase === "ended" || t.phase === "cancelled") {
            s.fingers.delete(t.id);
            continue;
          }
          seen.add(t.id);
          if (t.hover === true) {
            // A pen above the glass: where it is, but no trail (it draws nothing).
            s.trails.delete(t.id);
            s.fingers.set(t.id, { x: t.x, y: t.y, r: fingerRadius(t), hover: true });
            continue;
          }
          if (t.phase === "began" || !s.trails.has(t.id)) s.trails.set(t.id, []);
          s.fingers.set(t.id, { x: t.x, y: t.y, r: fingerRadius(t) });
          const trail = s.trails.get(t.id);
          trail.push({ x: t.x, y: t.y, at: now });
          // Bounded however fast the source sends: what is older than the trail is dropped.
          while (trail.length > 2 && now - trail[0].at > TRAIL_MS) trail.shift();
          if (trail.length > 600) trail.shift();
        }
        for (const id of [...s.fingers.keys()]) if (!seen.has(id)) s.fingers.delete(id);
        break;
      }
      case "gesture": {
        const s = this.sourceFor(m.source);
        const was = s.gestures.get(m.id);
        const entry = { g: m, began: was ? was.began : now, ended: null, label: TR.describe(m) };
        if (m.state !== "began" && m.state !== "changed") {
          entry.ended = now;
          if (m.state === "cancelled") {
            entry.label = m.gesture + " cancelled";
            this.addLog(s, entry.label, m.gesture);
          } else {
            this.addLog(s, entry.label, m.gesture);
          }
        } else if (m.state === "began") {
          this.addLog(s, m.gesture + " began", m.gesture);
        }
        s.gestures.set(m.id, entry);
        break;
      }
      case "scene": {
        const s = this.sourceFor(m.source);
        s.sceneState = m.state;
        if (m.state && m.state.scene) s.scene = m.state.scene;
        break;
      }
    }
  }

  /** Lets go of every finger (the connection dropped: nothing is down any more). */
  liftAll() {
    for (const s of this.sources.values()) s.fingers.clear();
  }

  // MARK: layout

  layout() {
    this.needsLayout = false;
    const width = this.container.clientWidth, height = this.container.clientHeight;
    this.laidOutIn = [width, height];
    const list = [...this.sources.values()];
    if (!list.length) return;
    const best = bestColumns(list.map((s) => s.device), width, height);
    if (best.smallest < 0) return;
    const tw = Math.floor(best.tileWidth), th = Math.floor(best.tileHeight);
    this.container.style.gridTemplateColumns = "repeat(" + best.columns + ", " + tw + "px)";
    this.container.style.gridTemplateRows = "repeat(" + best.rows + ", " + th + "px)";
    const dpr = window.devicePixelRatio || 1;
    for (const s of list) {
      const k = Math.min(tw / s.device.width, th / s.device.height);
      const cw = Math.floor(s.device.width * k), ch = Math.floor(s.device.height * k);
      s.box = { k: k, width: cw, height: ch, left: (tw - cw) / 2, top: (th - ch) / 2, dpr: dpr };
      s.canvas.style.width = cw + "px";
      s.canvas.style.height = ch + "px";
      s.canvas.style.left = s.box.left + "px";
      s.canvas.style.top = s.box.top + "px";
      s.canvas.width = Math.max(1, Math.round(cw * dpr));
      s.canvas.height = Math.max(1, Math.round(ch * dpr));
    }
  }

  // MARK: drawing

  /** Paints every tile as its source is at `now`, unless nothing has changed since the last. */
  draw(now) {
    // The header wraps as sources come, the window changes size, full screen comes and goes:
    // read before anything of this frame is written, the size costs no extra layout.
    const room = [this.container.clientWidth, this.container.clientHeight];
    if (!this.laidOutIn || room[0] !== this.laidOutIn[0] || room[1] !== this.laidOutIn[1]) this.needsLayout = true;
    if (!this.changed && !this.needsLayout) return false;
    const started = performance.now();
    if (this.needsLayout) this.layout();
    this.changed = false;
    this.stats.draws += 1;
    for (const s of this.sources.values()) {
      if (!s.box) continue;
      this.drawSource(s, now);
      this.placeLabels(s, now);
      if (s.logDirty) this.renderLog(s);
    }
    this.stats.drawMs += performance.now() - started;
    return true;
  }

  drawSource(s, now) {
    const ctx = s.canvas.getContext("2d", CANVAS_OPTIONS);
    const { k, dpr } = s.box;
    const w = s.device.width, h = s.device.height;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, 0, 0);
    ctx.globalAlpha = 1;
    ctx.fillStyle = "#0d1321";
    ctx.fillRect(0, 0, w, h);
    TR.drawScene(ctx, s.sceneState, w, h, "watch");

    // Trails: each finger's recent path, older parts fainter: a few bands of age, one path
    // each, however many samples the source sends.
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.lineWidth = 5 / Math.max(0.3, k);
    for (const [id, trail] of s.trails) {
      const last = trail[trail.length - 1];
      if (!last || (now - last.at > TRAIL_MS && !s.fingers.has(id))) {
        s.trails.delete(id);
        continue;
      }
      this.changed = true; // still fading
      ctx.strokeStyle = TR.fingerColor(id);
      let i = 1;
      while (i < trail.length && now - trail[i].at > TRAIL_MS) i++;
      for (let band = 0; band < TRAIL_BANDS && i < trail.length; band++) {
        const until = TRAIL_MS * (1 - (band + 1) / TRAIL_BANDS); // ages in this band are above it
        ctx.globalAlpha = 0.8 * ((band + 1) / TRAIL_BANDS);
        ctx.beginPath();
        ctx.moveTo(trail[i - 1].x, trail[i - 1].y);
        for (; i < trail.length && (now - trail[i].at > until || band === TRAIL_BANDS - 1); i++) {
          ctx.lineTo(trail[i].x, trail[i].y);
        }
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;

    for (const [gid, e] of s.gestures) {
      const age = e.ended === null ? 0 : now - e.ended;
      if (age > FADE_MS) {
        s.gestures.delete(gid);
        continue;
      }
      if (e.ended !== null) this.changed = true; // still fading
      ctx.globalAlpha = e.ended === null ? 1 : 1 - age / FADE_MS;
      this.drawGesture(ctx, e, now, k);
    }
    ctx.globalAlpha = 1;

    for (const [id, p] of s.fingers) {
      ctx.beginPath();
      ctx.arc(p.x, p.y, p.r, 0, Math.PI * 2);
      ctx.lineWidth = 3 / Math.max(0.3, k);
      ctx.strokeStyle = TR.fingerColor(id);
      if (p.hover) {
        // Hovering: a dashed ring, not filled (it touches nothing).
        ctx.setLineDash([6 / Math.max(0.3, k), 6 / Math.max(0.3, k)]);
        ctx.stroke();
        ctx.setLineDash([]);
        continue;
      }
      ctx.fillStyle = TR.fingerColor(id) + "66";
      ctx.fill();
      ctx.stroke();
    }
  }

  /** A gesture's shape around its centre, in surface points (`k`: CSS px per point). */
  drawGesture(ctx, e, now, k) {
    const g = e.g;
    const color = TR.gestureColors[g.gesture] || "#fff";
    const unit = 1 / Math.max(0.3, k); // one CSS px in points
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 6 * unit;
    const base = 70 * unit;
    switch (g.gesture) {
      case "tap": {
        // A ripple: one ring per tap, growing as it fades.
        const grow = Math.min(1, (now - (e.ended === null ? now : e.ended)) / FADE_MS);
        const taps = Math.max(1, g.taps || 1);
        for (let i = 0; i < taps; i++) {
          ctx.beginPath();
          ctx.arc(g.x, g.y, (30 + 35 * i + 90 * grow) * unit, 0, Math.PI * 2);
          ctx.stroke();
        }
        break;
      }
      case "longpress":
        ctx.beginPath();
        ctx.arc(g.x, g.y, base, 0, Math.PI * 2);
        ctx.stroke();
        ctx.beginPath();
        ctx.arc(g.x, g.y, base * 0.4, 0, Math.PI * 2);
        ctx.fill();
        break;
      case "pinch": {
        // The unit circle dashed, the pinched one solid: their ratio is the scale.
        ctx.setLineDash([12 * unit, 10 * unit]);
        ctx.beginPath();
        ctx.arc(g.x, g.y, base, 0, Math.PI * 2);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.arc(g.x, g.y, Math.max(4 * unit, base * (g.scale || 1)), 0, Math.PI * 2);
        ctx.stroke();
        break;
      }
      case "rotation": {
        const a = g.rotation || 0;
        const r = base * 1.3;
        ctx.beginPath();
        ctx.moveTo(g.x, g.y);
        ctx.lineTo(g.x + r, g.y);
        ctx.stroke();
        ctx.beginPath();
        ctx.arc(g.x, g.y, r, 0, a, a < 0);
        ctx.stroke();
        ctx.beginPath();
        ctx.moveTo(g.x, g.y);
        ctx.lineTo(g.x + r * Math.cos(a), g.y + r * Math.sin(a));
        ctx.stroke();
        break;
      }
      case "swipe": {
        const d = { left: [-1, 0], right: [1, 0], up: [0, -1], down: [0, 1] }[g.direction] || [1, 0];
        arrow(ctx, g.x - d[0] * base, g.y - d[1] * base, g.x + d[0] * base * 1.6, g.y + d[1] * base * 1.6, unit);
        break;
      }
      case "pan": {
        const tr = g.translation || { x: 0, y: 0 };
        if (Math.hypot(tr.x, tr.y) > 1) arrow(ctx, g.x - tr.x, g.y - tr.y, g.x, g.y, unit);
        break;
      }
      case "shape": {
        // The drawing's bounding box; its name and score are the label's (TR.describe).
        const b = g.bounds;
        if (b) {
          ctx.setLineDash([12 * unit, 10 * unit]);
          ctx.strokeRect(b.x, b.y, b.width, b.height);
          ctx.setLineDash([]);
        }
        break;
      }
      default:
        ctx.beginPath();
        ctx.arc(g.x, g.y, base * 0.5, 0, Math.PI * 2);
        ctx.stroke();
    }
  }

  /** The gestures' names, large, beside their centres: the newest few of the tile. */
  placeLabels(s, now) {
    const shown = [...s.gestures.values()].sort((a, b) => b.began - a.began).slice(0, s.labels.length);
    s.labels.forEach((el, i) => {
      const e = shown[i];
      if (!e) {
        if (!el.hidden) el.hidden = true;
        return;
      }
      const text = e.label + (e.ended === null ? "…" : "");
      if (el.textContent !== text) el.textContent = text;
      el.hidden = false;
      el.dataset.gesture = e.g.gesture;
      el.style.color = TR.gestureColors[e.g.gesture] || "#fff";
      el.style.opacity = String(e.ended === null ? 1 : Math.max(0, 1 - (now - e.ended) / FADE_MS));
      const b = s.box;
      // Half a line of the label's font (style.css: max(4vh, 18px)), so that one near an edge
      // stays whole inside the tile.
      const half = 0.6 * Math.max(0.04 * window.innerHeight, 18);
      const x = Math.min(b.left + b.width - 8, Math.max(b.left + 8, b.left + e.g.x * b.k));
      const y = Math.min(b.top + b.height - half, Math.max(b.top + half, b.top + e.g.y * b.k - 60 * (i + 1)));
      // Centred on the gesture, kept inside the tile (the translate's percentages).
      const fx = x < b.left + b.width / 3 ? 0 : x > b.left + (2 * b.width) / 3 ? -100 : -50;
      el.style.transform = "translate(" + x + "px, " + y + "px) translate(" + fx + "%, -50%)";
    });
  }

  renderLog(s) {
    s.logDirty = false;
    s.logEl.textContent = "";
    for (const entry of s.log) {
      const li = document.createElement("li");
      li.textContent = entry.text;
      if (entry.gesture) li.style.color = TR.gestureColors[entry.gesture] || "";
      s.logEl.appendChild(li);
    }
  }
}

function arrow(ctx, x0, y0, x1, y1, unit) {
  const a = Math.atan2(y1 - y0, x1 - x0), head = 28 * unit;
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - head * Math.cos(a - 0.45), y1 - head * Math.sin(a - 0.45));
  ctx.lineTo(x1 - head * Math.cos(a + 0.45), y1 - head * Math.sin(a + 0.45));
  ctx.closePath();
  ctx.fill();
}
