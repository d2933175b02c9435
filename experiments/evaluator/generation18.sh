#!/bin/sh
# Generation 18 of the second evaluator: generation 17's contact and race nets, and a
# crashed net (zK9) that reads the 10 blot inputs (docs/evaluator.md, "Blot features";
# train.py --crashed-blots 10) and learns realistic crashed decisions (cr1x, cr2x, cr4x,
# cr5x of crashed_realistic.sh) and bear-offs against contact (cb1x, cb3x of
# crashed_bearoff.sh), all labelled at 2 ply by generation 17. Every step is resumable:
# rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation18.sh            # from the repository's root
#
# Compute on the 2-core VM (2026-12-05), see experiments/TRAINING.md "Generation 18":
# generation 17 (generation17.sh), then crashed_bearoff.sh's sets (about 50 min),
# crashed_realistic.sh's five sets (positions a few minutes each, labels about 26 min a
# set on 2 cores) and training about 15 min on 2 cores.
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
PY=$PY sh $E/crashed_bearoff.sh
PY=$PY MORE=1 TRAIN=1 sh $E/crashed_realistic.sh
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zK9/epoch_019.npz --out $R/nets_g18.npz
echo "generation 18: $R/nets_g18.npz (scored as in experiments/TRAINING.md)"
