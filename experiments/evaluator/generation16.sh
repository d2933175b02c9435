#!/bin/sh
# Generation 16 of the second evaluator: generation 15's recipe with two more wide sets in the
# contact net's data; generation 15's crashed net and generation 14's race net kept. Every
# step is resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation16.sh            # from the repository's root
#
# It runs generation15.sh first (generation 15's data and nets), then
#   generation15_wide.sh with WIDE="w2 v1"   w2c: the contact decisions of 20,000 more games
#                                            of g14 (seed 525), v1c: of 20,000 games of the
#                                            first network (seed 615), wide candidates,
#                                            labelled at 2 ply by g14 (their crashed
#                                            decisions w2x and v1x are labelled too, not used)
# Compute on the 2-core VM (2026-12-05), see experiments/TRAINING.md "Generation 16":
#   labels of w2c and v1c ~30 min each on 2 cores; training the contact net 20 epochs
#   ~7 min on 2 threads.
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
PY=$PY sh $E/generation15.sh
WIDE="w2 v1" PY=$PY sh $E/generation15_wide.sh

SETS="--positions $R/positions_g15e.npz --labels lookahead:$R/lookahead_g15e"
for S in g15h h2h w1c w2c v1c; do
    SETS="$SETS --also $R/positions_$S.npz lookahead:$R/lookahead_$S"
done
# The contact net (s16c): generation 15's contact recipe (s15b) on w2c and v1c as well.
[ -f $R/s16c/epoch_019.npz ] || $PY $E/train.py --net contact --name s16c \
    --init $R/c14/epoch_000.npz --no-crashed --hidden 192 --width 236 $SETS \
    --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/y15b/epoch_009.npz --out $R/nets_g16.npz
echo "generation 16: $R/nets_g16.npz (scored as in experiments/TRAINING.md)"
