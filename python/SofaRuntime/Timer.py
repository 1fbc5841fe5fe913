"""SofaRuntime.Timer: SofaPython3's bindings of SOFA's AdvancedTimer, on
settee's timers (settee/timer.h).

A timer records while it runs (setEnabled(id, True), begin(id) ... end(id)):
the steps the kernel and the components report, nested, and their values.
settee reports SOFA's labels where it does the same work: "solve" (the
animation loop's solve phase), "Mechanical (node)" (an ODE solver's
integration, named by its node), "ComputeForce", "MBKBuild" (a linear
solver's set_system, assembly and factorisation), "MBKSolve" (a linear
solve), "StaticSolver::Solve", "NewtonStep" (one per Newton iteration) with
the values "nb_iterations" and "residual", and "CG iterations" (CGLinearSolver,
in its MBKSolve). getRecords(id) gives them as SofaPython3 does: a dict per
step with "start_time", "end_time", "total_time" in milliseconds since the
timer began, a list when a step repeats, values as numbers.

settee's animation loop starts no timer of its own ("Animate" is never
running): a script times a step with a timer it begins itself."""
from settee import _settee as _st


def clear():
    """Stops and forgets every timer."""
    _st.timer_clear()


def isEnabled(id):
    return _st.timer_is_enabled(str(id))


def setEnabled(name, enabled):
    _st.timer_set_enabled(str(name), bool(enabled))


def begin(id):
    _st.timer_call("begin", str(id))


def end(id):
    _st.timer_call("end", str(id))


def stepBegin(id):
    _st.timer_call("step_begin", str(id))


def stepEnd(id):
    _st.timer_call("step_end", str(id))


def valSet(id, value):
    """settee's addition: reports a value from Python (SOFA's AdvancedTimer::valSet)."""
    _st.timer_call("val_set", str(id), float(value))


_intervals = {}


def getInterval(id):
    """SOFA's output interval of a timer (kept, settee prints no timer output)."""
    return _intervals.get(str(id), 1)


def setInterval(id, interval):
    _intervals[str(id)] = int(interval)


def setOutputType(id, newOutputType):
    """SOFA's output formats (stdout, JSON ...): settee prints no timer output;
    read getRecords instead. Accepted and ignored."""


def getRecords(id):
    """The records of timer id's current (or last) run as nested dicts."""
    records, _truncated = _st.timer_records(str(id))
    root = {}
    stack = [root]
    ref = None
    for kind, label, t, value in records:
        if kind in ("begin", "step_begin"):
            if kind == "begin":
                ref = t
            if ref is None:
                continue
            cur = stack[-1]
            new = {}
            old = cur.get(label)
            if isinstance(old, list):
                old.append(new)
            elif isinstance(old, dict):
                cur[label] = [old, new]
            else:
                cur[label] = new
            new["start_time"] = 1000.0 * (t - ref)
            stack.append(new)
        elif kind in ("end", "step_end"):
            if len(stack) < 2 or ref is None:
                continue
            cur = stack.pop()
            cur["end_time"] = 1000.0 * (t - ref)
            cur["total_time"] = cur["end_time"] - cur["start_time"]
        else:
            stack[-1][label] = value
    # read while the timer runs: its own level; after it ended: the top level
    return stack[1] if len(stack) == 2 else root
