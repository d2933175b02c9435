#!/bin/sh
# After generation 17: does the crashed net learn bear-offs against contact from more of
# them? Self-play from random bear-offs against checkers back (positions.py --mix
# bearoff=1, contact_bearoff_start), their crashed decisions labelled at 2 ply by
# generation 17 (one reply a roll), and generation 17's crashed net (zB3) fine-tuned on its
# data and these (zE4). Not shipped: see experiments/TRAINING.md "After generation 17".
# Every step is resumable: rerun the script after an interruption.
#
#   sh experiments/evaluator/crashed_bearoff.sh          # from the repository's root
#
# Compute on the 2-core VM (2026-12-05): positions 53 s (cb1, 8,000 games) and 264 s (cb3,
# 40,000 games) on one core; labels 5 min (cb1x, 132,523 rows) and about 40 min (cb3x,
# 648,382 rows) on 2 cores, a machine otherwise busy; cb4 as cb3 (seed 74); training 3 to 5
# min a run.
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
PY=$PY sh $E/generation17.sh

. $E/crashed_data.sh
for S in 1:71:8000 2:72:1000 3:73:40000 4:74:40000; do
    k=${S%%:*}; rest=${S#*:}
    bearoffs $k ${rest%%:*} ${rest#*:}
done

. $E/crashed_sets.sh
# zE4: from generation 17's crashed net, its data and the bear-offs, 20 epochs from 1e-3
[ -f $R/zE4/epoch_019.npz ] || $PY $E/train.py --net crashed --name zE4 \
    --init $R/zB3/epoch_009.npz --hidden 192 --width 236 $SETS $BE $BE $BE $CB \
    --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zE4/epoch_019.npz --out $R/nets_zE4.npz
# zE6: zE4's recipe with cb4x too
[ -f $R/zE6/epoch_019.npz ] || $PY $E/train.py --net crashed --name zE6 \
    --init $R/zB3/epoch_009.npz --hidden 192 --width 236 $SETS $BE $BE $BE $CB \
    --also $R/positions_cb4x.npz lookahead:$R/lookahead_cb4x \
    --epochs 20 --lr 1e-3 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/s16c/epoch_019.npz --race $R/r14/epoch_000.npz \
    --crashed $R/zE6/epoch_019.npz --out $R/nets_zE6.npz
# the student against its teacher on held-out bear-offs (cb2x), and the crashed endgames
$PY $E/student_gap.py regret --set cb2x $R/zB3/epoch_009.npz $R/zE4/epoch_019.npz \
    $R/zE6/epoch_019.npz
$PY $E/endgame_check.py --positions $R/positions_be2.npz --labels $R/rollvr_be2 \
    --exclude $R/positions_be1.npz --exclude $R/positions_be3.npz \
    --nets $R/nets_g17.npz --nets $R/nets_zE4.npz --nets $R/nets_zE6.npz
echo "zE4, zE6: $R/nets_zE4.npz, $R/nets_zE6.npz (scored as in experiments/TRAINING.md)"
