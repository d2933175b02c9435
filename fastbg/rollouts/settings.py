"""What a rollout's numbers depend on: the settings every result carries (DESIGN section 5).

Same fastbg version + same settings (seed included) = same numbers, so a result that
records them can be reproduced, compared and extended.
"""
from __future__ import annotations

from .._version import __version__
from ..nn import network_info

__all__ = ["POLICY_PLY", "policy_checksum", "rollout_settings", "YARDSTICK"]

#: Look-ahead of each policy's checker play, in plies.
POLICY_PLY = {"nn": 0, "nn-1ply": 1, "nn1": 0, "pubeval": 0, "random": 0}

#: The evaluator that values every roll for variance reduction, whatever the policy.
YARDSTICK = "nn"


def policy_checksum(policy: str) -> str | None:
    """SHA-256 of the network file a policy plays by (``None`` for pubeval and random,
    whose weights are part of the code)."""
    if policy in ("nn", "nn-1ply"):
        return network_info("nn")["sha256"]
    if policy == "nn1":
        return network_info("nn1")["sha256"]
    return None


def rollout_settings(*, policy: str, seed: int, games: int, block_size: int, vr: bool,
                     first_roll, engine: str, vr_prefilter: int | None = None,
                     dice_method: str = "pseudo-random",
                     truncation: int | None = None, **extra) -> dict:
    """The settings of a rollout as a JSON-ready dict.

    Parameters
    ----------
    policy : str
        The checker-play policy of both sides.
    seed : int
        The root seed actually used.
    games : int
        Games asked for.
    block_size : int
        Games per block (part of the reproducibility contract).
    vr : bool
        Variance reduction (luck adjustment by :data:`YARDSTICK` at 0 ply).
    vr_prefilter : int, optional
        With ``vr``: the yardstick's best play of a roll is taken among the pubeval's best
        ``vr_prefilter`` plays (0: among all).
    first_roll : str or tuple
        ``"opening"`` (the opening roll), ``"rolled"`` (an ordinary roll, doubles
        included) or the fixed first roll ``(d1, d2)``.
    engine : str
        ``"cython"`` or ``"python"`` (same numbers; recorded for the record).
    dice_method : str
        How the dice are drawn.
    truncation : int, optional
        Half-moves after which a game is scored by the evaluator (``None``: played out).
    **extra
        More settings of the kind of rollout (cube state, ...), added as given.

    Returns
    -------
    dict
        ``policy``, ``policy_sha256``, ``ply``, ``vr``, ``yardstick`` (and its
        ``yardstick_sha256``) when ``vr``, ``dice``, ``first_roll``, ``truncation``, ``seed``,
        ``games``, ``block_size``, ``engine``, ``fastbg_version``, then ``extra``.
    """
    d = {"policy": policy, "policy_sha256": policy_checksum(policy),
         "ply": POLICY_PLY.get(policy, 0), "vr": bool(vr)}
    if vr:
        d["yardstick"] = (f"{YARDSTICK} 0-ply" + (f" on pubeval's {vr_prefilter} best plays"
                                                  if vr_prefilter else ""))
        d["yardstick_sha256"] = policy_checksum(YARDSTICK)
    d.update(dice=dice_method,
             first_roll=list(first_roll) if isinstance(first_roll, tuple) else first_roll,
             truncation=truncation, seed=seed, games=games, block_size=block_size,
             engine=engine, fastbg_version=__version__)
    d.update(extra)
    return d
