#!/bin/sh
# Generation 11 of the second evaluator, from generation 10, step by step. Every step is
# resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation11.sh            # from the repository's root
#
# It reuses generation 10's data (generation10.sh makes it: g9b, g9c, g9r, g10c, g10r) and
# adds candidate plays of games played by generation 10, labelled by generation 10 at 2 ply
# (generation_labels.sh 11: 569,744 contact candidates, 198,897 race-decision candidates).
# Compute on a 2-core VM (2026-12-02/03), see experiments/TRAINING.md:
#   positions of 20,000 + 60,000 games                       ~15 min
#   2-ply labels of 569,744 candidate plays by g10           ~3 h on 2 cores
#   2-ply labels of 198,897 race-decision candidates by g10  7 min
#   training: contact ~15-30 s an epoch (inputs cached), race ~5-10 s an epoch
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

# Generation 10's data sets: generation10.sh makes them (and generation 9's before them).
[ -f $R/r10b/epoch_039.npz ] || PY=$PY sh $E/generation10.sh   # its last training step

# Positions played by generation 10 and 2-ply labels of their candidate plays; it takes
# generation 10's nets from git (nets_g10.npz) if they are not here.
PY=$PY sh $E/generation_labels.sh 11 eae72c0

# Generation 10's nets as train.py's warm start.
$PY $E/pack.py --unpack $R/nets_g10.npz --contact $R/c10/epoch_000.npz --race $R/r10/epoch_000.npz

# Training from generation 10's nets on all the data sets so far, generation 10's schedule,
# with the contact net widened from 128 to 192 hidden units (the new units start random):
# at 128 the new data did not pay in the error rate (c11a, evaluator_ablations_g11.json).
$PY $E/train.py --net contact --name c11w --width 236 --hidden 192 \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9c.npz lookahead:$R/lookahead_g9c \
    --also $R/positions_g10c.npz lookahead:$R/lookahead_g10c \
    --also $R/positions_g11c.npz lookahead:$R/lookahead_g11c \
    --init $R/c10/epoch_000.npz --epochs 20 --schedule cosine --lr 1e-3 \
    --rank 16 --rank-also-only
$PY $E/train.py --net race --name r11a \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9r.npz lookahead:$R/lookahead_g9r \
    --also $R/positions_g10r.npz lookahead:$R/lookahead_g10r \
    --also $R/positions_g11r.npz lookahead:$R/lookahead_g11r \
    --init $R/r10/epoch_000.npz --epochs 40 --schedule cosine --lr 5e-4 \
    --rank 8 --rank-also-only
$PY $E/pack.py --contact $R/c11w/epoch_019.npz --race $R/r11a/epoch_039.npz --out $R/nets_g11.npz
echo "generation 11: $R/nets_g11.npz (scored as in experiments/TRAINING.md)"
