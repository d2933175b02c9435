"""Equity tables: opening plays, replies, race formulas against rollouts, gammon rates.

Each table is a single call (and a single command, ``fastbg table NAME``) built on the
rollouts of :mod:`fastbg.rollouts`: candidate-play rollouts with common random numbers,
variance reduction and quasi-random dice where they apply. A table is a run of the results
store with its rows as runs of their own (:mod:`fastbg.research.table`), so an interrupted
table resumes where it stopped and ends with the numbers of one uninterrupted table.
:mod:`~fastbg.research.plots` draws the tables and the convergence of a rollout;
:func:`~fastbg.research.resume.resume` continues any stored run, table or rollout.
"""
from .gammons import PHASES, gammons_table
from .openings import OPENING_ROLLS, REPLY_ROLLS, openings_table, parse_opening, replies_table
from .plots import convergence, plot_convergence, plot_table
from .race import (keith_count, keith_decision, race_table, random_race_position,
                   trice_decision, trice_point_of_last_take)
from .resume import resume
from .table import TABLES, TableResult, derived_seed

__all__ = ["OPENING_ROLLS", "REPLY_ROLLS", "openings_table", "parse_opening", "replies_table",
           "race_table", "random_race_position", "keith_count", "keith_decision",
           "trice_point_of_last_take", "trice_decision", "PHASES", "gammons_table",
           "convergence", "plot_convergence", "plot_table", "TABLES", "TableResult",
           "derived_seed", "resume"]
