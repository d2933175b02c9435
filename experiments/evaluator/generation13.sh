#!/bin/sh
# Generation 13 of the second evaluator: generation 12's contact and race nets plus a
# crashed net (docs/evaluator.md, "Crashed positions"), step by step. Every step is
# resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation13.sh            # from the repository's root
#
# It reuses generation 12's data and nets (generation12.sh makes them) and adds targeted
# crashed data: the decisions with a crashed contact candidate from three sets of 60,000
# games (seed 2012 and 3012, and generation 12's 1012: positions_*races.npz), labelled at
# 2 ply (s2012 by generation 11, the other two by generation 12; crashed_labels.sh).
# Compute on a 2-core VM (2026-12-03), see experiments/TRAINING.md:
#   2-ply labels of ~157,000 crashed-decision candidates a set     ~20-40 min on 2 cores
#   training the crashed net: ~50 s an epoch (1 thread), 20 epochs
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

[ -f $R/nets_g12.npz ] || PY=$PY sh $E/generation12.sh

# Targeted crashed data.
PY=$PY sh $E/crashed_labels.sh s2012 $R/nets_g11.npz
PY=$PY sh $E/crashed_labels.sh s3012 $R/nets_g12.npz
PY=$PY sh $E/crashed_labels.sh g12 $R/nets_g12.npz

# The crashed net: generation 12's contact net trained on the crashed rows (train.py --net
# crashed keeps the contact positions of features.is_crashed) of all the contact data and
# the crashed sets, with the contact net's schedule.
$PY $E/train.py --net crashed --name x13crash --width 236 --hidden 192 \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9c.npz lookahead:$R/lookahead_g9c \
    --also $R/positions_g10c.npz lookahead:$R/lookahead_g10c \
    --also $R/positions_g11c.npz lookahead:$R/lookahead_g11c \
    --also $R/positions_g12c.npz lookahead:$R/lookahead_g12c@44 \
    --also $R/positions_s2012x.npz lookahead:$R/lookahead_s2012x \
    --also $R/positions_s3012x.npz lookahead:$R/lookahead_s3012x \
    --also $R/positions_g12x.npz lookahead:$R/lookahead_g12x \
    --init $R/c12a/epoch_019.npz --epochs 20 --schedule cosine --lr 1e-3 \
    --rank 16 --rank-also-only --threads 1
$PY $E/pack.py --contact $R/c12a/epoch_019.npz --race $R/r12d/epoch_039.npz \
    --crashed $R/x13crash/epoch_019.npz --out $R/nets_g13.npz
echo "generation 13: $R/nets_g13.npz (scored as in experiments/TRAINING.md)"
