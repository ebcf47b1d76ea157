// TouchRelay for web apps: an ES module with no dependencies and no build step, served by the
// relay at /sdk/touchrelay.js (with Access-Control-Allow-Origin: *, so a page of any origin may
// import it). Protocol: protocol/README.md; guide: docs/clients.md.
//
//   observe(url, options) -> Observer: the session's messages as typed events, reconnecting,
//     with the sources and scene states kept (`observer.session`).
//   source(url, device, options) -> Source: a touch surface; the samples recorded in one task
//     (one input event with its coalesced samples, or one animation frame) go out together in
//     one `frames` message, and a dropped connection resumes the same source id.

export const PROTOCOL = "touchrelay.v1";

/** Reconnection delays: 0.5 s doubling to 8 s, with jitter; reset after a good connection. */
export class Backoff {
  constructor() { this.attempt = 0; }
  next() {
    const base = Math.min(8000, 500 * Math.pow(2, this.attempt++));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }
  reset() { this.attempt = 0; }
}

/** A relay message as an event: `event.message` is the message's JSON object. */
export class RelayEvent extends Event {
  constructor(type, message) {
    super(type);
    this.message = message;
  }
}

// Close codes after which trying again cannot help: a token refused; for a source also a
// policy close (1008: a token expired, which a page cannot renew). An observer closed with
// 1008 for falling too far behind comes back.
const refusedBySource = new Set([1008, 4401, 4403]);
const refusedByObserver = new Set([4401, 4403]);

/** `url` with `params` added to its query (null and undefined left out). */
function withQuery(url, params) {
  const u = new URL(url, typeof location !== "undefined" ? location.href : undefined);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.searchParams.set(k, v);
  return u.toString();
}

/**
 * One WebSocket that comes back after a drop. `onOpen(ws)` is called on each connection,
 * `onMessage(m)` with each parsed message; `state` events say how the connection is:
 * `connecting`, `live` (after the welcome), `offline` (with `delay`, ms to the next try),
 * `refused` (with `code`), `closed`.
 */
class Connection extends EventTarget {
  constructor(url, handlers) {
    super();
    this.url = url;
    this.handlers = handlers;
    this.backoff = new Backoff();
    this.ws = null;
    this.timer = null;
    this.closed = false;
    // After the caller has added its listeners, so they see the first state too.
    queueMicrotask(() => this.connect());
  }

  get open() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  setState(state, detail) {
    this.state = state;
    const e = new RelayEvent("state", Object.assign({ state: state }, detail || {}));
    this.dispatchEvent(e);
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.closed) return;
    this.setState("connecting", { retry: this.backoff.attempt > 0 });
    const ws = new WebSocket(this.url, PROTOCOL);
    this.ws = ws;
    ws.onopen = () => { if (ws === this.ws) this.handlers.onOpen(ws); };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.type === "welcome") this.backoff.reset();
      this.handlers.onMessage(m);
    };
    ws.onclose = (e) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.handlers.onClose(e);
      if (this.closed) return this.setState("closed", { code: e.code });
      if (this.handlers.refused.has(e.code)) return this.setState("refused", { code: e.code, reason: e.reason });
      this.retry();
    };
    ws.onerror = () => {}; // onclose follows
  }

  retry() {
    if (this.timer || this.closed) return;
    const delay = this.backoff.next();
    this.setState("offline", { delay: delay });
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Tries at once (say when a page becomes visible again) if not connected. */
  wake() {
    if (this.ws || this.closed) return;
    this.backoff.reset();
    this.connect();
  }

  send(message) {
    if (this.open) this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
    else this.setState("closed", {});
  }
}

/**
 * An observer of a session. `url`: `ws(s)://host/v1/observe/SESSION`. `options`: `raw` (also
 * raw `touches`), `source` (one source id), `gestures` (array of kinds), `token`.
 * Events (each a RelayEvent with `.message`): `welcome`, `source`, `touches`, `gesture`,
 * `scene`, `dropped`, `error`, and `state` for the connection. Listen with
 * `addEventListener` or `observer.on(type, fn)` (fn gets the message).
 * `session.sources` (id -> source info) and `session.scenes` (id -> scene state) follow the
 * messages; each welcome, on every reconnect, replaces them with the server's snapshot, and a
 * `scene` older than the state kept is not passed on.
 */
export class Observer extends EventTarget {
  constructor(url, options) {
    super();
    const o = options || {};
    this.session = { sources: new Map(), scenes: new Map() };
    this.sceneSeq = new Map();
    const params = {
      raw: o.raw ? "1" : null, source: o.source, token: o.token,
      gestures: Array.isArray(o.gestures) ? o.gestures.join(",") : o.gestures,
    };
    this.connection = new Connection(withQuery(url, params), {
      onOpen: () => {},
      onMessage: (m) => this.receive(m),
      onClose: () => {},
      refused: refusedByObserver,
    });
    this.connection.addEventListener("state", (e) => this.dispatchEvent(new RelayEvent("state", e.message)));
  }

  /** `fn(message)` for every message of `type`; returns the observer. */
  on(type, fn) {
    this.addEventListener(type, (e) => fn(e.message));
    return this;
  }

  receive(m) {
    const s = this.session;
    switch (m.type) {
      case "welcome":
        s.sources = new Map((m.sources || []).map((info) => [info.id, info]));
        s.scenes = new Map((m.scenes || []).map((sc) => [sc.source, sc.state]));
        this.sceneSeq = new Map();
        this.connection.setState("live", { welcome: m });
        break;
      case "source":
        if (m.event === "left") {
          s.sources.delete(m.source);
          s.scenes.delete(m.source);
        } else {
          s.sources.set(m.source, { id: m.source, device: m.device, scene: m.scene });
        }
        // A source that (re)joined starts its seq again.
        this.sceneSeq.delete(m.source);
        break;
      case "scene": {
        const kept = this.sceneSeq.get(m.source);
        if (m.seq !== undefined && kept !== undefined && m.seq < kept) return;
        if (m.seq !== undefined) this.sceneSeq.set(m.source, m.seq);
        s.scenes.set(m.source, m.state);
        break;
      }
    }
    this.dispatchEvent(new RelayEvent(m.type, m));
  }

  /** Sends a `control` (observers may drive a source's scene). */
  control(message) { this.connection.send(Object.assign({ type: "control" }, message)); }

  /** Connects again at once if offline. */
  wake() { this.connection.wake(); }

  close() { this.connection.close(); }
}

export function observe(url, options) {
  return new Observer(url, options);
}

/**
 * A source: `url` is `ws(s)://host/v1/source/SESSION`, `device` `{name, width, height}` in
 * points (CSS pixels). `options`: `scene`, `regions`, `config` (as in `hello`), `token`.
 * Record what fingers do with `sample(t, changes)`: `changes` lists the fingers this sample
 * is about (`{id, phase, x, y, force?}`); the other fingers down are sent as `stationary`.
 * Samples recorded in one task go out together (a `frames` message, up to the server's
 * `maxFramesPerMessage`). `seq` keeps increasing and `t` never goes back across reconnects;
 * after a drop the source comes back with `resume` (same id) and re-announces the fingers
 * still down. Events: `welcome`, `error`, `state`.
 */
export class Source extends EventTarget {
  constructor(url, device, options) {
    super();
    const o = options || {};
    this.device = device;
    this.scene = o.scene || null;
    this.regions = o.regions || null;
    this.config = o.config || null;
    this.id = null;
    this.live = false;
    this.seq = 0;
    this.lastT = 0;
    this.perMessage = 1;
    this.down = new Map(); // id -> {x, y, force, radiusX, radiusY}
    this.announced = new Set(); // ids down in the last frame this connection sent
    this.pending = [];
    this.flushQueued = false;
    this.connection = new Connection(withQuery(url, { token: o.token }), {
      onOpen: () => this.connection.send(this.helloMessage(this.id)),
      onMessage: (m) => this.receive(m),
      onClose: () => {
        this.live = false;
        this.pending = [];
      },
      refused: refusedBySource,
    });
    this.connection.addEventListener("state", (e) => this.dispatchEvent(new RelayEvent("state", e.message)));
  }

  on(type, fn) {
    this.addEventListener(type, (e) => fn(e.message));
    return this;
  }

  helloMessage(resume) {
    const hello = { type: "hello", device: this.device };
    if (this.scene) hello.scene = this.scene;
    if (this.regions) hello.regions = this.regions;
    if (this.config) hello.config = this.config;
    if (resume) hello.resume = resume;
    return hello;
  }

  receive(m) {
    if (m.type === "welcome") {
      this.id = m.source;
      this.live = true;
      this.announced = new Set();
      const limits = m.limits || {};
      this.perMessage = Math.max(1, m.maxFramesPerMessage || limits.maxFramesPerMessage || 1);
      this.connection.setState("live", { welcome: m });
      this.dispatchEvent(new RelayEvent("welcome", m));
      // Fingers still down after a reconnect are announced again (the server's state is new).
      if (this.down.size) this.sample(this.lastT, []);
      return;
    }
    this.dispatchEvent(new RelayEvent(m.type, m));
  }

  /** Says hello again with a new device size, scene, regions or config. */
  update(changes) {
    if (changes.device) this.device = changes.device;
    if ("scene" in changes) this.scene = changes.scene || null;
    if ("regions" in changes) this.regions = changes.regions || null;
    if ("config" in changes) this.config = changes.config || null;
    if (this.live) this.connection.send(this.helloMessage(null));
  }

  /** Records one sample at device time `t` (ms); see the class comment. */
  sample(t, changes) {
    t = Math.max(t, this.lastT);
    this.lastT = t;
    const phases = new Map();
    const lifted = [];
    for (const c of changes) {
      if (c.phase === "ended" || c.phase === "cancelled") {
        this.down.delete(c.id);
        lifted.push(c);
      } else {
        this.down.set(c.id, c);
        phases.set(c.id, c.phase);
      }
    }
    if (!this.live) return;
    const touches = [];
    for (const [id, p] of this.down) {
      const phase = this.announced.has(id) ? phases.get(id) || "stationary" : "began";
      touches.push(point(id, phase, p));
    }
    for (const c of lifted) if (this.announced.has(c.id)) touches.push(point(c.id, c.phase, c));
    // The server takes a finger missing from a frame as cancelled.
    this.announced = new Set(this.down.keys());
    this.seq += 1;
    this.pending.push({ seq: this.seq, t: round(t), touches: touches });
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Forgets a finger without a sample (the browser lost it): the next frame leaves it out. */
  forget(id) { this.down.delete(id); }

  /** The fingers down now, id -> {x, y, ...}. */
  get fingers() { return this.down; }

  /** Sends the samples recorded so far; called by itself at the end of the task. */
  flush() {
    this.flushQueued = false;
    const frames = this.pending;
    this.pending = [];
    if (!this.live) return;
    for (let i = 0; i < frames.length; i += this.perMessage) {
      const part = frames.slice(i, i + this.perMessage);
      if (part.length === 1) this.connection.send(Object.assign({ type: "frame" }, part[0]));
      else this.connection.send({ type: "frames", frames: part });
    }
  }

  control(message) { this.connection.send(Object.assign({ type: "control" }, message)); }

  wake() { this.connection.wake(); }

  close() { this.connection.close(); }
}

export function source(url, device, options) {
  return new Source(url, device, options);
}

const round = (v) => Math.round(v * 100) / 100;

function point(id, phase, p) {
  const t = { id: id, phase: phase, x: round(p.x), y: round(p.y) };
  if (typeof p.force === "number") t.force = p.force;
  if (typeof p.radiusX === "number") t.radiusX = p.radiusX;
  if (typeof p.radiusY === "number") t.radiusY = p.radiusY;
  // The pen members (protocol §2.1), each only when the sample has it.
  if (typeof p.kind === "string") t.kind = p.kind;
  if (typeof p.pressure === "number") t.pressure = p.pressure;
  if (typeof p.radius === "number") t.radius = p.radius;
  if (typeof p.altitude === "number") t.altitude = p.altitude;
  if (typeof p.azimuth === "number") t.azimuth = p.azimuth;
  if (p.hover === true) t.hover = true;
  return t;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const round3 = (v) => Math.round(v * 1000) / 1000;

/**
 * A pen's altitude and azimuth (radians) from Pointer Events' `altitudeAngle`/`azimuthAngle`,
 * or from `tiltX`/`tiltY` (degrees) as Pointer Events Level 3 converts them; nothing when the
 * browser gives only the defaults (perpendicular, no tilt), which it gives when it cannot
 * measure. Clamped into the protocol's ranges, so a rounding never costs the frame.
 */
function penAngles(e, out) {
  let altitude = null, azimuth = null;
  if (typeof e.altitudeAngle === "number" && typeof e.azimuthAngle === "number") {
    altitude = e.altitudeAngle;
    azimuth = e.azimuthAngle;
  } else if (typeof e.tiltX === "number" && typeof e.tiltY === "number" && (e.tiltX !== 0 || e.tiltY !== 0)) {
    const tx = Math.tan((e.tiltX * Math.PI) / 180), ty = Math.tan((e.tiltY * Math.PI) / 180);
    azimuth = Math.atan2(ty, tx);
    if (azimuth < 0) azimuth += 2 * Math.PI;
    altitude = Math.atan(1 / Math.hypot(tx, ty));
  }
  if (altitude === null || !isFinite(altitude) || !isFinite(azimuth)) return;
  if (Math.abs(altitude - Math.PI / 2) < 1e-9 && azimuth === 0) return;
  out.altitude = round3(clamp(altitude, 0, Math.PI / 2));
  out.azimuth = round3(clamp(azimuth, 0, 2 * Math.PI));
}

/**
 * What a Pointer Event says of its contact, as the protocol's members (§2.1): `kind` (a touch
 * is a finger, the default, so none), `pressure` where the device measures it (always for a
 * pen; for others only a value other than the 0 and 0.5 that Pointer Events give when it does
 * not), `radius` from `width`/`height` (CSS px, 1 when unknown), a pen's angles, and `hover`
 * for a pen moving with no button down (above the glass).
 */
export function pointerMembers(e) {
  const m = {};
  const pen = e.pointerType === "pen";
  // Pointer Events: buttons bit 32 is a pen's eraser (its other end, or its eraser button).
  if (pen) m.kind = (e.buttons & 32) !== 0 ? "eraser" : "pen";
  else if (e.pointerType === "mouse") m.kind = "mouse";
  const hover = pen && e.buttons === 0 && e.type !== "pointerup" && e.type !== "pointercancel";
  if (hover) m.hover = true;
  if (typeof e.pressure === "number" && !hover && (pen || (e.pressure !== 0 && e.pressure !== 0.5))) {
    m.pressure = round3(clamp(e.pressure, 0, 1));
  }
  const size = Math.max(e.width || 0, e.height || 0);
  if (size > 1) m.radius = round(size / 2);
  if (pen) penAngles(e, m);
  return m;
}

/**
 * What a Touch Event's touch says of its contact: a stylus (`touchType`) is a pen with its
 * `force` as pressure and its angles (Safari); a finger's `force` is pressure only strictly
 * between 0 and 1 (0 is "not known", and a constant 1 is what screens that measure nothing
 * report); `radius` the larger of `radiusX` and `radiusY`, when more than 1.
 */
export function touchMembers(t) {
  const m = {};
  const stylus = t.touchType === "stylus";
  if (stylus) m.kind = "pen";
  if (typeof t.force === "number" && (stylus ? t.force >= 0 : t.force > 0 && t.force < 1)) {
    m.pressure = round3(clamp(t.force, 0, 1));
  }
  const r = Math.max(t.radiusX || 0, t.radiusY || 0);
  if (r > 1) m.radius = round(r); // 1 (or 0) is what browsers give when they do not know
  if (stylus && typeof t.altitudeAngle === "number" && typeof t.azimuthAngle === "number") penAngles(t, m);
  return m;
}

/** A pointer event's coalesced samples, oldest first (the event itself where there are none). */
export function coalescedEvents(e) {
  const list = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
  return list && list.length ? list : [e];
}

/**
 * Pointer Events on `element` as samples of `src`: each pointermove's coalesced samples
 * (PointerEvent.getCoalescedEvents()) in order, so they leave in one message. Coordinates are
 * relative to the element; each sample carries the pen members the event has
 * (`pointerMembers`), and a pen moving above the glass is sent as an entry of its own with
 * `hover: true`. `options`: `types`, the pointer types to take (all by default; a page with
 * Touch Events takes only pens this way), and `id`, the touch id of a pointer id (the pointer
 * id itself by default). Returns a function that removes the listeners.
 */
export function attachPointers(element, src, onChange, options) {
  const o = options || {};
  const takes = (e) => !o.types || o.types.includes(e.pointerType);
  const idOf = o.id || ((pointerId) => pointerId);
  const local = (e) => {
    const r = element.getBoundingClientRect();
    const m = pointerMembers(e);
    // A pen's pressure means something; a mouse's (0.5 while pressed) and most touch screens' do
    // not, nor a hovering pen's (0).
    const force = e.pointerType === "pen" && !m.hover ? e.pressure : undefined;
    return Object.assign({ x: e.clientX - r.left, y: e.clientY - r.top, force: force }, m);
  };
  const hovering = (id) => { const f = src.fingers.get(id); return !!f && f.hover === true; };
  // A pen above the glass is an entry of its own (`hover: true`), ended before the pen touches
  // and begun again after it lifts (protocol §2.1: a hover never turns into a touch in place).
  const endHover = (e) => {
    const id = idOf(e.pointerId);
    if (!hovering(id)) return;
    const p = Object.assign(local(e), { hover: true, force: undefined, pressure: undefined });
    src.sample(performance.now(), [Object.assign({ id: id, phase: "ended" }, p)]);
  };
  const down = (e) => {
    if (!takes(e)) return;
    e.preventDefault();
    try { element.setPointerCapture(e.pointerId); } catch (_) { /* not capturable */ }
    endHover(e);
    src.sample(performance.now(), [Object.assign({ id: idOf(e.pointerId), phase: "began" }, local(e))]);
    if (onChange) onChange();
  };
  const move = (e) => {
    if (!takes(e)) return;
    const id = idOf(e.pointerId);
    if (e.pointerType === "pen" && e.buttons === 0) {
      if (src.fingers.has(id) && !hovering(id)) return; // lifting: its pointerup ends it
      src.sample(performance.now(), [Object.assign({ id: id, phase: hovering(id) ? "moved" : "began" }, local(e))]);
      if (onChange) onChange();
      return;
    }
    if (!src.fingers.has(id) || hovering(id)) return;
    for (const c of coalescedEvents(e)) {
      src.sample(c.timeStamp || performance.now(), [Object.assign({ id: id, phase: "moved" }, local(c))]);
    }
    if (onChange) onChange();
  };
  const lift = (e) => {
    if (!takes(e)) return;
    const id = idOf(e.pointerId);
    if (hovering(id)) {
      endHover(e);
    } else if (src.fingers.has(id)) {
      const phase = e.type === "pointerup" ? "ended" : "cancelled";
      src.sample(performance.now(), [Object.assign({ id: id, phase: phase }, local(e))]);
    } else {
      return;
    }
    if (onChange) onChange();
  };
  const leave = (e) => {
    if (!takes(e) || !hovering(idOf(e.pointerId))) return;
    endHover(e);
    if (onChange) onChange();
  };
  element.addEventListener("pointerdown", down);
  element.addEventListener("pointermove", move);
  element.addEventListener("pointerup", lift);
  element.addEventListener("pointercancel", lift);
  element.addEventListener("pointerleave", leave);
  return () => {
    element.removeEventListener("pointerdown", down);
    element.removeEventListener("pointermove", move);
    element.removeEventListener("pointerup", lift);
    element.removeEventListener("pointercancel", lift);
    element.removeEventListener("pointerleave", leave);
  };
}
