#!/usr/bin/env python3
"""Writes the conformance vectors in this directory (run: python3 make_vectors.py).

The expectations below are worked out from the rules in protocol/gestures.md (geometry is
computed here with plain formulas), never copied from the engine's output. Each vector is a
plain JSON file; this script only saves typing. See README.md for the format.
"""
import json, math, os

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 390, 844
DEVICE = {"name": "vector-phone", "width": W, "height": H}
VECTORS = []


class Script:
    """Builds steps; every frame lists all fingers that are down (stationary if unchanged)."""

    def __init__(self):
        self.seq = 0
        self.down = {}
        self.steps = []

    def frame(self, t, changes=None, omit=(), raw=None):
        self.seq += 1
        touches = []
        changes = changes or {}
        if raw is not None:
            touches = raw
        else:
            for i, (x, y) in list(self.down.items()):
                if i not in changes and i not in omit:
                    touches.append({"id": i, "phase": "stationary", "x": x, "y": y})
            for i, (phase, x, y) in changes.items():
                touches.append({"id": i, "phase": phase, "x": x, "y": y})
        for tp in touches:
            if tp["phase"] in ("ended", "cancelled"):
                self.down.pop(tp["id"], None)
            elif tp["phase"] == "began" or tp["id"] in self.down:
                self.down[tp["id"]] = (tp["x"], tp["y"])
        for i in omit:
            self.down.pop(i, None)
        self.steps.append({"frame": {"seq": self.seq, "t": t, "touches": touches}})
        return self.seq

    def tap(self, t, x, y, id=1, dur=50):
        self.frame(t, {id: ("began", x, y)})
        self.frame(t + dur, {id: ("ended", x, y)})

    def tap2(self, t, a, b, ids=(1, 2), dur=60):
        self.frame(t, {ids[0]: ("began",) + a, ids[1]: ("began",) + b})
        self.frame(t + dur, {ids[0]: ("ended",) + a, ids[1]: ("ended",) + b})

    def coalesce(self, n):
        """Sends the frames so far in `frames` messages of up to n samples each, oldest first."""
        steps, batch = [], []
        for step in self.steps + [None]:
            if step is not None and "frame" in step and len(batch) < n:
                batch.append(step["frame"])
                continue
            if batch:
                steps.append({"frames": batch})
                batch = []
            if step is not None and "frame" in step:
                batch.append(step["frame"])
            elif step is not None:
                steps.append(step)
        self.steps = steps

    def advance(self, t):
        self.steps.append({"advance": t})

    def close(self, t):
        self.steps.append({"close": t})

    def control(self, c):
        self.steps.append({"control": c})

    def hello(self, h):
        self.steps.append({"hello": h})


def vector(name, description, script, events, hello=None, errors=None, scenes=None, scene=None,
           tolerance=1e-6, max_fingers=None, predict=None, predicted=None):
    v = {"name": name, "description": description, "tolerance": tolerance,
         "hello": hello or {"device": DEVICE}, "steps": script.steps,
         "expect": {"events": events}}
    if max_fingers is not None:
        v["maxFingers"] = max_fingers
    if predict is not None:
        v["predict"] = predict
        v["expect"]["predicted"] = predicted
    if errors:
        v["expect"]["errors"] = errors
    if scenes is not None:
        v["expect"]["scenes"] = scenes
    if scene is not None:
        v["expect"]["scene"] = scene
    VECTORS.append(v)


def hello(**kw):
    h = {"device": DEVICE}
    h.update(kw)
    return h


def ev(gesture, state, t, **kw):
    e = {"gesture": gesture, "state": state, "t": t}
    e.update(kw)
    return e


def tap(t, x, y, taps=1, touches=1, **kw):
    return ev("tap", "recognized", t, x=x, y=y, taps=taps, touches=touches, **kw)


def rot(v, angle):
    """Rotates a vector clockwise on screen (y grows downward) by angle radians."""
    c, s = math.cos(angle), math.sin(angle)
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)



# ---------------------------------------------------------------- taps

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(80, {1: ("ended", 102, 101)})
s.advance(379)
s.advance(380)
vector("tap_single_deferred",
       "A single tap is reported only when the double-tap wait (300 ms after the lift) runs out; "
       "its t is the timer's deadline and its location is where the finger lifted (article 001).",
       s, [tap(380, 102, 101, id=1, regions=[], fingers=[{"id": 1, "x": 100, "y": 100, "regions": []}])])

s = Script()
s.tap(0, 100, 100, dur=80)
s.tap(200, 104, 102, dur=60)
s.advance(1000)
vector("tap_double",
       "Two taps within 300 ms and 40 pt are one double tap, reported at the second lift: the "
       "default longest one-finger sequence is 2, so nothing waits after it.",
       s, [tap(260, 104, 102, taps=2)])

s = Script()
s.tap(0, 100, 100)
s.advance(400)
s.tap(1000, 100, 100)
s.tap(1150, 100, 100)
s.advance(1600)
s.tap(2000, 100, 100)
s.tap(2150, 100, 100)
s.tap(2300, 100, 100)
s.advance(3000)
vector("tap_single_double_triple",
       "With tapMaxCount 3, one, two and three taps are told apart: a single and a double tap are "
       "reported when the wait after their last lift runs out, a triple tap at its last lift.",
       s, [tap(350, 100, 100, taps=1), tap(1500, 100, 100, taps=2), tap(2350, 100, 100, taps=3)],
       hello=hello(config={"tapMaxCount": 3}))

s = Script()
s.tap(0, 100, 100)
s.tap(150, 100, 100)
s.tap(300, 100, 100)
s.advance(1000)
vector("tap_triple_with_default_count",
       "With the default tapMaxCount 2, three quick taps are a double tap (at the second lift) "
       "and then a single tap (after its own wait).",
       s, [tap(200, 100, 100, taps=2), tap(650, 100, 100, taps=1)])

s = Script()
s.tap(0, 100, 100)
s.tap(150, 100, 100)
s.tap(300, 100, 100)
s.advance(1000)
vector("tap_immediate_mode",
       "tapMode immediate reports every tap at its lift with the running count (here up to "
       "tapMaxCount 5), and never arms a timer.",
       s, [tap(50, 100, 100, taps=1), tap(200, 100, 100, taps=2), tap(350, 100, 100, taps=3)],
       hello=hello(config={"tapMode": "immediate", "tapMaxCount": 5}))

s = Script()
s.tap(0, 100, 100)
s.tap(150, 300, 300)
s.advance(1000)
vector("tap_pending_flushed_by_far_touch",
       "A new touch landing more than 40 pt from a waiting single tap cannot make it a double "
       "tap: the waiting tap is reported at once (at the new touch's t), not dropped.",
       s, [tap(150, 100, 100), tap(500, 300, 300)])

s = Script()
s.tap(0, 100, 100)
s.frame(150, {1: ("began", 105, 100)})
s.frame(200, {1: ("moved", 130, 100)})
s.frame(250, {1: ("moved", 160, 100)})
s.frame(300, {})
s.frame(350, {1: ("ended", 160, 100)})
s.advance(1000)
vector("tap_pending_flushed_by_drag",
       "A new touch near a waiting single tap that turns into a drag reports the tap first (at "
       "the frame where the drag starts), then the pan. The pan's translation is measured from "
       "where the finger went down; a finger that stopped before lifting has no swipe.",
       s, [tap(200, 100, 100),
           ev("pan", "began", 200, translation={"x": 25, "y": 0}, touches=1),
           ev("pan", "changed", 250, translation={"x": 55, "y": 0}),
           ev("pan", "ended", 350, translation={"x": 55, "y": 0}, velocity={"x": 0, "y": 0})])

s = Script()
s.tap(0, 100, 100)
s.frame(150, {1: ("began", 100, 100)})
s.frame(400, {})
s.advance(700)
s.frame(800, {1: ("ended", 100, 100)})
vector("tap_pending_flushed_by_hold",
       "A new touch near a waiting single tap that is held longer than 300 ms can no longer be "
       "a tap: the waiting tap is reported at that deadline (450), and the hold becomes a long "
       "press at 150 + 500.",
       s, [tap(450, 100, 100), ev("longpress", "began", 650, x=100, y=100),
           ev("longpress", "ended", 800)])

s = Script()
s.tap(0, 100, 100)
s.tap(150, 150, 100)
s.advance(1000)
vector("tap_double_too_far",
       "Two taps 50 pt apart (more than 40) are two single taps.",
       s, [tap(150, 100, 100), tap(500, 150, 100)])

s = Script()
s.tap(0, 100, 100)
s.tap(400, 100, 100)
s.advance(1000)
vector("tap_double_too_slow",
       "A second tap landing 350 ms after the first lift (more than 300) starts a new sequence: "
       "the first is reported when its wait runs out, before the second frame is processed.",
       s, [tap(350, 100, 100), tap(750, 100, 100)])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(50, {1: ("ended", 110, 100)})
s.advance(400)
s.frame(1000, {1: ("began", 300, 300)})
s.frame(1030, {1: ("moved", 311, 300)})
s.frame(1060, {1: ("ended", 311, 300)})
s.advance(2000)
vector("tap_movement_limit",
       "A press that moves exactly 10 pt is still a tap (edges included); one that moves 11 pt "
       "is a pan and no tap.",
       s, [tap(350, 110, 100),
           ev("pan", "began", 1030, translation={"x": 11, "y": 0}),
           ev("pan", "ended", 1060, translation={"x": 11, "y": 0})])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(200, {})
s.frame(400, {1: ("ended", 100, 100)})
s.advance(2000)
vector("tap_too_long",
       "A press of 400 ms (more than 300) is no tap, and too short for a long press: no event.",
       s, [])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(16, {})
s.frame(32, {1: ("stationary", 100, 100)})
s.frame(48, {1: ("moved", 103, 100)})
s.frame(64, {1: ("ended", 103, 100)})
s.advance(364)
vector("touch_phases",
       "Article 002's phases: began, stationary (listed or implied by the frame), moved, ended. "
       "Stationary frames produce no event; the press is a tap.",
       s, [tap(364, 103, 100)])

# ---------------------------------------------------------------- two-finger taps

s = Script()
s.tap2(0, (100, 300), (160, 300), dur=90)
vector("tap_two_fingers_same_frame",
       "Both fingers of a two-finger tap lift in the same frame: one tap, touches 2, at their "
       "midpoint, reported at once (multiFingerTapMaxCount defaults to 1).",
       s, [tap(90, 130, 300, touches=2, fingers=[{"id": 1, "x": 100, "y": 300}, {"id": 2, "x": 160, "y": 300}])])

s = Script()
s.frame(0, {1: ("began", 100, 300), 2: ("began", 160, 300)})
s.frame(60, {1: ("ended", 100, 300)})
s.frame(150, {2: ("ended", 162, 302)})
s.advance(1000)
vector("tap_two_fingers_one_lifts_early",
       "One finger of a two-finger tap lifts 90 ms before the other: still one two-finger tap, "
       "located at the midpoint of where each finger lifted (article 001).",
       s, [tap(150, 131, 301, touches=2)])

s = Script()
s.frame(0, {1: ("began", 100, 300)})
s.frame(30, {2: ("began", 160, 300)})
s.frame(120, {1: ("ended", 100, 300), 2: ("ended", 160, 300)})
s.advance(1000)
vector("tap_two_fingers_land_30ms_apart",
       "Fingers rarely land together (article 004): the second lands 30 ms after the first and "
       "the press is still a two-finger tap, not a one-finger tap.",
       s, [tap(120, 130, 300, touches=2)])

s = Script()
s.frame(0, {1: ("began", 100, 300), 2: ("began", 160, 300)})
s.frame(60, {1: ("ended", 100, 300)})
for k in range(1, 6):
    s.frame(60 + 40 * k, {2: ("moved", 160 + 15 * k, 300)})
s.frame(300, {2: ("ended", 235, 300)})
s.advance(1000)
vector("tap_two_fingers_claims_remaining_finger",
       "After one finger of a possible two-finger tap lifts, the finger left behind starts no "
       "one-finger pan, tap or swipe; moving it makes the two-finger tap fail. Nothing is reported.",
       s, [])

s = Script()
s.frame(0, {1: ("began", 100, 300), 2: ("began", 150, 300), 3: ("began", 200, 300)})
s.frame(70, {1: ("ended", 100, 300), 2: ("ended", 150, 300), 3: ("ended", 200, 300)})
vector("tap_three_fingers",
       "Three fingers make a three-finger tap (touches 3), never a two-finger tap (article 001's "
       "twoFingerTapIsPossible is false once more than two touches are down).",
       s, [tap(70, 150, 300, touches=3)])

# ---------------------------------------------------------------- long press

s = Script()
s.frame(0, {1: ("began", 200, 200)})
for t in (100, 200, 300, 400):
    s.frame(t, {})
s.advance(499)
s.advance(600)
s.frame(700, {1: ("moved", 205, 200)})
s.frame(800, {1: ("ended", 205, 200)})
vector("longpress_basic",
       "Held 500 ms within 10 pt: began when the timer fires (t = its deadline, 500), changed "
       "on a move, ended on lift. No tap, no pan (it moved only 5 pt).",
       s, [ev("longpress", "began", 500, x=200, y=200, touches=1, id=1),
           ev("longpress", "changed", 700, x=205, y=200, id=1),
           ev("longpress", "ended", 800, x=205, y=200, id=1)])

s = Script()
s.frame(0, {1: ("began", 200, 200)})
s.frame(900, {1: ("moved", 203, 200)})
s.frame(950, {1: ("ended", 203, 200)})
vector("longpress_fires_before_late_frame",
       "No advance step: the next frame comes at 900, and the long press still begins at its "
       "deadline (500) before that frame is processed.",
       s, [ev("longpress", "began", 500, x=200, y=200),
           ev("longpress", "changed", 900, x=203),
           ev("longpress", "ended", 950)])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(200, {2: ("began", 250, 250)})
s.advance(600)
s.frame(700, {1: ("ended", 100, 100), 2: ("ended", 250, 250)})
s.advance(2000)
vector("longpress_cancelled_by_new_finger",
       "A second finger landing before the deadline cancels the long-press timer (article 004); "
       "the 700 ms press is no tap either. No event.",
       s, [])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(100, {1: ("moved", 120, 100)})
s.advance(600)
s.frame(700, {1: ("ended", 120, 100)})
vector("longpress_fails_on_movement",
       "Moving more than 10 pt before the deadline makes the long press fail; the movement is a pan.",
       s, [ev("pan", "began", 100, translation={"x": 20, "y": 0}),
           ev("pan", "ended", 700, translation={"x": 20, "y": 0})])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.advance(500)
s.frame(600, {1: ("moved", 130, 100)})
s.frame(700, {1: ("moved", 160, 100)})
s.frame(800, {1: ("ended", 160, 100)})
vector("longpress_then_pan",
       "Long press and pan recognize together (article 003): after the press began, moving "
       "starts a pan whose translation counts from the touch-down point; the lift ends both. "
       "A press that began is no swipe.",
       s, [ev("longpress", "began", 500, id=1),
           ev("longpress", "changed", 600, x=130, id=1),
           ev("pan", "began", 600, translation={"x": 30, "y": 0}, id=2),
           ev("longpress", "changed", 700, x=160, id=1),
           ev("pan", "changed", 700, translation={"x": 60, "y": 0}, id=2),
           ev("longpress", "ended", 800, x=160, id=1),
           ev("pan", "ended", 800, translation={"x": 60, "y": 0}, id=2)])

# ---------------------------------------------------------------- pan

s = Script()
s.frame(0, {1: ("began", 50, 400)})
for k in range(1, 11):
    s.frame(100 * k, {1: ("moved", 50 + 15 * k, 400)})
s.frame(1050, {1: ("ended", 200, 400)})
vector("pan_translation_from_touch_down",
       "A slow 150 pt drag (article 002's DragView): the pan begins past 10 pt and reports the "
       "translation from where the finger went down, 150 at the end (not 140). Velocity is "
       "points per second over the last 100 ms: (200-185)/(1050-900 ms) = 100 pt/s at the lift.",
       s, [ev("pan", "began", 100, x=65, y=400, touches=1, translation={"x": 15, "y": 0})]
       + [ev("pan", "changed", 100 * k, translation={"x": 15 * k, "y": 0}) for k in range(2, 11)]
       + [ev("pan", "ended", 1050, x=200, translation={"x": 150, "y": 0}, velocity={"x": 100, "y": 0})])

PAN_VELOCITY_EVENTS = [
    ev("pan", "began", 40, translation={"x": 20, "y": 0}, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 60, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 80, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 100, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 120, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 140, translation={"x": 70, "y": 0}, velocity={"x": 500, "y": 0}),
    ev("pan", "changed", 160, translation={"x": 80, "y": 0}, velocity={"x": 500, "y": 0}),
    ev("pan", "ended", 160, translation={"x": 80, "y": 0}, velocity={"x": 500, "y": 0})]


def pan_velocity_script():
    s = Script()
    for k in range(0, 8):
        s.frame(20 * k, {1: ("began" if k == 0 else "moved", 100 + 10 * k, 300)})
    s.frame(160, {1: ("ended", 180, 300)})
    return s


vector("pan_velocity",
       "A finger moving 10 pt every 20 ms: once 100 ms of history exists the velocity is 500 pt/s. "
       "(Only the pan recognizer runs here.)",
       pan_velocity_script(), PAN_VELOCITY_EVENTS, hello=hello(config={"recognizers": ["pan"]}))

s = pan_velocity_script()
s.coalesce(4)
vector("frames_coalesced_pan",
       "pan_velocity's nine frames sent as coalesced samples, four per `frames` message (4, 4, 1): "
       "each sample is a frame of its own to the engine, so the events are pan_velocity's, each "
       "at its own sample's t, not the message's.",
       s, PAN_VELOCITY_EVENTS, hello=hello(config={"recognizers": ["pan"]}))

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(100, {1: ("moved", 130, 100)})
s.frame(200, {2: ("began", 300, 300)})
s.frame(300, {1: ("moved", 140, 100), 2: ("moved", 310, 300)})
s.frame(400, {2: ("ended", 310, 300)})
s.frame(500, {1: ("moved", 150, 100)})
s.frame(600, {1: ("ended", 150, 100)})
vector("pan_fingers_join_and_leave",
       "A second finger joining or leaving a pan does not make the translation jump: the "
       "centroid is re-based, and the translation goes on from 30 to 40 (both fingers +10) and "
       "50 (the first finger +10 after the second lifted).",
       s, [ev("pan", "began", 100, translation={"x": 30, "y": 0}, touches=1),
           ev("pan", "changed", 300, translation={"x": 40, "y": 0}, touches=2, x=225, y=200),
           ev("pan", "changed", 500, translation={"x": 50, "y": 0}, touches=1),
           ev("pan", "ended", 600, translation={"x": 50, "y": 0})],
       hello=hello(config={"recognizers": ["pan"]}))

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(100, {1: ("moved", 150, 100)})
s.frame(200, {1: ("ended", 150, 100)})
s.frame(1000, {1: ("began", 100, 300), 2: ("began", 200, 300)})
s.frame(1100, {1: ("moved", 100, 340), 2: ("moved", 200, 340)})
s.frame(1200, {1: ("ended", 100, 340), 2: ("ended", 200, 340)})
vector("pan_min_touches",
       "With panMinTouches 2 a one-finger drag is no pan; a two-finger drag is, located at the "
       "centroid of the fingers.",
       s, [ev("pan", "began", 1100, touches=2, x=150, y=340, translation={"x": 0, "y": 40}),
           ev("pan", "ended", 1200, touches=2, translation={"x": 0, "y": 40})],
       hello=hello(config={"panMinTouches": 2, "recognizers": ["pan", "pinch", "rotation"]}))

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(100, {1: ("moved", 200, 100)})
s.frame(200, {1: ("ended", 200, 100)})
s.tap(1000, 50, 50)
s.advance(2000)
vector("recognizers_filter",
       "config.recognizers [\"tap\"] runs only the tap recognizer: a drag reports nothing, a tap "
       "is still a tap.",
       s, [tap(1350, 50, 50)], hello=hello(config={"recognizers": ["tap"]}))

# ---------------------------------------------------------------- swipe

s = Script()
s.frame(0, {1: ("began", 100, 400)})
s.frame(50, {1: ("moved", 140, 400)})
s.frame(100, {1: ("moved", 200, 400)})
s.frame(130, {1: ("ended", 240, 400)})
v = (240 - 100) / 130 * 1000
vector("swipe_and_pan",
       "A fast flick is a pan and, at the lift, a swipe too (they may both report). The lift "
       "frame's new position is a last pan change before the pan ends. The swipe's "
       "velocity over the last 100 ms (here the whole 130 ms, no older sample exists) is "
       "140 pt / 130 ms.",
       s, [ev("pan", "began", 50, translation={"x": 40, "y": 0}),
           ev("pan", "changed", 100, translation={"x": 100, "y": 0}),
           ev("pan", "changed", 130, translation={"x": 140, "y": 0}),
           ev("pan", "ended", 130, translation={"x": 140, "y": 0}),
           ev("swipe", "recognized", 130, direction="right", x=240, y=400, touches=1,
              velocity={"x": v, "y": 0})],
       tolerance=1e-3)

s = Script()
t = 0
for (dx, dy) in [(-1, 0), (0, -1), (0, 1), (1, 0)]:
    s.frame(t, {1: ("began", 195, 422)})
    s.frame(t + 40, {1: ("moved", 195 + 40 * dx, 422 + 40 * dy)})
    s.frame(t + 80, {1: ("ended", 195 + 80 * dx, 422 + 80 * dy)})
    t += 1000
vector("swipe_directions",
       "Four 80 pt flicks in 80 ms (1 pt/ms): left, up, down, right. Only the swipe recognizer runs.",
       s, [ev("swipe", "recognized", 80, direction="left", velocity={"x": -1000, "y": 0}),
           ev("swipe", "recognized", 1080, direction="up", velocity={"x": 0, "y": -1000}),
           ev("swipe", "recognized", 2080, direction="down"),
           ev("swipe", "recognized", 3080, direction="right")],
       hello=hello(config={"recognizers": ["swipe"]}))

s = Script()
s.frame(0, {1: ("began", 100, 400)})
s.frame(40, {1: ("moved", 200, 400)})
for t in (100, 150, 200, 250):
    s.frame(t, {})
s.frame(300, {1: ("ended", 200, 400)})
s.frame(1000, {1: ("began", 100, 400)})
s.frame(1020, {1: ("ended", 140, 400)})
s.frame(2000, {1: ("began", 100, 400)})
s.frame(2100, {1: ("moved", 120, 400)})
s.frame(2200, {1: ("moved", 140, 400)})
s.frame(2300, {1: ("ended", 160, 400)})
vector("swipe_needs_distance_and_speed_at_lift",
       "No swipe when the finger swipes 100 pt, stops and holds (its speed over the last 100 ms "
       "before the lift is 0), when a fast flick covers only 40 pt (under 50), or when 60 pt "
       "are drawn slowly (20 pt in the last 100 ms: 0.2 pt/ms, under 0.3).",
       s, [], hello=hello(config={"recognizers": ["swipe"]}))

# ---------------------------------------------------------------- pinch

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
s.frame(50, {1: ("moved", 75, 400), 2: ("moved", 225, 400)})
s.frame(100, {1: ("moved", 50, 400), 2: ("moved", 250, 400)})
s.frame(150, {1: ("ended", 50, 400), 2: ("ended", 250, 400)})
s.advance(1000)
vector("pinch_scale_two",
       "Fingers twice as far apart as when the second landed: scale 2.0, focus at their centroid "
       "(article 004, scaled around the fingers, not the view centre). Velocity is scale per "
       "second: +1.0 in 100 ms = 10/s. A pinch never also ends as a pan, tap or swipe.",
       s, [ev("pinch", "began", 50, scale=1.5, x=150, y=400, touches=2, velocity=10),
           ev("pinch", "changed", 100, scale=2.0, velocity=10),
           ev("pinch", "ended", 150, scale=2.0, touches=2)])

s = Script()
s.frame(0, {1: ("began", 100, 400)})
s.frame(30, {2: ("began", 200, 400)})
s.frame(80, {2: ("moved", 300, 400)})
s.frame(130, {1: ("ended", 100, 400), 2: ("ended", 300, 400)})
vector("pinch_fingers_land_30ms_apart",
       "The baseline is the spread when the second finger lands (30 ms after the first; "
       "touches.count >= 2 would be the wrong test, article 004). The centroid moving with the "
       "pinch starts no pan.",
       s, [ev("pinch", "began", 80, scale=2.0, x=200, y=400),
           ev("pinch", "ended", 130, scale=2.0)])

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
s.frame(50, {2: ("moved", 300, 400)})
s.frame(100, {2: ("ended", 300, 400)})
s.frame(150, {1: ("moved", 120, 400)})
s.frame(200, {3: ("began", 320, 400)})
s.frame(250, {3: ("moved", 520, 400)})
s.frame(300, {1: ("ended", 120, 400), 3: ("ended", 520, 400)})
vector("pinch_finger_lifted_and_replaced",
       "A finger lifted mid-pinch and put back resumes the same pinch (same id) from where it "
       "was, with no jump: scale 2 when the finger lifts, re-based on the new pair (spread 200 "
       "= scale 2), then 4 when their spread doubles. The finger left alone starts no pan.",
       s, [ev("pinch", "began", 50, scale=2.0, id=1),
           ev("pinch", "changed", 250, scale=4.0, id=1, touches=2),
           ev("pinch", "ended", 300, scale=4.0, id=1)])

tri = [(100, 400), (200, 400), (150, 400 + 100 * math.sqrt(3) / 2)]
cx = sum(p[0] for p in tri) / 3
cy = sum(p[1] for p in tri) / 3
tri2 = [(cx + 2 * (x - cx), cy + 2 * (y - cy)) for (x, y) in tri]
s = Script()
s.frame(0, {i + 1: ("began",) + tri[i] for i in range(3)})
s.frame(50, {i + 1: ("moved",) + tri2[i] for i in range(3)})
s.frame(100, {i + 1: ("ended",) + tri2[i] for i in range(3)})
vector("pinch_three_fingers",
       "With three fingers the spread is the mean distance from the centroid: all three twice "
       "as far from it is scale 2.0, focus at the centroid.",
       s, [ev("pinch", "began", 50, scale=2.0, x=cx, y=cy, touches=3),
           ev("pinch", "ended", 100, scale=2.0, touches=3)],
       hello=hello(config={"recognizers": ["pinch", "rotation", "pan"]}))

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
s.frame(50, {1: ("moved", 50, 400), 2: ("moved", 250, 400)})
s.frame(100, {1: ("cancelled", 50, 400)})
s.frame(150, {2: ("moved", 250, 300)})
s.frame(200, {2: ("ended", 250, 300)})
s.tap(1000, 100, 100)
s.advance(2000)
vector("pinch_cancelled_mid_gesture",
       "A touch cancelled by the system (article 002: an incoming call) cancels the pinch; the "
       "finger left starts nothing until every finger is up; the next sequence works normally.",
       s, [ev("pinch", "began", 50, scale=2.0, id=1),
           ev("pinch", "cancelled", 100, id=1),
           tap(1350, 100, 100, id=2)])

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
a = (100 * 1.5 / 2, 0)
b1 = rot(a, 0.5)
s.frame(50, {1: ("moved", 150 - b1[0], 400 - b1[1]), 2: ("moved", 150 + b1[0], 400 + b1[1])})
s.frame(100, {1: ("ended", 150 - b1[0], 400 - b1[1]), 2: ("ended", 150 + b1[0], 400 + b1[1])})
vector("pinch_and_rotation_together",
       "Pinch and rotation recognize simultaneously: spreading 1.5x while turning 0.5 rad "
       "clockwise begins both in the same frame.",
       s, [ev("pinch", "began", 50, scale=1.5, x=150, y=400),
           ev("rotation", "began", 50, rotation=0.5, x=150, y=400),
           ev("pinch", "ended", 100, scale=1.5),
           ev("rotation", "ended", 100, rotation=0.5)])

s = Script()
s.frame(0, {1: ("began", 100, 400)})
s.frame(100, {1: ("moved", 130, 400)})
s.frame(200, {2: ("began", 230, 400)})
s.frame(300, {1: ("moved", 80, 400), 2: ("moved", 280, 400)})
s.frame(400, {1: ("ended", 80, 400), 2: ("ended", 280, 400)})
vector("pinch_cancels_active_pan",
       "A pinch that begins claims the sequence (gestures.md, Arena): one finger pans 30 points, "
       "a second lands 100 away (no event: the pan re-bases), then both spread to 200 around the "
       "same centroid, so the pan's translation does not move and the spread doubles. In that "
       "frame the active pan is cancelled before the pinch begins (scale 2 at the centroid); at "
       "the lift only the pinch ends: no pan ended, no tap, no swipe. The pinch is the source's "
       "second gesture instance (id 2: ids count instances of every kind).",
       s, [ev("pan", "began", 100, translation={"x": 30, "y": 0}, touches=1, id=1),
           ev("pan", "cancelled", 300, id=1),
           ev("pinch", "began", 300, scale=2.0, x=180, y=400, touches=2, id=2),
           ev("pinch", "ended", 400, scale=2.0, id=2)])

# ---------------------------------------------------------------- rotation

def turn_frames(s, t0, centre, radius, angles, dt=50):
    for k, ang in enumerate(angles):
        d = rot((radius, 0), ang)
        s.frame(t0 + dt * k, {1: ("moved", centre[0] - d[0], centre[1] - d[1]),
                              2: ("moved", centre[0] + d[0], centre[1] + d[1])})

s = Script()
s.frame(0, {1: ("began", 200, 400), 2: ("began", 300, 400)})
turn_frames(s, 50, (250, 400), 50, [0.5, 1.0])
s.frame(150, {1: ("ended",) + s.down[1], 2: ("ended",) + s.down[2]})
s.frame(1000, {1: ("began", 200, 400), 2: ("began", 300, 400)})
turn_frames(s, 1050, (250, 400), 50, [-0.5])
s.frame(1100, {1: ("ended",) + s.down[1], 2: ("ended",) + s.down[2]})
vector("rotation_clockwise_positive",
       "Rotation is in radians since the second finger landed, clockwise on screen positive "
       "(y grows downward); turning the other way is negative. Velocity is radians per second.",
       s, [ev("rotation", "began", 50, rotation=0.5, velocity=10, touches=2),
           ev("rotation", "changed", 100, rotation=1.0, velocity=10),
           ev("rotation", "ended", 150, rotation=1.0),
           ev("rotation", "began", 1050, rotation=-0.5),
           ev("rotation", "ended", 1100, rotation=-0.5)])

steps = 15
angles = [3 * math.pi / 2 * k / steps for k in range(1, steps + 1)]
s = Script()
s.frame(0, {1: ("began", 150, 400), 2: ("began", 250, 400)})
turn_frames(s, 20, (200, 400), 50, angles, dt=20)
s.frame(20 * steps + 20, {1: ("ended",) + s.down[1], 2: ("ended",) + s.down[2]})
vector("rotation_through_pi",
       "A 270 degree clockwise turn in 15 steps reports 3pi/2 at the end, with no jump when the "
       "line between the fingers passes +-pi (the angle is unwrapped).",
       s, [ev("rotation", "began", 20, rotation=angles[0])]
       + [ev("rotation", "changed", 20 + 20 * k, rotation=angles[k]) for k in range(1, steps)]
       + [ev("rotation", "ended", 20 * steps + 20, rotation=3 * math.pi / 2)],
       hello=hello(config={"recognizers": ["rotation"]}))

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400), 3: ("began", 150, 300)})
d = rot((50, 0), 0.5)
s.frame(50, {1: ("moved", 150 - d[0], 400 - d[1]), 2: ("moved", 150 + d[0], 400 + d[1])})
s.frame(100, {1: ("ended",) + s.down[1]})
p2 = s.down[2]
p3 = s.down[3]
v3 = rot((p3[0] - p2[0], p3[1] - p2[1]), 0.3)
s.frame(150, {3: ("moved", p2[0] + v3[0], p2[1] + v3[1])})
s.frame(200, {2: ("ended",) + s.down[2], 3: ("ended",) + s.down[3]})
vector("rotation_follows_first_two_fingers",
       "With three fingers the rotation follows the first two still down: fingers 1 and 2 turn "
       "0.5 rad; when finger 1 lifts, the pair becomes 2 and 3 with no jump, and 3 turning "
       "0.3 rad around 2 brings the total to 0.8.",
       s, [ev("rotation", "began", 50, rotation=0.5, touches=3),
           ev("rotation", "changed", 150, rotation=0.8, touches=2),
           ev("rotation", "ended", 200, rotation=0.8)],
       hello=hello(config={"recognizers": ["rotation"]}))

# ---------------------------------------------------------------- identity table

s = Script()
s.frame(0, raw=[{"id": 7, "phase": "moved", "x": 10, "y": 10}])
s.frame(10, raw=[{"id": 7, "phase": "moved", "x": 12, "y": 10}])
s.frame(20, raw=[{"id": 8, "phase": "ended", "x": 12, "y": 10},
                 {"id": 7, "phase": "stationary", "x": 12, "y": 10}])
s.tap(100, 50, 50, id=7)
s.advance(1000)
vector("identity_unknown_touch",
       "moved/stationary/ended for an id that is not down are ignored, and the source gets "
       "unknown_touch once per id (with the frame's seq). The id can still begin later.",
       s, [tap(450, 50, 50)],
       errors=[{"code": "unknown_touch", "seq": 1}, {"code": "unknown_touch", "seq": 3}])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(50, {1: ("moved", 150, 100)})
s.frame(100, raw=[{"id": 1, "phase": "began", "x": 300, "y": 300}])
s.frame(150, {1: ("ended", 300, 300)})
s.advance(1000)
vector("identity_began_while_down",
       "A began for an id that is already down is a cancel plus a new touch: the pan of the old "
       "touch is cancelled, and the new touch is a tap of its own.",
       s, [ev("pan", "began", 50, id=1), ev("pan", "cancelled", 100, id=1), tap(450, 300, 300, id=2)])

s = Script()
s.frame(0, {1: ("began", 100, 300), 2: ("began", 160, 300), 3: ("began", 220, 300)})
s.frame(30, {3: ("moved", 230, 300)})
s.frame(60, {1: ("ended", 100, 300), 2: ("ended", 160, 300), 3: ("ended", 230, 300)})
vector("identity_too_many_fingers",
       "config.maxFingers 2: the third finger is ignored with too_many_fingers (its later "
       "phases are dropped silently), and the press is a two-finger tap.",
       s, [tap(60, 130, 300, touches=2)], hello=hello(config={"maxFingers": 2}),
       errors=[{"code": "too_many_fingers", "seq": 1}])

s = Script()
s.frame(0, {1: ("began", 100, 300), 2: ("began", 160, 300)})
s.frame(60, {1: ("ended", 100, 300), 2: ("ended", 160, 300)})
s.advance(1000)
vector("identity_server_finger_limit",
       "The server's own limit (here 1) applies even without a config: the second finger is "
       "ignored and the press is a one-finger tap.",
       s, [tap(360, 100, 300, touches=1)], max_fingers=1, errors=[{"code": "too_many_fingers", "seq": 1}])

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(50, {1: ("moved", 150, 100)})
s.frame(100, {}, omit=(1,))
s.tap(500, 200, 200, id=2)
s.advance(1000)
vector("identity_missing_touch_is_cancelled",
       "A finger that is down but missing from a frame was lost: it is cancelled, its pan too.",
       s, [ev("pan", "began", 50), ev("pan", "cancelled", 100), tap(850, 200, 200)])

s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
d = rot((75, 0), 0.5)
s.frame(50, {1: ("moved", 150 - d[0], 400 - d[1]), 2: ("moved", 150 + d[0], 400 + d[1])})
s.close(80)
vector("close_mid_gesture",
       "The connection closes mid-pinch: every gesture that began gets exactly one cancelled.",
       s, [ev("pinch", "began", 50, id=1), ev("rotation", "began", 50, id=2),
           ev("pinch", "cancelled", 80, id=1), ev("rotation", "cancelled", 80, id=2)])

s = Script()
s.tap(0, 100, 100)
s.frame(200, {2: ("began", 100, 100)})
s.close(220)
vector("close_with_waiting_tap",
       "The connection closes while a completed single tap waits for a possible second tap and "
       "a finger is down: the completed tap is reported (it happened); the finger that is down "
       "never becomes a tap.",
       s, [tap(220, 100, 100)])

s = Script()
s.frame(0, {1: ("began", 50, 50)})
s.frame(50, {1: ("ended", 50, 50)})
s.frame(100, {2: ("began", 100, 100), 3: ("began", 195, 195)})
s.frame(160, {2: ("ended", 100, 100), 3: ("ended", 195, 195)})
s.advance(1000)
regions = [{"id": "button", "x": 0, "y": 0, "width": 100, "height": 100},
           {"id": "panel", "x": 0, "y": 0, "width": 390, "height": 200}]
vector("regions_hit",
       "Every event lists the regions its location hit, topmost (first listed) first, edges "
       "included, and each finger's regions (where it began, for taps). A two-finger tap "
       "with one finger outside every region still reports the other's.",
       s, [tap(100, 50, 50, regions=["button", "panel"], fingers=[{"id": 1, "regions": ["button", "panel"]}]),
           tap(160, 147.5, 147.5, touches=2, regions=["panel"],
               fingers=[{"id": 2, "regions": ["button", "panel"]}, {"id": 3, "regions": ["panel"]}])],
       hello=hello(regions=regions))

# ---------------------------------------------------------------- flatcube (article 000)

S = 0.4 * min(W, H)
CX, CY = W / 2, H / 2
FLAT_REGIONS = [
    {"id": "red", "x": CX - S / 2, "y": CY - 0.75 * S, "width": S, "height": S},
    {"id": "yellowLeft", "x": CX - 0.75 * S, "y": CY - S / 4, "width": S, "height": S},
    {"id": "yellowRight", "x": CX - S / 4, "y": CY - S / 4, "width": S, "height": S},
]
RED_ONLY, YL_ONLY, YR_ONLY = (195, 330), (100, 500), (290, 500)
RED_YL, TRIPLE, OUTSIDE, RED_EDGE = (130, 420), (195, 422), (50, 100), (CX - S / 2, 330)
FLAT = hello(scene="flatcube")


def counters(red, yellow, any_=None):
    st = {"scene": "flatcube", "counters": {"red": red, "yellow": yellow}}
    if any_ is not None:
        st["recognizeAny"] = any_
    return st


s = Script()
s.tap(0, *RED_ONLY)
s.tap(200, *RED_YL)
s.tap(400, *YL_ONLY)
s.tap(600, *RED_EDGE)
vector("flatcube_one_finger_tap_on_red",
       "Switch off: a one-finger tap that began inside red adds 1 to red, overlapping parts and "
       "edges included; a tap on yellow alone does not. flatcube counts every tap at once "
       "(its article uses one-tap recognizers), so no tap waits. Without regions in the hello "
       "the default layout is used and sent in the state.",
       s, [tap(50, *RED_ONLY, regions=["red"]), tap(250, *RED_YL, regions=["red", "yellowLeft"]),
           tap(450, *YL_ONLY, regions=["yellowLeft"]), tap(650, *RED_EDGE, regions=["red"])],
       hello=FLAT, scenes=[counters(1, 0), counters(2, 0), counters(3, 0)],
       scene={"scene": "flatcube", "counters": {"red": 3, "yellow": 0}, "recognizeAny": False,
              "regions": FLAT_REGIONS})

s = Script()
s.tap2(0, YL_ONLY, YR_ONLY)
s.tap2(500, TRIPLE, YR_ONLY)
s.tap2(1000, YL_ONLY, (80, 520))
s.tap2(1500, RED_ONLY, YR_ONLY)
vector("flatcube_two_finger_tap_on_yellows",
       "Switch off: a two-finger tap with one finger in each yellow square adds 1 to yellow (a "
       "finger in the triple overlap counts for either yellow); two fingers in the same yellow "
       "square, or a two-finger tap touching red, add nothing.",
       s, [tap(60, 195, 500, touches=2), tap(560, 242.5, 461, touches=2), tap(1060, 90, 510, touches=2),
           tap(1560, 242.5, 415, touches=2)],
       hello=FLAT, scenes=[counters(0, 1), counters(0, 2)], scene=counters(0, 2, False))

s = Script()
s.tap(0, *RED_ONLY)
s.tap(150, *RED_ONLY)
vector("flatcube_two_quick_taps_count_twice",
       "Two quick taps on red count twice: each is its own tap event.",
       s, [tap(50, *RED_ONLY), tap(200, *RED_ONLY)], hello=FLAT,
       scenes=[counters(1, 0), counters(2, 0)])

s = Script()
s.control({"recognizeAny": True})
s.tap(0, *TRIPLE)
s.tap2(500, RED_ONLY, (200, 340))
s.tap2(1000, OUTSIDE, RED_YL)
s.tap2(1500, YL_ONLY, YR_ONLY)
s.frame(2000, {1: ("began", 195, 330)})
s.frame(2100, {1: ("moved", 250, 330)})
s.frame(2200, {1: ("ended", 250, 330)})
s.frame(3000, {1: ("began", *RED_ONLY)})
s.frame(3050, {1: ("cancelled", *RED_ONLY)})
vector("flatcube_recognize_any",
       "Switch on: only where fingers began matters. A tap in the triple overlap adds to both "
       "counters; two fingers on red add 1 to red; a finger outside every square does not stop "
       "the other from counting; fingers in both yellows add 1 to yellow; a drag that began in "
       "red counts too; a cancelled sequence counts for nothing.",
       s, [tap(50, *TRIPLE), tap(560, 197.5, 335, touches=2), tap(1060, 90, 260, touches=2),
           tap(1560, 195, 500, touches=2), ev("pan", "began", 2100), ev("pan", "ended", 2200)],
       hello=FLAT,
       scenes=[counters(0, 0, True), counters(1, 1), counters(2, 1), counters(3, 1), counters(3, 2),
               counters(4, 2)])

custom = [{"id": "red", "x": 0, "y": 0, "width": 100, "height": 100},
          {"id": "yellowLeft", "x": 50, "y": 50, "width": 100, "height": 100},
          {"id": "yellowRight", "x": 100, "y": 0, "width": 100, "height": 100}]
s = Script()
s.tap(0, 20, 20)
s.control({"action": "reset"})
s.control({"action": "explode"})
s.control({"recognizeAny": True, "action": "reset"})
vector("flatcube_custom_regions_and_controls",
       "The source's own regions replace the default layout. The reset action zeroes the "
       "counters; an unknown action is an unknown_action error and changes nothing.",
       s, [tap(50, 20, 20, regions=["red"])], hello=hello(scene="flatcube", regions=custom),
       scenes=[counters(1, 0), counters(0, 0, False), counters(0, 0, True)],
       errors=[{"code": "unknown_action"}], scene={"regions": custom})

# ---------------------------------------------------------------- zoom (articles 001, 004)


def zoom_model(state, k, px, py):
    s_, cx_, cy_ = state
    qx = (px - W / 2) / s_ + cx_
    qy = (py - H / 2) / s_ + cy_
    s2 = min(16, max(1, s_ * k))
    nx = qx - (px - W / 2) / s2
    ny = qy - (py - H / 2) / s2
    hx, hy = W / (2 * s2), H / (2 * s2)
    return (s2, min(W - hx, max(hx, nx)), min(H - hy, max(hy, ny)))


def zstate(st):
    return {"scene": "zoom", "scale": st[0], "centre": {"x": st[1], "y": st[2]}}


z0 = (1, W / 2, H / 2)
z1 = zoom_model(z0, 2, 100, 200)
z2 = zoom_model(z1, 2, 100, 200)
z3 = zoom_model(z2, 0.5, 195, 422)
s = Script()
s.tap(0, 100, 200)
s.tap(150, 100, 200)
s.tap(1000, 100, 200)
s.tap(1150, 100, 200)
s.tap2(2000, (165, 422), (225, 422))
s.tap(3000, 300, 300)
s.advance(4000)
vector("zoom_double_tap_and_two_finger_tap",
       "Article 001 (Maps): a double tap zooms in x2 keeping the tapped content point under the "
       "finger; a second double tap zooms further (x4); a two-finger tap zooms out x2 around the "
       "fingers' midpoint, at once; a single tap does nothing.",
       s, [tap(200, 100, 200, taps=2), tap(1200, 100, 200, taps=2), tap(2060, 195, 422, touches=2),
           tap(3350, 300, 300)],
       hello=hello(scene="zoom"), scenes=[zstate(z1), zstate(z2), zstate(z3)], scene=zstate(z3))

st = z0
states = []
s = Script()
for k in range(5):
    s.tap(1000 * k, 10, 10)
    s.tap(1000 * k + 150, 10, 10)
    nxt = zoom_model(st, 2, 10, 10)
    if nxt != st:
        states.append(zstate(nxt))
    st = nxt
for k in range(6):
    s.tap2(5000 + 1000 * k, (20, 800), (60, 800))
    nxt = zoom_model(st, 0.5, 40, 800)
    if nxt != st:
        states.append(zstate(nxt))
    st = nxt
vector("zoom_clamped",
       "The scale is clamped to [1, 16] and the centre so the content covers the surface: five "
       "double taps in the top-left corner reach 16 (the fifth changes nothing and sends no "
       "state); six two-finger taps come back to 1.",
       s, [tap(1000 * k + 200, 10, 10, taps=2) for k in range(5)]
       + [tap(5000 + 1000 * k + 60, 40, 800, touches=2) for k in range(6)],
       hello=hello(scene="zoom"), scenes=states, scene=zstate(z0))

p1 = zoom_model(z0, 1.5, 150, 400)
p2 = zoom_model(p1, 2 / 1.5, 150, 400)
s = Script()
s.frame(0, {1: ("began", 100, 400), 2: ("began", 200, 400)})
s.frame(50, {1: ("moved", 75, 400), 2: ("moved", 225, 400)})
s.frame(100, {1: ("moved", 50, 400), 2: ("moved", 250, 400)})
s.frame(150, {1: ("ended", 50, 400), 2: ("ended", 250, 400)})
s.frame(1000, {1: ("began", 100, 400), 2: ("began", 300, 400)})
s.frame(1050, {1: ("moved", 175, 400), 2: ("moved", 225, 400)})
s.frame(1100, {1: ("ended", 175, 400), 2: ("ended", 225, 400)})
p3 = zoom_model(p2, 0.25, 200, 400)
vector("zoom_pinch",
       "A pinch scales the zoom continuously around the fingers' midpoint (article 004's fix: "
       "not around the view centre); pinching in past scale 1 is clamped.",
       s, [ev("pinch", "began", 50, scale=1.5), ev("pinch", "changed", 100, scale=2),
           ev("pinch", "ended", 150, scale=2), ev("pinch", "began", 1050, scale=0.25),
           ev("pinch", "ended", 1100, scale=0.25)],
       hello=hello(scene="zoom"), scenes=[zstate(p1), zstate(p2), zstate(p3)], scene=zstate(p3))

# ---------------------------------------------------------------- sketch (articles 003, 004)


def draw_line(s, t, y, id=1, x0=50):
    """One finger drawing a 100 pt horizontal line slowly: a pan, no swipe."""
    s.frame(t, {id: ("began", x0, y)})
    for k in range(1, 5):
        s.frame(t + 100 * k, {id: ("moved", x0 + 25 * k, y)})
    s.frame(t + 500, {id: ("ended", x0 + 100, y)})
    return ([ev("pan", "began", t + 100, translation={"x": 25, "y": 0})]
            + [ev("pan", "changed", t + 100 * k) for k in range(2, 5)]
            + [ev("pan", "ended", t + 500)])


def line_pts(y, x0=50):
    return {"points": [[x0 + 25 * k, y] for k in range(5)]}


s = Script()
s.frame(0, {1: ("began", 50, 100), 2: ("began", 50, 300)})
for k in range(1, 5):
    s.frame(20 * k, {1: ("moved", 50 + 25 * k, 100), 2: ("moved", 50 + 25 * k, 300)})
s.frame(100, {1: ("ended", 150, 100), 2: ("ended", 150, 300)})
vector("sketch_each_finger_draws_its_own_line",
       "Every finger draws its own line, keyed by its touch id (article 003's linesInProgress); "
       "while drawing, the state lists the lines in progress under 'drawing'.",
       s, [ev("pan", "began", 20, touches=2), ev("pan", "changed", 40), ev("pan", "changed", 60),
           ev("pan", "changed", 80), ev("pan", "ended", 100, translation={"x": 100, "y": 0})],
       hello=hello(scene="sketch"),
       scenes=[{"drawing": [{"touch": 1, "points": [[50, 100]]}, {"touch": 2, "points": [[50, 300]]}]},
               {}, {}, {}, {"drawing": [{"touch": 1}, {"touch": 2}]}, {"lines": [line_pts(100), line_pts(300)], "drawing": []}],
       scene={"scene": "sketch", "lines": [line_pts(100), line_pts(300)], "selected": None, "drawing": []})

s = Script()
evs = draw_line(s, 0, 100)
s.tap(1000, 300, 600)
s.tap(1150, 300, 600)
s.tap(2000, 300, 700)
s.advance(3000)
vector("sketch_double_tap_clears",
       "A double tap clears every line (article 003); the taps themselves draw no dot, and a "
       "single tap away from any line selects nothing.",
       s, evs + [tap(1200, 300, 600, taps=2), tap(2350, 300, 700)],
       hello=hello(scene="sketch"), scene={"lines": [], "selected": None, "drawing": []})

s = Script()
evs = draw_line(s, 0, 100)
s.tap(1000, 100, 115)
s.advance(1500)
s.tap(2000, 100, 160)
s.advance(2500)
vector("sketch_tap_selects_nearest_line",
       "A single tap (after the double-tap wait) selects the line within 20 pt of it (here 15 pt "
       "away); a tap 60 pt from any line clears the selection.",
       s, evs + [tap(1350, 100, 115), tap(2350, 100, 160)],
       hello=hello(scene="sketch"),
       scenes=[{}] * 6 + [{}, {}, {"selected": 0}, {}, {}, {"selected": None}],
       scene={"lines": [line_pts(100)], "selected": None})

s = Script()
evs = draw_line(s, 0, 100)
s.frame(1000, {2: ("began", 100, 105)})
s.advance(1500)
s.frame(1600, {2: ("moved", 100, 145)})
s.frame(1700, {2: ("moved", 100, 165)})
s.frame(1800, {2: ("ended", 100, 165)})
vector("sketch_long_press_and_pan_move_line",
       "A long press selects the line under the finger (and draws nothing itself); the pan "
       "recognized with it moves the selected line by the finger's travel (60 pt down); the "
       "line is released when the press ends (article 003).",
       s, evs + [ev("longpress", "began", 1500), ev("longpress", "changed", 1600),
                 ev("pan", "began", 1600, translation={"x": 0, "y": 40}), ev("longpress", "changed", 1700),
                 ev("pan", "changed", 1700), ev("longpress", "ended", 1800), ev("pan", "ended", 1800)],
       hello=hello(scene="sketch"),
       scenes=[{}] * 6 + [{"drawing": [{"touch": 2}]}, {"selected": 0, "drawing": []},
                          {"lines": [line_pts(140)]}, {"lines": [line_pts(160)]}, {"selected": None}],
       scene={"lines": [line_pts(160)], "selected": None})

s = Script()
evs = draw_line(s, 0, 100) + draw_line(s, 1000, 300)
s.tap(2000, 100, 305)
s.advance(2500)
s.control({"action": "delete"})
s.control({"action": "delete"})
s.control({"recognizeAny": True})
s.control({"action": "clear"})
vector("sketch_delete_and_clear",
       "The delete action removes the selected line (a second delete, with nothing selected, "
       "changes nothing); clear removes every line; recognizeAny is flatcube's and is an "
       "unknown_action here.",
       s, evs + [tap(2350, 100, 305)], hello=hello(scene="sketch"),
       scenes=[{}] * 12 + [{}, {}, {"selected": 1}, {"lines": [line_pts(100)], "selected": None},
                           {"lines": []}],
       errors=[{"code": "unknown_action"}], scene={"lines": []})

# ---------------------------------------------------------------- hello updates and controls

s = Script()
s.tap(0, 50, 50)
s.advance(400)
s.hello(hello(regions=[{"id": "button", "x": 0, "y": 0, "width": 100, "height": 100}]))
s.tap(1000, 50, 50)
s.advance(1400)
s.hello(hello(scene="flatcube", config={"tapMode": "immediate"}))
s.tap(2000, *RED_ONLY)
s.hello(hello(scene="nope"))
s.control({"action": "reset"})
vector("hello_update",
       "A repeated hello applies new regions at once and a new scene (fresh state, sent at "
       "once); config applies from the next touch sequence. A hello naming an unknown scene "
       "is refused whole (unknown_scene): the source keeps flatcube, so the control resets it.",
       s, [tap(350, 50, 50, regions=[]), tap(1350, 50, 50, regions=["button"]),
           tap(2050, *RED_ONLY, regions=["red"])],
       scenes=[counters(0, 0, False), counters(1, 0), counters(0, 0)],
       errors=[{"code": "unknown_scene"}])


# ---------------------------------------------------------------- platform presets
# config.preset (gestures.md, "Platform presets"): android's long press begins after
# DEFAULT_LONG_PRESS_TIMEOUT (400 ms), ios's after minimumPressDuration (500 ms), flutter's
# after kLongPressTimeout (500 ms), where a 450 ms press is still a tap.


def hold(s, t0, t1, x, y, deadline=None):
    """One finger down at t0, a stationary frame every 100 ms until the long-press deadline
    (or the lift), the timer run just before and at that deadline, lifted at t1."""
    s.frame(t0, {1: ("began", x, y)})
    for t in range(t0 + 100, deadline or t1, 100):
        s.frame(t, {})
    if deadline is not None:
        s.advance(deadline - 1)
        s.advance(deadline)
    s.frame(t1, {1: ("ended", x, y)})


s = Script()
hold(s, 0, 450, 200, 200, deadline=400)
s.advance(1000)
vector("preset_android_long_press",
       "Under the android preset a hold becomes a long press after ViewConfiguration's "
       "DEFAULT_LONG_PRESS_TIMEOUT, 400 ms: this 450 ms hold begins one at 400, the same hold "
       "that is no gesture at all under the ios preset (preset_ios_long_press) and the defaults.",
       s, [ev("longpress", "began", 400, x=200, y=200, touches=1),
           ev("longpress", "ended", 450, x=200, y=200)],
       hello=hello(config={"preset": "android"}))

s = Script()
hold(s, 0, 450, 200, 200)
s.advance(1000)
hold(s, 1000, 1600, 200, 200, deadline=1500)
s.advance(2500)
vector("preset_ios_long_press",
       "Under the ios preset the long press waits UILongPressGestureRecognizer's "
       "minimumPressDuration, 0.5 s: a 450 ms hold (a long press under android) is nothing "
       "(too long for a tap, too short for a long press); a hold from 1000 begins one at 1500.",
       s, [ev("longpress", "began", 1500, x=200, y=200, touches=1),
           ev("longpress", "ended", 1600, x=200, y=200)],
       hello=hello(config={"preset": "ios"}))

s = Script()
hold(s, 0, 450, 100, 100)
s.advance(749)
s.advance(750)
hold(s, 1000, 1600, 250, 250, deadline=1500)
s.advance(2500)
vector("preset_flutter_long_press",
       "Under the flutter preset a press is a tap until kLongPressTimeout (500 ms), when the "
       "long press wins: the 450 ms hold is a tap, reported when kDoubleTapTimeout (300 ms "
       "after its lift) runs out; a hold from 1000 begins a long press at 1500.",
       s, [tap(750, 100, 100),
           ev("longpress", "began", 1500, x=250, y=250, touches=1),
           ev("longpress", "ended", 1600, x=250, y=250)],
       hello=hello(config={"preset": "flutter"}))

s = Script()
s.frame(0, {1: ("began", 100, 100)})
s.frame(50, {1: ("moved", 109, 100)})
s.frame(300, {1: ("ended", 109, 100)})
s.advance(1000)
hold(s, 1000, 1650, 200, 200, deadline=1600)
s.advance(2500)
vector("preset_member_overrides_preset",
       "longPressDuration beside the android preset overrides it, and the rest of the preset "
       "stays: a 9 pt drag is past android's 8 pt touch slop, so it pans (under the defaults, "
       "300 ms within 10 pt, it would be a tap), and it stops 250 ms before the lift, so no "
       "fling; a hold begins its long press at 600 ms (1600), not android's 400.",
       s, [ev("pan", "began", 50, translation={"x": 9, "y": 0}),
           ev("pan", "ended", 300, translation={"x": 9, "y": 0}),
           ev("longpress", "began", 1600, x=200, y=200, touches=1),
           ev("longpress", "ended", 1650, x=200, y=200)],
       hello=hello(config={"preset": "android", "longPressDuration": 600}))


s = Script()
s.tap(0, 100, 100)
s.tap(150, 190, 100)
s.advance(600)
s.tap(1000, 100, 300)
s.tap(1150, 210, 300)
s.advance(2000)
vector("preset_android_double_tap_slop",
       "Under the android preset two taps continue one sequence within DOUBLE_TAP_SLOP, 100 pt "
       "(the defaults: 40): taps 90 pt apart are one double tap, reported at the second lift; "
       "taps 110 pt apart are two single taps, the first reported when the far one lands.",
       s, [tap(200, 190, 100, taps=2), tap(1150, 100, 300), tap(1500, 210, 300)],
       hello=hello(config={"preset": "android"}))

s = Script()
s.frame(0, {1: ("began", 100, 400)})
s.frame(100, {1: ("moved", 130, 400)})
s.frame(200, {1: ("moved", 140, 400)})
s.frame(300, {1: ("moved", 150, 400)})
s.frame(400, {1: ("ended", 160, 400)})
s.advance(1000)
vector("preset_flutter_pan_slop_and_fling",
       "Under the flutter preset a pan begins past kPanSlop, 36 pt (the defaults: 10): not at "
       "30, at 40. The lift is a fling (a swipe) at kMinFlingVelocity, 50 pt/s, and "
       "kTouchSlop, 18 pt: 10 pt over the last 100 ms is 100 pt/s, which the defaults' "
       "0.3 pt/ms would refuse.",
       s, [ev("pan", "began", 200, translation={"x": 40, "y": 0}),
           ev("pan", "changed", 300, translation={"x": 50, "y": 0}),
           ev("pan", "changed", 400, translation={"x": 60, "y": 0}),
           ev("pan", "ended", 400, translation={"x": 60, "y": 0}),
           ev("swipe", "recognized", 400, direction="right", x=160, y=400, touches=1,
              translation={"x": 60, "y": 0}, velocity={"x": 100, "y": 0})],
       hello=hello(config={"preset": "flutter"}))


# ---------------------------------------------------------------- pens (protocol §2.1)

def pen(id, phase, x, y, **kw):
    tp = {"id": id, "phase": phase, "x": x, "y": y, "kind": "pen"}
    tp.update(kw)
    return tp


s = Script()
s.frame(0, raw=[{"id": 1, "phase": "began", "x": 100, "y": 100},
                pen(9, "began", 200, 300, altitude=1.1, hover=True)])
s.frame(40, raw=[{"id": 1, "phase": "stationary", "x": 100, "y": 100},
                 pen(9, "moved", 215, 300, altitude=1.1, hover=True)])
s.frame(80, raw=[{"id": 1, "phase": "ended", "x": 102, "y": 101},
                 pen(9, "moved", 230, 300, altitude=1.1, hover=True)])
s.frame(120, raw=[pen(9, "moved", 245, 300, altitude=1.1, hover=True)])
s.frame(160, raw=[pen(9, "ended", 245, 300, hover=True)])
s.advance(380)
vector("pen_hover_takes_no_part_in_a_tap",
       "A pen above the glass (hover: true) is no finger: while it hovers and moves 45 points, a "
       "finger's tap is a one-finger tap at the finger's lift, after the double-tap wait; the "
       "hovering pen starts no pan, is not counted in touches, and its moved/ended get no "
       "unknown_touch (protocol §2.1).",
       s, [tap(380, 102, 101, id=1, touches=1, fingers=[{"id": 1, "x": 100, "y": 100, "regions": []}])])

s = Script()
s.frame(0, raw=[pen(5, "began", 100, 100, pressure=0.5)])
s.frame(50, raw=[pen(5, "moved", 150, 100, pressure=0.6, altitude=0.8, azimuth=1.5)])
s.frame(100, raw=[pen(5, "moved", 160, 100, hover=True)])
s.frame(150, raw=[pen(5, "ended", 160, 100, hover=True)])
s.frame(500, raw=[pen(6, "began", 200, 200, pressure=0.3)])
s.frame(550, raw=[pen(6, "ended", 200, 200, pressure=0.3)])
s.advance(1000)
vector("pen_lifted_to_hover_is_cancelled",
       "A pen touching the glass is a finger to the engine, whatever its members (its pan begins "
       "past the slop); listed only as hovering, it left the glass without its ended: missing, "
       "so cancelled, its pan too (as a missing finger). A later pen touch is a tap of its own.",
       s, [ev("pan", "began", 50), ev("pan", "cancelled", 100), tap(850, 200, 200)])

s = Script()
PRESSURES = [0, 0.25, 0.5, 0.75, 1]
s.frame(0, raw=[pen(1, "began", 50, 100, pressure=PRESSURES[0])])
for k in range(1, 5):
    s.frame(100 * k, raw=[pen(1, "moved", 50 + 25 * k, 100, pressure=PRESSURES[k])])
s.frame(500, raw=[pen(1, "ended", 150, 100, pressure=1)])
vector("sketch_pen_line_width_follows_pressure",
       "A pen's line in the sketch scene has one width per point, 4 x (0.25 + 1.5 x pressure) "
       "points (gestures.md, sketch, 'Width from pressure'): 1 at no pressure, today's 4 at 0.5, "
       "7 at the most; the pen is a finger to the engine, so its line is a pan too.",
       s, [ev("pan", "began", 100, translation={"x": 25, "y": 0})]
       + [ev("pan", "changed", 100 * k) for k in range(2, 5)] + [ev("pan", "ended", 500)],
       hello=hello(scene="sketch"),
       scene={"scene": "sketch", "lines": [dict(line_pts(100), widths=[4 * (0.25 + 1.5 * p) for p in PRESSURES])],
              "selected": None, "drawing": []})

# ---------------------------------------------------------------- palm rejection
# config.palm (gestures.md, "Palm rejection"): on by default, radius 80 pt, whilePen true. A
# palm's touches are no fingers: the expectations are those of the same frames without them.

def palm(id, phase, x, y, radius=96, **kw):
    tp = {"id": id, "phase": phase, "x": x, "y": y, "radius": radius}
    tp.update(kw)
    return tp


def finger(id, phase, x, y, **kw):
    tp = {"id": id, "phase": phase, "x": x, "y": y}
    tp.update(kw)
    return tp


s = Script()
s.frame(0, raw=[finger(1, "began", 100, 400), finger(2, "began", 200, 400)])
s.frame(50, raw=[finger(1, "moved", 75, 400), finger(2, "moved", 225, 400)])
s.frame(100, raw=[finger(1, "moved", 50, 400), finger(2, "moved", 250, 400), palm(3, "began", 200, 600)])
s.frame(150, raw=[finger(1, "moved", 25, 400), finger(2, "moved", 275, 400),
                  palm(3, "moved", 205, 610, radius=110)])
s.frame(200, raw=[finger(1, "ended", 25, 400), finger(2, "ended", 275, 400),
                  palm(3, "stationary", 205, 610, radius=110)])
s.frame(250, raw=[palm(3, "ended", 205, 610, radius=110)])
s.advance(1000)
vector("palm_during_pinch_leaves_pinch_unchanged",
       "A touch of radius 96 (at least the default 80) landing mid-pinch is a palm: the pinch "
       "neither re-bases nor counts it. Scale is the two fingers' spread over their 100 at "
       "landing: 150/100, 200/100, 250/100; the centre stays their midpoint (150, 400), "
       "touches 2, fingers the two; velocity over the 100 ms window 10/s throughout. With the "
       "palm counted, three fingers' spread (twice the mean distance from their centroid) and "
       "the centroid would move. The pinch ends when the two fingers lift, though the palm is "
       "still down, and the palm's own lift is no tap.",
       s, [ev("pinch", "began", 50, scale=1.5, x=150, y=400, touches=2, velocity=10),
           ev("pinch", "changed", 100, scale=2.0, x=150, y=400, touches=2, velocity=10,
              fingers=[{"id": 1, "x": 50, "y": 400}, {"id": 2, "x": 250, "y": 400}]),
           ev("pinch", "changed", 150, scale=2.5, x=150, y=400, touches=2, velocity=10,
              fingers=[{"id": 1, "x": 25, "y": 400}, {"id": 2, "x": 275, "y": 400}]),
           ev("pinch", "ended", 200, scale=2.5, x=150, y=400, touches=2)])

s = Script()
s.frame(0, raw=[pen(9, "began", 200, 300)])
s.frame(20, raw=[pen(9, "stationary", 200, 300), finger(1, "began", 100, 500)])
s.frame(40, raw=[pen(9, "moved", 230, 300), finger(1, "stationary", 100, 500)])
s.frame(70, raw=[pen(9, "stationary", 230, 300), finger(1, "ended", 101, 500)])
s.frame(100, raw=[pen(9, "moved", 240, 300)])
s.frame(150, raw=[pen(9, "ended", 240, 300)])
s.frame(500, raw=[finger(2, "began", 100, 500)])
s.frame(550, raw=[finger(2, "ended", 101, 500)])
s.advance(1000)
vector("palm_while_pen_is_no_tap",
       "With whilePen (the default) a finger that lands while a pen touches is a palm, whatever "
       "its size: its quick lift is no tap and it does not join the pen's pan, which is one "
       "touch from where the pen landed (translation 30, then 40; no swipe: 40 < 50). After "
       "the pen has lifted, the same quick press is a tap again (after the 300 ms wait).",
       s, [ev("pan", "began", 40, x=230, y=300, touches=1, translation={"x": 30, "y": 0}),
           ev("pan", "changed", 100, x=240, y=300, touches=1, translation={"x": 40, "y": 0}),
           ev("pan", "ended", 150, touches=1, translation={"x": 40, "y": 0}),
           tap(850, 101, 500, touches=1)])

s = Script()
s.frame(0, raw=[finger(1, "began", 100, 100, radius=96)])
s.frame(50, raw=[finger(1, "ended", 100, 100, radius=96)])
s.frame(400, raw=[finger(2, "began", 200, 200, radius=30)])
s.frame(450, raw=[finger(2, "ended", 200, 200, radius=30)])
s.advance(1000)
vector("palm_by_radius_is_no_tap",
       "A quick press of radius 96 (at least the default 80) is a palm: no tap, no wait for a "
       "second tap. A press of radius 30 (a fingertip) is a tap.",
       s, [tap(750, 200, 200, touches=1)])

s = Script()
s.frame(0, raw=[finger(1, "began", 100, 100, radius=96)])
s.frame(50, raw=[finger(1, "ended", 100, 100, radius=96)])
s.frame(400, raw=[pen(9, "began", 300, 300), finger(2, "began", 200, 200)])
s.frame(450, raw=[pen(9, "stationary", 300, 300), finger(2, "ended", 200, 200)])
s.frame(460, raw=[pen(9, "ended", 300, 300)])
s.advance(1000)
vector("palm_off_every_touch_is_a_finger",
       "config.palm false turns palm rejection off: a press of radius 96 is a tap, and a finger "
       "landing beside a pen makes a two-finger tap with it (reported at once, "
       "multiFingerTapMaxCount 1) at the midpoint of their lifts.",
       s, [tap(350, 100, 100, touches=1), tap(460, 250, 250, touches=2)],
       hello=hello(config={"palm": False}))

s = Script()
s.frame(0, raw=[finger(1, "began", 100, 100, radius=50)])
s.frame(50, raw=[finger(1, "ended", 100, 100, radius=50)])
s.frame(400, raw=[pen(9, "began", 300, 300), finger(2, "began", 200, 200)])
s.frame(450, raw=[pen(9, "stationary", 300, 300), finger(2, "ended", 200, 200)])
s.frame(460, raw=[pen(9, "ended", 300, 300)])
s.advance(1000)
vector("palm_radius_set_and_while_pen_off",
       "config.palm {radius: 40, whilePen: false}: a press of radius 50 is a palm (no tap); a "
       "finger landing beside a pen is a finger again, so pen and finger make a two-finger tap.",
       s, [tap(460, 250, 250, touches=2)],
       hello=hello(config={"palm": {"radius": 40, "whilePen": False}}))

s = Script()
s.frame(0, raw=[finger(1, "began", 100, 100, radius=20)])
s.frame(50, raw=[finger(1, "moved", 130, 100, radius=24)])
s.frame(100, raw=[finger(1, "moved", 140, 100, radius=90)])
s.frame(150, raw=[finger(1, "moved", 200, 100, radius=60)])
s.frame(200, raw=[finger(1, "ended", 200, 100, radius=60)])
s.frame(500, raw=[finger(2, "began", 100, 300)])
s.frame(550, raw=[finger(2, "ended", 100, 300)])
s.advance(1000)
vector("finger_turning_palm_is_cancelled",
       "A finger whose radius grows past 80 becomes a palm from that frame and leaves the "
       "engine as a cancelled finger: its pan is cancelled there, and it starts nothing more "
       "though its radius shrinks again (a palm until it ends). The next press is a tap.",
       s, [ev("pan", "began", 50, touches=1, translation={"x": 30, "y": 0}),
           ev("pan", "cancelled", 100),
           tap(850, 100, 300, touches=1)])


# ---------------------------------------------------------------- shapes
# config.shapes (gestures.md, "Shapes"): a drawing is judged when shapeStrokeGap (default
# 500 ms) after its last lift has passed; $P ignores position and size, so a drawing that is the
# template's own path, scaled and moved, is the same cloud: distance 0, score 1. Only the shape
# recognizer runs (`recognizers`), so the pan the stroke also is does not crowd the vector.
TRIANGLE = [[50, 0], [0, 87], [100, 87], [50, 0]]
SQUARE = [[0, 0], [0, 100], [100, 100], [100, 0], [0, 0]]


def draw_path(s, t, points, id=1, per_edge=8, dt=16):
    """One stroke along `points` (corners included), `per_edge` samples per edge."""
    s.frame(t, {id: ("began",) + tuple(points[0])})
    for a, b in zip(points, points[1:]):
        for k in range(1, per_edge + 1):
            t += dt
            f = k / per_edge
            p = (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
            phase = "ended" if (b is points[-1] and k == per_edge) else "moved"
            s.frame(t, {id: (phase,) + p})
    return t


s = Script()
# The triangle twice its template's size, its box's corner at (100, 200).
drawn = [[100 + 2 * x, 200 + 2 * y] for x, y in TRIANGLE]
lift = draw_path(s, 0, drawn)
s.advance(lift + 499)
s.advance(lift + 500)
vector("shape_triangle_recognized",
       "A one-stroke triangle drawn at twice the template's size elsewhere on the surface is "
       "the triangle template's own cloud: score 1, the nearer of the two templates. It is "
       "reported when shapeStrokeGap (500 ms) after the lift has passed, not a millisecond "
       "before, with the drawing's box (100..300 x 200..374) and its centre as x, y.",
       s, [ev("shape", "recognized", lift + 500, x=200, y=287, touches=1, regions=[],
              name="triangle", score=1, bounds={"x": 100, "y": 200, "width": 200, "height": 174})],
       hello=hello(config={"recognizers": ["shape"], "shapes": [
           {"name": "square", "strokes": [SQUARE]},
           {"name": "triangle", "strokes": [TRIANGLE]}]}))

s = Script()
s.tap(0, 100, 100)
s.advance(2000)
vector("shape_tap_is_not_a_shape",
       "A tap (a stroke that stays within tapMaxMovement) is never a shape, whatever the "
       "templates: the tap is reported when the double-tap wait (300 ms after the lift) ends, "
       "and nothing else, even long after the shape gap.",
       s, [tap(350, 100, 100)],
       hello=hello(config={"recognizers": ["tap", "shape"], "shapes": [
           {"name": "triangle", "strokes": [TRIANGLE]},
           {"name": "dot-ish", "strokes": [[[0, 0], [1, 1]]]}]}))


# ---------------------------------------------------------------- predicted positions
# An observer with `?predict=MS` (protocol/README.md §2.5). `expect.predicted` has one list per
# `touches` message (one per frame), of the entries that carry `predicted`: {"id", "x", "y"}.
# The motions are chosen so the rules give the values in closed form: a least-squares line
# through points on a line, and a least-squares quadratic through four or more points on a
# parabola, are that line and that parabola.

NO_GESTURES = hello(config={"recognizers": ["tap"]})

s = Script()
# 0.5 pt/ms right and 0.25 up, a sample every 8 ms; then it holds (stationary) and lifts.
for i in range(6):
    t = 8 * i
    s.frame(t, {1: ("began" if i == 0 else "moved", 100 + t / 2, 300 - t / 4)})
s.frame(48, {})
s.frame(56, {1: ("ended", 120, 290)})
steady = [[]] + [[{"id": 1, "x": 100 + (8 * i + 20) / 2, "y": 300 - (8 * i + 20) / 4}] for i in range(1, 6)] + [[], []]
vector("predict_steady_line",
       "predict=20: a finger moving at a steady 0.5 pt/ms right and 0.25 up is predicted 20 ms "
       "along its line, (+10, -5), from its first moved entry on (two samples make a line); its "
       "began, stationary and ended entries carry no prediction.",
       s, [], hello=NO_GESTURES, predict=20, predicted=steady)

s = Script()
# x = 0.01 t^2: speeding up, a sample every 10 ms.
for i in range(6):
    t = 10 * i
    s.frame(t, {1: ("began" if i == 0 else "moved", 0.01 * t * t, 100)})
s.frame(60, {1: ("ended", 36, 100)})
# t=10: the line through (0,0),(10,1): 1 + 0.1*20 = 3. t=20: the least-squares line through
# (0,0),(10,1),(20,4) has slope 0.2: 4 + 0.2*20 = 8. From t=30 (four samples within 30 ms) the
# quadratic is exact, v = 0.02 t, a/2 = 0.01: p + v*20 + 0.5*(0.01*20^2) = p + 0.4 t + 2.
speeding = [[], [{"id": 1, "x": 3, "y": 100}], [{"id": 1, "x": 8, "y": 100}]] + [
    [{"id": 1, "x": 0.01 * t * t + 0.4 * t + 2, "y": 100}] for t in (30, 40, 50)] + [[]]
vector("predict_speeding_up",
       "predict=20 on x = 0.01 t^2: with two or three samples a least-squares line, from four "
       "(those of the last 30 ms) the quadratic, carried on with its velocity and half its "
       "acceleration term: p + v*MS + 0.5*(0.01*MS^2).",
       s, [], hello=NO_GESTURES, predict=20, predicted=speeding)

s = Script()
# x = 2t - 0.01 t^2: slowing down, a sample every 10 ms, predicted 100 ms ahead.
for i in range(9):
    t = 10 * i
    s.frame(t, {1: ("began" if i == 0 else "moved", 2 * t - 0.01 * t * t, 100)})
s.frame(90, {1: ("ended", 99, 100)})
def slowing(t):
    p, v = 2 * t - 0.01 * t * t, 2 - 0.02 * t
    velocity, eased = v * 100, -0.5 * 0.01 * 100 * 100  # -50
    if abs(eased) > abs(velocity):
        eased = -velocity
    return p + velocity + eased
# t=10: line through (0,0),(10,19): 19 + 1.9*100. t=20: least-squares slope through
# (0,0),(10,19),(20,36) is 1.8: 36 + 180.
slow = [[], [{"id": 1, "x": 19 + 190, "y": 100}], [{"id": 1, "x": 36 + 180, "y": 100}]] + [
    [{"id": 1, "x": slowing(t), "y": 100}] for t in (30, 40, 50, 60, 70, 80)] + [[]]
vector("predict_slowing_down_never_turns_back",
       "predict=100 on x = 2t - 0.01 t^2: half the acceleration's term is -50 points, and once "
       "the velocity's term (100 v) is shorter than that (t > 75) the acceleration's is cut to "
       "its length: the finger is predicted where it is, not behind it.",
       s, [], hello=NO_GESTURES, predict=100, predicted=slow)

s = Script()
pen_at = lambda phase, x, hover=False: {"id": 4, "phase": phase, "x": x, "y": 200, "kind": "pen", "hover": hover}
s.frame(0, raw=[pen_at("began", 100)])
s.frame(10, raw=[pen_at("moved", 110)])
s.frame(20, raw=[pen_at("moved", 120)])
# It lifts to hover without `ended` (the engine counts it cancelled): its history starts again
# (one sample: predicted where it is), and it is predicted as it hovers on.
s.frame(30, raw=[pen_at("moved", 140, hover=True)])
s.frame(40, raw=[pen_at("moved", 150, hover=True)])
# A frame without it (it counts as gone), then id 4 again: a new touch, with no speed from before.
s.frame(50, raw=[])
s.frame(60, raw=[pen_at("began", 300)])
s.frame(70, raw=[pen_at("moved", 280)])
s.frame(80, raw=[pen_at("ended", 280)])
pens = [[], [{"id": 4, "x": 120, "y": 200}], [{"id": 4, "x": 130, "y": 200}],
        [{"id": 4, "x": 140, "y": 200}], [{"id": 4, "x": 160, "y": 200}], [], [],
        [{"id": 4, "x": 260, "y": 200}], []]
vector("predict_hovering_pen_and_new_histories",
       "predict=10: a pen moving at 1 pt/ms is predicted 10 points on; when it lifts to hover its "
       "history starts again (one sample: predicted where it is) and it is predicted as it "
       "hovers on (a hovering pen's pointer lags as much); a touch missing from a frame is gone: "
       "id 4 after it is a new touch (-2 pt/ms: 280 - 20).",
       s, [], hello=NO_GESTURES, predict=10, predicted=pens)


# ---------------------------------------------------------------- write

if __name__ == "__main__":
    for f in os.listdir(HERE):
        if f.endswith(".json"):
            os.remove(os.path.join(HERE, f))
    for v in VECTORS:
        with open(os.path.join(HERE, v["name"] + ".json"), "w") as fh:
            json.dump(v, fh, indent=1)
            fh.write("\n")
    print(len(VECTORS), "vectors")
