#!/bin/sh
# Generation 15 of the second evaluator: generation 14's contact and crashed nets fine-tuned
# on 2-ply labels by generation 14 with a regret loss; generation 14's race net kept. Every
# step is resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation15.sh            # from the repository's root
#
# It starts from generation 14 as shipped (commit 90504fe) and makes its own data:
#   generation15_labels.sh with HARD=2   g15 (20,000 games, seed 15) split into its hard
#                                        decisions g15h and the rest g15e, the hard
#                                        decisions h2h of 20,000 more (seed 2015), and the
#                                        race set g15r (labelled, not used here: the race
#                                        net stays generation 14's)
#   generation15_wide.sh with WIDE=w1    w1c and w1x: the contact and crashed decisions of
#                                        20,000 games (seed 515) with wide candidates
# Compute on the 2-core VM (2026-12-04/05), see experiments/TRAINING.md "Generation 15":
#   labels ~2 h on 2 cores (g15h 19 min, g15r 11, g15e 29, h2h 15, w1c 33, w1x 10; the
#   games and hard.py ~5 min a set); training the contact net 20 epochs ~33 min, the crashed
#   10 epochs ~2 min (1 thread each).
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
# the data (the two scripts also fetch generation 14's nets, nets_g14.npz, their teacher)
HARD=2 PY=$PY sh $E/generation15_labels.sh
WIDE=w1 PY=$PY sh $E/generation15_wide.sh
# generation 14's three nets as checkpoints to start from
[ -f $R/x14/epoch_000.npz ] || $PY $E/pack.py --unpack $R/nets_g14.npz \
    --contact $R/c14/epoch_000.npz --race $R/r14/epoch_000.npz --crashed $R/x14/epoch_000.npz

SETS="--positions $R/positions_g15e.npz --labels lookahead:$R/lookahead_g15e"
for S in g15h h2h w1c; do
    SETS="$SETS --also $R/positions_$S.npz lookahead:$R/lookahead_$S"
done
# The contact net (s15b): all decisions but the crashed ones (the crashed net's), a ranking
# loss of weight 16 and the regret loss of weight 1, 20 epochs from 1e-3 (chosen on the two
# contact validation sets, TRAINING.md).
[ -f $R/s15b/epoch_019.npz ] || $PY $E/train.py --net contact --name s15b \
    --init $R/c14/epoch_000.npz --no-crashed --hidden 192 --width 236 $SETS \
    --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 --threads 1
# The crashed net (y15b): the same sets and the crashed decisions of w1, 10 epochs from 3e-4.
[ -f $R/y15b/epoch_009.npz ] || $PY $E/train.py --net crashed --name y15b \
    --init $R/x14/epoch_000.npz --hidden 192 --width 236 $SETS \
    --also $R/positions_w1x.npz lookahead:$R/lookahead_w1x \
    --epochs 10 --lr 3e-4 --schedule cosine --rank 16 --regret 1 --threads 1
$PY $E/pack.py --contact $R/s15b/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/y15b/epoch_009.npz --out $R/nets_g15.npz
echo "generation 15: $R/nets_g15.npz (scored as in experiments/TRAINING.md)"
