"""The geometry of a scenario's timeline picture (drawn as inline SVG by templates/timeline.svg.j2).

Target-clock seconds since the scenario began on the x axis; one lane per node (its Ready condition,
Lease renewals as ticks, taints as bars from their timeAdded), one lane per pod (bound to which node,
pending, gone); the scenario's timing verdicts as marks (the allowed window as a band, the
document's deadline as a dashed line, what was observed as a dot); the steps along the axis.
"""

from __future__ import annotations

import dataclasses
import math

WIDTH = 960
LABEL = 200          # left column for lane names
RIGHT = 24
LANE = 26
AXIS = 34
TOP = 8
MARKS_ROW = 26       # below the lanes: where the runner looked (dots) and the deadlines' labels
READY_COLOURS = {"True": "#2e7d32", "False": "#c62828", "Unknown": "#9e9e9e"}
VERDICT_COLOURS = {"passed": "#2e7d32", "failed": "#c62828", "error": "#ef6c00"}
TICK_STEPS = (0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 3600)
GAP = 0.5            # seconds unobserved before the picture draws them as such
UNSEEN = "#eceff1"


@dataclasses.dataclass
class Bar:
    x: float
    width: float
    colour: str
    label: str = ""
    title: str = ""
    dashed: bool = False


@dataclasses.dataclass
class Lane:
    name: str
    y: float
    bars: list[Bar] = dataclasses.field(default_factory=list)
    ticks: list[tuple[float, str]] = dataclasses.field(default_factory=list)     # (x, title)
    diamonds: list[tuple[float, str]] = dataclasses.field(default_factory=list)  # (x, title)


@dataclasses.dataclass
class Mark:
    x: float
    label: str
    colour: str
    dashed: bool
    title: str
    left: bool = False       # label to the left of the line (near the right edge)


@dataclasses.dataclass
class Picture:
    width: int
    height: int
    lanes: list[Lane]
    axis: list[tuple[float, str]]
    marks: list[Mark]
    bands: list[tuple[float, float, str]]        # (x, width, title): allowed windows
    dots: list[tuple[float, float, str, str]]    # (x, y, colour, title): observed moments
    steps: list[tuple[float, str, str]]          # (x, number, title)
    plot_top: float
    plot_bottom: float
    span: float


def _pod_bars(history: list[dict], end: float, x, t0: float) -> list[Bar]:
    """What was observed of a pod: each state from when it began to when it was last seen; between
    that and the next state's beginning nothing was seen, and the picture says so (a hatched gap)
    instead of stretching the old state up to the moment the runner looked again."""
    bars = []
    for i, state in enumerate(history):
        nxt = history[i + 1]["at"] if i + 1 < len(history) else end
        last = min(max(state.get("last", nxt), state["at"]), nxt)
        if i + 1 == len(history) and end - last < GAP:
            last = end            # seen to the end, as far as a picture can tell
        when = f"+{_fmt(state['at'] - t0)}"
        seen = f", last seen +{_fmt(last - t0)}"
        width = max(x(last) - x(state["at"]), 1.0)
        if state["node"]:
            bars.append(Bar(x(state["at"]), width, "#1565c0", f"on {state['node']}",
                            f"bound to {state['node']} ({state['phase'] or 'no phase'}) from {when}{seen}"))
        else:
            bars.append(Bar(x(state["at"]), width, "#bdbdbd", "not bound",
                            f"not bound ({state['phase'] or 'no phase'}) from {when}{seen}", dashed=True))
        if nxt - last >= GAP:
            bars.append(Bar(x(last), max(x(nxt) - x(last), 1.0), UNSEEN, "",
                            f"not observed from +{_fmt(last - t0)} to +{_fmt(nxt - t0)}", dashed=True))
    return bars


def _tick_step(span: float) -> float:
    for step in TICK_STEPS:
        if span / step <= 10:
            return step
    return TICK_STEPS[-1]


def _fmt(seconds: float) -> str:
    """Whole seconds when whole, else to the tenth (a check interval is 0.5 s or more)."""
    return f"{seconds:.0f} s" if abs(seconds - round(seconds)) < 0.05 else f"{seconds:.1f} s"


def pictures(observations: dict | None, timing: list[dict] | None = None, steps: list[dict] | None = None
             ) -> list[tuple[str, Picture]]:
    """(caption, picture) pairs: the whole scenario, and a close-up around its deadlines when at the
    whole scenario's scale their windows would be a few pixels wide."""
    whole = build(observations, timing, steps)
    if whole is None:
        return []
    out = [("the whole scenario", whole)]
    focus = _focus(observations or {}, timing or [])
    if focus is not None and (focus[1] - focus[0]) * 8 < whole.span:
        close = build(observations, timing, steps, focus=focus)
        if close is not None:
            out.append((f"around the deadline{'s' if len(timing or []) > 1 else ''}", close))
    return out


def _focus(obs: dict, timing: list[dict]) -> tuple[float, float] | None:
    """The stretch of target time the timing verdicts are about, with some room either side."""
    origin = float(obs.get("origin", obs.get("t0", 0.0)))
    moments = []
    for entry in timing:
        moments += [origin + v for v in entry.get("allowed") or ()]
        for key in ("deadline", "observed"):
            if entry.get(key) is not None:
                moments.append(origin + entry[key])
        if entry.get("allowed") and entry.get("kind") == "by":
            moments.append(origin + entry["allowed"][1] + entry.get("allowance", 0.0))
    if not moments:
        return None
    low, high = min(moments), max(moments)
    pad = max(2.0, (high - low) * 0.6)
    return low - pad, high + pad


def build(observations: dict | None, timing: list[dict] | None = None, steps: list[dict] | None = None,
          focus: tuple[float, float] | None = None) -> Picture | None:
    """The picture, or None when there is nothing worth drawing (no node, no pod, no timing);
    ``focus`` narrows the x axis to that stretch of target time."""
    obs = observations or {}
    nodes, pods, timing = obs.get("nodes") or {}, obs.get("pods") or {}, timing or []
    if not (nodes or pods or timing):
        return None
    t0 = float(obs.get("t0", 0.0))
    origin = float(obs.get("origin", t0))      # timing verdicts count from here
    moments = [float(obs.get("end", t0))]
    for entry in nodes.values():
        moments += [r["at"] for r in entry["ready"]] + list(entry["renewals"])
        moments += [t["added"] or t["seen"] for t in entry["taints"]] + [t["gone"] for t in entry["taints"] if t["gone"]]
    for history in pods.values():
        moments += [h["at"] for h in history]
    for entry in timing:
        moments += [origin + v for v in (entry.get("allowed") or [])]
        if entry.get("observed") is not None:
            moments.append(origin + entry["observed"])
    moments += [s["clock"] for s in steps or () if s.get("clock") is not None]
    end = max(moments)
    start = min([t0, *moments])
    span = max(end - start, 1.0) * 1.03
    if focus is not None:
        start, span = focus[0], focus[1] - focus[0]
    plot = WIDTH - LABEL - RIGHT

    def x(t: float) -> float:
        return round(min(max(LABEL + (t - start) / span * plot, LABEL - 2), LABEL + plot + 2), 1)

    def inside(t: float) -> bool:
        return start <= t <= start + span

    lanes: list[Lane] = []
    y = TOP
    for name in sorted(nodes):
        entry = nodes[name]
        lane = Lane(f"node {name}", y)
        changes = entry["ready"]
        for i, change in enumerate(changes):
            until = changes[i + 1]["at"] if i + 1 < len(changes) else end
            lane.bars.append(Bar(x(change["at"]), max(x(until) - x(change["at"]), 1.0),
                                 READY_COLOURS.get(change["status"], "#9e9e9e"), f"Ready={change['status']}",
                                 f"Ready {change['status']} ({change.get('reason', '')}) at "
                                 f"+{_fmt(change['at'] - t0)}"))
        lane.ticks = [(x(t), f"lease renewed at +{_fmt(t - t0)}") for t in entry["renewals"] if inside(t)]
        lanes.append(lane)
        y += LANE
        for taint in entry["taints"]:
            added = taint["added"] if taint["added"] is not None else taint["seen"]
            until = taint["gone"] or end
            short = taint["key"].rsplit("/", 1)[-1]
            t_lane = Lane(f"  {short}:{taint['effect']}", y)
            t_lane.bars.append(Bar(x(added), max(x(until) - x(added), 1.0), "#6a1b9a",
                                   f"{short}:{taint['effect']} from +{_fmt(added - t0)}",
                                   f"{taint['key']}:{taint['effect']} timeAdded +{_fmt(added - t0)}"
                                   + (f", removed by +{_fmt(until - t0)}" if taint["gone"] else "")))
            if inside(added):
                t_lane.diamonds.append((x(added), f"timeAdded +{_fmt(added - t0)}"))
            lanes.append(t_lane)
            y += LANE
    for name in sorted(pods):
        lane = Lane(f"pod {name}", y)
        lane.bars = _pod_bars(pods[name], end, x, t0)
        lanes.append(lane)
        y += LANE
    lanes_end = max(y, TOP + LANE)
    plot_top, plot_bottom = TOP - 4, lanes_end + (MARKS_ROW if timing else 0)
    marks, bands, dots, seen_deadlines = [], [], [], set()
    for entry in timing:
        label = entry.get("step", "")
        if entry.get("allowed"):
            low, high = (origin + v for v in entry["allowed"])
            high += entry.get("allowance", 0.0) if entry.get("kind") == "by" else 0.0
            bands.append((x(low), max(x(high) - x(low), 2.0),
                          f"{label}: allowed from +{_fmt(low - t0)} to +{_fmt(high - t0)}"
                          + (f" (incl. {entry['allowance']:g} s measured latency)" if entry.get("allowance") else "")))
        if entry.get("deadline") is not None and round(entry["deadline"], 3) not in seen_deadlines:
            seen_deadlines.add(round(entry["deadline"], 3))
            at = origin + entry["deadline"]
            marks.append(Mark(x(at), f"expected +{_fmt(at - t0)}", "#c62828", True,
                              f"{label}: the document's moment, +{_fmt(at - t0)}", x(at) > LABEL + plot * 0.75))
        if entry.get("observed") is not None:
            at = origin + entry["observed"]
            colour = VERDICT_COLOURS.get(entry.get("verdict", ""), "#000")
            dots.append((x(at), lanes_end + 6, colour,
                         f"{label}: looked at +{_fmt(at - t0)}, {entry.get('verdict', '')}"
                         + (f" ({entry['detail'].splitlines()[0]})" if entry.get("detail") else "")))
    step_marks, last_label = [], -1e9
    for i, s in enumerate(steps or ()):
        if s.get("clock") is None or not inside(s["clock"]):
            continue
        at = x(s["clock"])
        number = str(i + 1) if at - last_label >= 14 else ""    # numbers that would overlap stay unnamed
        last_label = at if number else last_label
        step_marks.append((at, number, f"{i + 1}. {s['keyword']} {s['text']} (at +{_fmt(s['clock'] - t0)})"))
    every = _tick_step(span)
    first = math.ceil((start - t0) / every) * every
    axis = []
    t = first
    while t0 + t <= start + span:
        axis.append((x(t0 + t), f"{t:g} s"))
        t += every
    return Picture(WIDTH, int(plot_bottom + AXIS), lanes, axis, marks, bands, dots, step_marks,
                   plot_top, plot_bottom, span)
