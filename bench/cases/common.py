"""Shared by bench/cases/*/check: reading a compare's summary.json
(docs/DIFF.md) and printing the one row of `bench/run cases`.

A case's check is `check SUMMARY_JSON SECONDS`; it prints

    | case | s | figure (95% CI) | check | warnings |

and exits 1 when the case's mechanism is not in the explanation (or there
is no summary), so the row's format is the same for every case."""
import json
import os
import sys


def op(d, name):
    return next((o for o in d["ops"] if o["op"] == name), None)


def sig(c):
    return c["significant"]


def family(o, name):
    return next((f for f in o["families"] if f["name"] == name), None)


def lock(o, name, type_=None):
    return next((l for l in o["locks"] if l["name"] == name and (type_ is None or l["type"] == type_)), None)


def us(c):
    """A comparison in ns as '+1.23 µs/op (lo..hi)', the Welch interval."""
    return "%+.2f µs/op (%.2f..%.2f)" % (c["delta"] / 1e3, c["welch"]["ci_lo"] / 1e3, c["welch"]["ci_hi"] / 1e3)


def screen(summary_json):
    """The summary.txt beside summary_json: its first screen's lines, and what breaks issue 31's limits (first
    screen <= 40 lines, summary <= 150, every line <= 72 columns). A
    summary.json alone (no text beside it) has no screen: (None, [])."""
    txt = os.path.join(os.path.dirname(summary_json), "summary.txt")
    if not os.path.exists(txt):
        return None, []
    with open(txt, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    rule = next((i for i, l in enumerate(lines) if l == "-" * 72), len(lines))
    wide = max((len(l) for l in lines), default=0)
    bad = []
    if rule > 40:
        bad.append("first screen %d lines" % rule)
    if len(lines) > 150:
        bad.append("summary.txt %d lines" % len(lines))
    if wide > 72:
        bad.append("a line of %d columns" % wide)
    return rule, bad


def run(check):
    """check(summary) -> (figure, [failed checks]); the case is the
    directory the calling check lives in."""
    case = os.path.basename(os.path.dirname(os.path.abspath(sys.argv[0])))
    if len(sys.argv) != 3:
        sys.exit("usage: bench/cases/%s/check SUMMARY_JSON SECONDS" % case)
    path, seconds = sys.argv[1], float(sys.argv[2])
    d, lines = {}, 0
    try:
        with open(path) as f:
            d = json.load(f)
        figure, bad = check(d)
        lines, too_long = screen(path)
        bad += too_long
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        figure, bad = "-", ["no summary: %s" % e]
    warn = ",".join(sorted({w["kind"] for w in d.get("warnings", [])})) if figure != "-" else ""
    verdict = ("ok" + (" (first screen %d lines)" % lines if lines else "")) if not bad else "FAILED: " + "; ".join(bad)
    print("| %s | %.0f | %s | %s | %s |" % (case, seconds, figure, verdict, warn))
    sys.exit(1 if bad else 0)
