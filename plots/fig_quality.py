"""What the search finds: the verifier's false-pass rate per field, and the cost of the plans."""
from draw import NoData, bars, panels
from results import group

PLANS = ("unfused", "xla", "astitch")


def _one_per_seed(results):
    """Runs of the same program, field and seed repeat the same tests: count each such set once."""
    return [max(rs, key=lambda r: (not r.partial, r.stats.get("fingerprint_evals", 0)))
            for rs in group(results, "program", "field", "seed").values()]


def false_pass(results):
    """Fingerprint matches that the confirmation tests then rejected, over fingerprint evaluations."""
    runs = _one_per_seed(results)
    if not any(r.stats.get("fingerprint_evals") for r in runs):
        raise NoData("no fingerprint evaluations recorded")
    programs = sorted({r.program for r in runs}) + ["all"]
    fields = sorted({r.field for r in runs})
    tallies = {f: {p: None for p in programs} for f in fields}  # None: no run of it in that field
    for r in runs:
        for p in (r.program, "all"):
            k, n = tallies[r.field][p] or (0, 0)
            tallies[r.field][p] = (k + r.stats.get("confirm_failures", 0), n + r.stats.get("fingerprint_evals", 0))
    series = {f: [100 * t[0] / t[1] if t and t[1] else 0 for t in tallies[f].values()] for f in fields}
    counts = {f: [f"{t[0]}/{t[1]}" if t else "no run" for t in tallies[f].values()] for f in fields}
    fig, (ax,) = panels(1, "Verifier false passes by field",
                        width=max(7.0, 2 + 0.5 * len(programs) * len(fields)), height=4.0)
    bars(ax, programs, series, labels=counts)
    ax.set_ylabel("false passes / fingerprint evaluations (%)")
    ax.set_xlabel("program (labels: fingerprint matches the confirmation tests rejected / evaluations)")
    return fig


def plan_costs(results):
    """Estimated time and device-memory traffic of the three reference plans and the best μGraph."""
    by_program = {p: rs for (p,), rs in group(results, "program").items() if rs[0].doc.get("plans")}
    if not by_program:
        raise NoData("no results file has plans (top-level \"plans\")")
    names = [*PLANS, "best μGraph"]
    costs = {p: [rs[0].doc["plans"].get(n, {}) for n in PLANS] + [_best(rs)] for p, rs in by_program.items()}
    fig, axes = panels(2, "Estimated cost per benchmark: reference plans and the best μGraph found",
                       ncols=1, width=max(6.0, 2 + 1.2 * len(by_program)))
    for ax, key, scale, ylabel in ((axes[0], "estimated_us", 1, "estimated time (µs)"),
                                   (axes[1], "dram_bytes", 1 / 1024, "device-memory traffic (KiB)")):
        series = {n: [c[i].get(key, 0) * scale for c in costs.values()] for i, n in enumerate(names)}
        kernels = {n: [_kernels(c[i]) for c in costs.values()] for i, n in enumerate(names)}
        bars(ax, list(costs), series, labels=kernels if key == "estimated_us" else None)
        ax.set_ylabel(ylabel)
    axes[0].set_xlabel("(labels: kernels launched; none: no μGraph found)")
    return fig


def _best(runs):
    found = [r.best_cost for r in runs if r.best_cost]
    return min(found, key=lambda c: c.get("estimated_us", float("inf"))) if found else {}


def _kernels(cost):
    return f"{cost['kernels']} kernel{'' if cost['kernels'] == 1 else 's'}" if "kernels" in cost else "none"
