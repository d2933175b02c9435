#!/bin/sh
# Generation 17 of the second evaluator: generation 16's
# contact and race nets, and a crashed net that also learns random crashed endgames of
# stragglers against a home board (positions.py --bar-endgames), labelled by fastbg's own
# variance-reduced rollouts. Generation 16's crashed net misreads them (0.27 mean absolute
# equity error against 1,296-game rollouts; gnubg 0-ply 0.06). Every step is resumable:
# rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation17.sh            # from the repository's root
#
# Compute on the 2-core VM (2026-12-05), see experiments/TRAINING.md "Generation 17":
#   positions 1 s; labels of be1 (19,256 positions, 144 games each) and be3 (9,750) about
#   40 and 20 min on one core each, side by side; be2 (400 positions, 1,296 games each, the
#   check) 5 min; training 2 min.
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
PY=$PY sh $E/generation16.sh

. $E/crashed_data.sh
endgames
[ -f $R/positions_be2.npz ] || $PY $E/positions.py --games 0 --seed 32 --bar-endgames 400 \
    --out $R/positions_be2
$PY $E/labels.py --positions $R/positions_be2.npz --out $R/rollvr_be2 --vr --per-roll 36 \
    --seed 32 --shard 100 >> $R/be2_labels.log 2>&1

SETS="--positions $R/positions_g15e.npz --labels lookahead:$R/lookahead_g15e"
for S in g15h h2h w1c w1x; do
    SETS="$SETS --also $R/positions_$S.npz lookahead:$R/lookahead_$S"
done
BE="--also $R/positions_be1.npz $R/rollvr_be1 --also $R/positions_be3.npz $R/rollvr_be3"
# The crashed net (zB3): from generation 16's (y15b), its data and the endgames three times
# an epoch, 10 epochs from 3e-4.
[ -f $R/zB3/epoch_009.npz ] || $PY $E/train.py --net crashed --name zB3 \
    --init $R/y15b/epoch_009.npz --hidden 192 --width 236 $SETS $BE $BE $BE \
    --epochs 10 --lr 3e-4 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zB3/epoch_009.npz --out $R/nets_g17.npz
$PY $E/endgame_check.py --positions $R/positions_be2.npz --labels $R/rollvr_be2 \
    --exclude $R/positions_be1.npz --exclude $R/positions_be3.npz --nets $R/nets_g16.npz --nets $R/nets_g17.npz
echo "generation 17: $R/nets_g17.npz (scored as in experiments/TRAINING.md)"
