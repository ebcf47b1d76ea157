"""Touch input as a timeline every browser driver plays: a list of steps `(delay, points)`,
`points` being the fingers down after the step as `(id, x, y)` in CSS pixels of the page and
`delay` the seconds since the previous step. A step adds fingers, moves them or lifts some,
never two of these at once (`kind` tells which)."""


def kind(before, after):
    """`touchStart`, `touchMove` or `touchEnd`: what a step does to the fingers down."""
    ids_before, ids_after = {i for i, _, _ in before}, {i for i, _, _ in after}
    if ids_after - ids_before:
        return "touchStart"
    if ids_before - ids_after:
        return "touchEnd"
    return "touchMove"


def tap(x, y, hold=0.05):
    return [(0, [(0, x, y)]), (hold, [])]


def drag(start, end, steps, dt, finger=0):
    (x0, y0), (x1, y1) = start, end
    moves = [(dt, [(finger, x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps)]) for k in range(1, steps + 1)]
    return [(0, [(finger, x0, y0)]), *moves, (dt, [])]


def pinch(cx, cy, d0, d1, steps, dt):
    """Two fingers on a horizontal line through (cx, cy), `d0` from it each, spread to `d1`."""
    moves = []
    for k in range(1, steps + 1):
        d = d0 + (d1 - d0) * k / steps
        moves.append((dt, [(0, cx - d, cy), (1, cx + d, cy)]))
    return [(0, [(0, cx - d0, cy)]), (0.02, [(0, cx - d0, cy), (1, cx + d0, cy)]), *moves,
            (dt, [(1, cx + d1, cy)]), (0.03, [])]


def w3c_actions(timeline, pointer_type="touch"):
    """The timeline as WebDriver actions (one pointer input source per finger, `pointer_type`
    each): a tick of pauses for each delay, then ticks for the step's change: a finger that
    goes down first moves to its place, and fingers that move do so one tick each (Firefox
    fires `pointermove` for only the first of several touch pointers moved in one tick)."""
    ids = sorted({i for _, points in timeline for i, _, _ in points})
    lanes = {i: [] for i in ids}

    def tick(actions):
        for i in ids:
            lanes[i].append(actions.get(i, {"type": "pause", "duration": 0}))

    down = []
    for delay, points in timeline:
        if delay > 0:
            tick({i: {"type": "pause", "duration": round(delay * 1000)} for i in ids})
        now = {i: (x, y) for i, x, y in points}
        was = {i for i, _, _ in down}
        landing = [i for i in now if i not in was]
        if landing:
            tick({i: {"type": "pointerMove", "x": round(now[i][0]), "y": round(now[i][1]), "duration": 0} for i in landing})
            tick({i: {"type": "pointerDown", "button": 0} for i in landing})
        lifted = [i for i in was if i not in now]
        if lifted:
            tick({i: {"type": "pointerUp", "button": 0} for i in lifted})
        moved = [i for i in now if i in was]
        if not lifted:
            for i in moved:
                tick({i: {"type": "pointerMove", "x": round(now[i][0]), "y": round(now[i][1]), "duration": 0}})
        down = points
    return [{"type": "pointer", "id": f"finger{i}", "parameters": {"pointerType": pointer_type}, "actions": lanes[i]}
            for i in ids]
