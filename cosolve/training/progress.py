"""What training reports as it goes (:class:`Progress`), and how it is shown (:class:`ProgressDisplay`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, TextIO


@dataclass
class Validation:
    """A validation of the current model: the method's score on the held-out instances (see its
    task's ``validate``) and a second one, its ``energy`` (CAM, GLNS: the mean terminal energy of
    the sampled chains; its task's ``energy_label``), that breaks ties."""

    objective: float
    energy: float


@dataclass
class Progress:
    """What the trainer reports after each iteration and each validation.

    ``elapsed`` seconds of training (a resumed run counts the time before it too), ``budget``
    the training time limit (None for none); ``tau`` the entropy weight of the step, ``loss`` its
    loss and ``train_energy`` the mean terminal energy of its rollouts. ``best`` is the best
    validation so far, reached at ``best_iteration``; ``history`` one dict per validation.
    ``finished`` is set on the last report, with ``note`` saying how the run ended where the user
    should know (interrupted, past its budget, no improvement on the untrained model);
    ``interrupted``: stopped by Ctrl-C (``FitContext.stop``), so it can be resumed.
    """

    iteration: int
    elapsed: float
    budget: float | None
    tau: float
    loss: float
    train_energy: float
    validation: Validation | None = None
    best: Validation | None = None
    best_iteration: int = 0
    history: list[dict[str, float]] = field(default_factory=list)
    finished: bool = False
    note: str = ""
    interrupted: bool = False

    def summary(self) -> str:
        """One line on the finished run."""
        best = (
            "no validation"
            if self.best is None
            else (f"best validation {self.best.objective:.4f} (energy {self.best.energy:.4f}) at iteration {self.best_iteration}")
        )
        return f"trained {self.iteration} iterations in {self.elapsed:.0f} s; {best}"


class ProgressDisplay:
    """Shows training progress on ``stream`` (stderr): a live bar over the budget where it is a
    terminal and ``live``, else one line per validation; with ``summary`` the run's summary (and
    any note) at the end. Pass it as the progress callback; it closes its bar when training ends."""

    def __init__(self, budget: float | None, *, live: bool = True, summary: bool = True, stream: TextIO | None = None) -> None:
        self.budget = budget
        self.summary = summary
        self.stream = stream or sys.stderr
        self.live = live and self.stream.isatty() and budget is not None
        self.bar: Any = None
        self.validations = 0

    def __enter__(self) -> ProgressDisplay:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self.bar = Bar(
                TextColumn("training"), BarColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                console=Console(file=self.stream),
            )  # fmt: skip
            self.bar.start()
            self.task = self.bar.add_task("", total=self.budget)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __call__(self, p: Progress) -> None:
        best = f"best val {p.best.objective:.4f}" if p.best else "no validation yet"
        if self.bar is not None:
            text = f"it {p.iteration}  tau {p.tau:.3f}  loss {p.loss:+.4f}  train energy {p.train_energy:.2f}  {best}"
            self.bar.update(self.task, completed=min(p.elapsed, self.budget or p.elapsed), description=text)
        elif len(p.history) > self.validations:
            self.validations = len(p.history)
            v = p.history[-1]
            line = (
                f"[{v['seconds']:7.0f} s] it {v['iteration']}  val objective {v['objective']:.4f}  val energy {v['energy']:.3f}"
            )
            print(f"{line}  tau {p.tau:.3f}  ({best})", file=self.stream, flush=True)
        if p.finished:
            self.__exit__()
            if self.summary:
                print(p.summary(), file=self.stream, flush=True)
                if p.note:
                    print(f"note: {p.note}", file=self.stream, flush=True)
