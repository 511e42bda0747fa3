"""Validation curves of training runs against wall clock, from their resumable state.

    python -m bench.tables.training_curves RUN_FOLDER [RUN_FOLDER ...] > curves.md

Each RUN_FOLDER is a ``cosolve train ... --out RUN_FOLDER`` output (its ``training.pt``). Prints,
per run, its settings that differ from the defaults, and one row per validation: seconds of
training, iteration, mean validation objective and energy; then the untrained (iteration 0) and
the best validation.
"""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

from cosolve.methods.cam.cam_config import CAMConfig
from cosolve.training.checkpoint import load_state


def _config_type(fmt: str) -> type:
    """The config class whose checkpoints carry the format tag ``fmt``."""
    from cosolve.methods.glns.glns_config import GLNSConfig
    from cosolve.methods.sinkhorn.tour_net import TourNetConfig

    for config in (CAMConfig, GLNSConfig, TourNetConfig):
        if config.checkpoint_format == fmt:
            return config
    raise SystemExit(f"no config of checkpoint format {fmt!r}")


def curve(folder: Path) -> str:
    state = load_state(folder)
    config, defaults = state["config"], asdict(_config_type(state["format"])())
    changed = {k: v for k, v in config.items() if defaults.get(k) != v}
    lines = [f"### {folder.name}", "", f"settings: `{changed}`, data: {state['data']}", ""]
    lines += ["| seconds | iteration | objective | energy |", "|---:|---:|---:|---:|"]
    for h in state["history"]:
        lines.append(f"| {h['seconds']:.0f} | {h['iteration']} | {h['objective']:.3f} | {h['energy']:.3f} |")
    first, best = state["history"][0], state["best"]
    lines += [
        "",
        f"untrained {first['objective']:.3f}; best {best['objective']:.3f} at iteration {state['best_iteration']}"
        f" ({state['best_seconds']:.0f} s); {state['iteration']} iterations in {state['elapsed']:.0f} s",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n".join(curve(Path(f)) for f in sys.argv[1:]))
