// The replay page, /replay/{session}/{file}: one recording (`--record`) played in the watch
// page's drawing (wall.js). What it plays is the server's own replay of the file
// (`/recordings/{session}/{file}?as=observed`: each message observers got, with its server
// time), handed message by message to `Wall.receive`, the function the live watch page gives
// every WebSocket message: the gestures shown are the server's, none recomputed here.
// The page's clock is the recording's: `now` for the wall is ms since its first message, so
// trails and fades run at the playing speed and stop when paused.
// Play and pause: the button or the space bar; speed 0.5x to 4x; the timeline has a mark per
// gesture; a click or drag on it, or the arrow keys (a second), seek. After a seek the wall
// is as it was at that moment: played again from the start (or on from where it was, when
// the seek is forward) up to the new position without drawing, then drawn once.
import { Wall } from "/static/wall.js";

(function () {
  const parts = location.pathname.split("/");
  const session = decodeURIComponent(parts[2] || "");
  const file = decodeURIComponent(parts[3] || "");
  const token = TR.param("token");
  const query = token ? "?token=" + encodeURIComponent(token) : "";
  const setState = TR.stateBadge(document.getElementById("state"));
  const bar = document.getElementById("replay");
  const playButton = document.getElementById("play");
  const clockEl = document.getElementById("clock");
  const timeline = document.getElementById("timeline");
  const playedEl = document.getElementById("played");
  const playheadEl = document.getElementById("playhead");
  const marksEl = document.getElementById("marks");
  const emptyEl = document.getElementById("empty");
  const recordingURL = "/recordings/" + encodeURIComponent(session) + "/" + encodeURIComponent(file);

  document.getElementById("session-name").textContent = session;
  document.getElementById("file-name").textContent = file;
  document.getElementById("download").href = recordingURL + query;
  document.getElementById("live").href = "/watch/" + encodeURIComponent(session) + query;
  const kiosk = TR.param("kiosk") === "1";
  document.body.classList.toggle("kiosk", kiosk);

  const wall = new Wall(document.getElementById("sources"), {
    kiosk: kiosk,
    onSources: (list) => {
      emptyEl.hidden = list.length > 0;
      document.body.classList.toggle("has-sources", list.length > 0);
    },
  });

  const SPEED_KEYS = { 0: 0.5, 1: 1, 2: 2, 4: 4 }; // the keys 0, 1, 2, 4; the buttons say the same
  const SEEK_STEP_MS = 1000;
  let entries = []; // {at: ms since the first message, m: the message}
  let duration = 0;
  let next = 0; // the first entry not yet given to the wall
  let position = 0; // ms since the first message
  let playing = false;
  let speed = 1;
  let lastTick = null;
  const marks = []; // {id, gesture, at, label, el}

  // For tests and the curious.
  window.__replay = {
    wall: wall,
    entries: () => entries,
    marks: () => marks.map((k) => ({ id: k.id, gesture: k.gesture, at: k.at, label: k.label })),
    position: () => position,
    playing: () => playing,
    speed: () => speed,
    frames: 0, // the animation frames the page was given
    awake: null,
  };

  // MARK: loading

  fetch(recordingURL + "?as=observed" + (token ? "&token=" + encodeURIComponent(token) : ""), { cache: "no-store" })
    .then((r) => r.text().then((text) => {
      if (!r.ok) throw new Error(r.status + " " + text.trim());
      return text;
    }))
    .then(load)
    .catch((e) => {
      bar.dataset.state = "error";
      setState("cannot replay: " + e.message, "error");
      document.getElementById("empty-text").textContent = "This recording cannot be played: " + e.message;
    });

  function load(text) {
    const lines = text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
    const start = lines.length ? lines[0].rt : 0;
    entries = lines.map((l) => ({ at: l.rt - start, m: l.message }));
    duration = entries.length ? entries[entries.length - 1].at : 0;
    timeline.setAttribute("aria-valuemax", String(Math.round(duration)));
    buildMarks();
    const gestures = marks.length;
    document.getElementById("totals").textContent = entries.length + " messages · " + gestures + " gesture" +
      (gestures === 1 ? "" : "s") + " · " + clock(duration);
    if (!entries.length) document.getElementById("empty-text").textContent = "Nothing was recorded.";
    setState("paused", "offline");
    bar.dataset.state = "paused";
    seek(0);
    requestAnimationFrame(frame);
  }

  /** A mark per gesture (by its id), where it first showed, titled with how it ended. */
  function buildMarks() {
    const byId = new Map();
    for (const e of entries) {
      if (e.m.type !== "gesture") continue;
      const key = e.m.source + "/" + e.m.id;
      let k = byId.get(key);
      if (!k) {
        k = { id: e.m.id, gesture: e.m.gesture, at: e.at, label: "" };
        byId.set(key, k);
        marks.push(k);
      }
      k.label = e.m.state === "cancelled" ? e.m.gesture + " cancelled" : TR.describe(e.m);
    }
    for (const k of marks) {
      const el = document.createElement("div");
      el.className = "mark";
      el.dataset.gesture = k.gesture;
      el.dataset.at = String(k.at);
      el.title = k.label + " at " + clock(k.at);
      el.style.left = fraction(k.at) * 100 + "%";
      el.style.background = TR.gestureColors[k.gesture] || "#fff";
      k.el = el;
      marksEl.appendChild(el);
    }
  }

  // MARK: playing

  /** Gives the wall every message up to `p` (ms), at its own time. */
  function deliverUntil(p) {
    while (next < entries.length && entries[next].at <= p) {
      const e = entries[next++];
      wall.receive(e.m, e.at);
    }
  }

  /** Moves to `p`: the wall as it was then (rebuilt from the start when going back). */
  function seek(p) {
    p = Math.min(duration, Math.max(0, p));
    // Back: what a later frame let fade (a trail, a gesture's shape) must show again.
    if (p < position || (next > 0 && p < entries[next - 1].at)) {
      wall.clear();
      next = 0;
    }
    deliverUntil(p);
    position = p;
    wall.changed = true;
    showPosition();
  }

  function setPlaying(on) {
    if (on && position >= duration) seek(0); // at the end: from the start again
    playing = on && entries.length > 0;
    lastTick = null;
    playButton.textContent = playing ? "❚❚ pause" : "▶ play";
    bar.dataset.state = playing ? "playing" : position >= duration && entries.length ? "ended" : "paused";
    setState(playing ? "playing ×" + speed : bar.dataset.state, playing ? "live" : "offline");
  }

  function setSpeed(s) {
    speed = s;
    bar.dataset.speed = String(s);
    for (const b of bar.querySelectorAll(".speeds button")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === s));
    }
    if (playing) setState("playing ×" + speed, "live");
  }

  function frame(t) {
    requestAnimationFrame(frame);
    window.__replay.frames += 1;
    if (playing) {
      if (lastTick !== null) {
        const p = Math.min(duration, position + (t - lastTick) * speed);
        deliverUntil(p);
        position = p;
        showPosition();
        if (p >= duration) setPlaying(false);
      }
      lastTick = t;
    }
    // The position last drawn: a test reads the surface once it shows the position it sought.
    if (wall.draw(position)) bar.dataset.drawn = String(position);
  }

  // MARK: showing where it is

  function fraction(at) {
    return duration > 0 ? at / duration : 0;
  }

  function clock(ms) {
    const s = Math.max(0, ms) / 1000;
    const m = Math.floor(s / 60);
    return m + ":" + (s - m * 60).toFixed(1).padStart(4, "0");
  }

  function showPosition() {
    const f = fraction(position) * 100 + "%";
    playedEl.style.width = f;
    playheadEl.style.left = f;
    clockEl.textContent = clock(position) + " / " + clock(duration);
    timeline.setAttribute("aria-valuenow", String(Math.round(position)));
    bar.dataset.position = String(position);
    bar.dataset.delivered = String(next);
  }

  // MARK: controls

  playButton.addEventListener("click", () => {
    setPlaying(!playing);
    playButton.blur(); // the space bar stays the page's play key
  });
  for (const b of bar.querySelectorAll(".speeds button")) {
    b.addEventListener("click", () => {
      setSpeed(Number(b.dataset.speed));
      b.blur();
    });
  }

  // Seeking with the pointer: a press (on a gesture's mark: to that gesture), then a drag.
  let dragging = null;
  function positionAt(clientX) {
    const r = timeline.getBoundingClientRect();
    return (Math.min(r.width, Math.max(0, clientX - r.left)) / Math.max(1, r.width)) * duration;
  }
  timeline.addEventListener("pointerdown", (e) => {
    if (!entries.length) return;
    e.preventDefault();
    dragging = e.pointerId;
    try { timeline.setPointerCapture(e.pointerId); } catch (_) { /* captured or not, the drag follows */ }
    const mark = e.target.classList && e.target.classList.contains("mark") ? Number(e.target.dataset.at) : null;
    seek(mark !== null ? mark : positionAt(e.clientX));
  });
  timeline.addEventListener("pointermove", (e) => {
    if (dragging === e.pointerId) seek(positionAt(e.clientX));
  });
  const release = (e) => {
    if (dragging === e.pointerId) dragging = null;
  };
  timeline.addEventListener("pointerup", release);
  timeline.addEventListener("pointercancel", release);

  window.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !entries.length) return;
    if (e.key === " " || e.code === "Space") {
      e.preventDefault();
      if (!e.repeat) setPlaying(!playing);
    } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      seek(position + (e.key === "ArrowRight" ? SEEK_STEP_MS : -SEEK_STEP_MS));
      if (position >= duration) setPlaying(false);
    } else if (e.key in SPEED_KEYS) {
      setSpeed(SPEED_KEYS[e.key]);
    }
  });
  // A focused button would take the space bar's keyup as a click of its own.
  window.addEventListener("keyup", (e) => {
    if (e.key === " " || e.code === "Space") e.preventDefault();
  });

  // The lock is asked for first: a key that enters full screen uses up the user activation
  // WebKit asks of both.
  window.__replay.awake = TR.keepAwake();
  TR.fullScreenToggle(document.getElementById("fullscreen"));
})();
